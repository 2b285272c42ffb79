//! Python objects to JSON values and back: the only shapes the runtime reads.
//!
//! A Python value becomes JSON as `json.dumps` would take it, but strictly: mapping keys must be
//! strings, floats must be finite, nothing but `dict`/`list`/`tuple`/`str`/`int`/`float`/`bool`/
//! `None` is accepted, and nesting is limited as the runtime limits it. Every error names the
//! parameter the value came from (`TypeError` for a value of the wrong type, `ValueError` for one
//! of the right type the runtime cannot take).

use std::collections::BTreeMap;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use stalwart_runtime::value::MAX_NESTING;

/// The Python type's name, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// Where a value lies inside a parameter (`args["amount"][0]`), written out only for an error.
#[derive(Clone, Copy)]
enum At<'a> {
    Param(&'a str),
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Param(p) => f.write_str(p),
            At::Key(parent, key) => write!(f, "{parent}[{key:?}]"),
            At::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// A JSON value from a Python value given as `param` (`args`, `context`, `result`, …).
pub fn to_json(value: &Bound<'_, PyAny>, param: &str) -> PyResult<Value> {
    to_json_at(value, At::Param(param), 0, MAX_NESTING)
}

/// The same, with a nesting limit of its own (a history nests its arguments deeper).
pub fn to_json_limited(value: &Bound<'_, PyAny>, param: &str, limit: usize) -> PyResult<Value> {
    to_json_at(value, At::Param(param), 0, limit)
}

fn to_json_at(value: &Bound<'_, PyAny>, at: At<'_>, depth: usize, limit: usize) -> PyResult<Value> {
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = value.cast_exact::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    // `bool` before `int`: a Python bool is an int.
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    if value.cast::<PyInt>().is_ok() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = value.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        return Err(PyValueError::new_err(format!(
            "{at}: the integer {value} does not fit in 64 bits"
        )));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        let f = f.value();
        return Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{at}: {f} is not a number JSON can hold"))
        });
    }
    let deeper = depth + 1;
    if let Ok(d) = value.cast::<PyDict>() {
        if deeper > limit {
            return Err(too_deep(at, limit));
        }
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{at}: keys must be strings, found {} `{k}`",
                    type_name(&k)
                ))
            })?;
            let key = key.to_str()?;
            let value = to_json_at(&v, At::Key(&at, key), deeper, limit)?;
            map.insert(key.to_string(), value);
        }
        return Ok(Value::Object(map));
    }
    if value.cast::<PyList>().is_ok() || value.cast::<PyTuple>().is_ok() {
        if deeper > limit {
            return Err(too_deep(at, limit));
        }
        let mut items = Vec::new();
        for (i, item) in value.try_iter()?.enumerate() {
            items.push(to_json_at(&item?, At::Index(&at, i), deeper, limit)?);
        }
        return Ok(Value::Array(items));
    }
    Err(PyTypeError::new_err(format!(
        "{at}: a {} is not a JSON value (dict, list, str, int, float, bool or None)",
        type_name(value)
    )))
}

fn too_deep(at: At<'_>, limit: usize) -> PyErr {
    PyValueError::new_err(format!("{at}: nests deeper than {limit} levels"))
}

/// A mapping of names to JSON values (`args`, `context`), or `None` for an empty one.
pub fn to_object(value: Option<&Bound<'_, PyAny>>, param: &str) -> PyResult<Map<String, Value>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Map::new());
    };
    let Ok(dict) = value.cast::<PyDict>() else {
        return Err(PyTypeError::new_err(format!(
            "{param} must be a dict of names to values, not {}",
            type_name(value)
        )));
    };
    let at = At::Param(param);
    let mut map = Map::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let key = k.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{param}: keys must be strings, found {} `{k}`",
                type_name(&k)
            ))
        })?;
        let key = key.to_str()?;
        let value = to_json_at(&v, At::Key(&at, key), 1, MAX_NESTING)?;
        map.insert(key.to_string(), value);
    }
    Ok(map)
}

/// A mapping of names to strings (`origins`), or `None` for an empty one.
pub fn to_string_map(
    value: Option<&Bound<'_, PyAny>>,
    param: &str,
) -> PyResult<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(out);
    };
    let dict = value.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{param} must be a dict of argument names to strings, not {}",
            type_name(value)
        ))
    })?;
    for (k, v) in dict.iter() {
        let key: String = k.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{param}: keys must be strings, found {} `{k}`",
                type_name(&k)
            ))
        })?;
        let text: String = v.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{param}[{key:?}] must be a string such as \"typed\" or \"model\", not {}",
                type_name(&v)
            ))
        })?;
        out.insert(key, text);
    }
    Ok(out)
}

/// A mapping of names to lists of strings (`labels`), or `None` for an empty one.
pub fn to_list_map(
    value: Option<&Bound<'_, PyAny>>,
    param: &str,
) -> PyResult<BTreeMap<String, Vec<String>>> {
    let mut out = BTreeMap::new();
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(out);
    };
    let dict = value.cast::<PyDict>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{param} must be a dict of argument names to lists of labels, not {}",
            type_name(value)
        ))
    })?;
    for (k, v) in dict.iter() {
        let key: String = k.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "{param}: keys must be strings, found {} `{k}`",
                type_name(&k)
            ))
        })?;
        let wrong = || {
            PyTypeError::new_err(format!(
                "{param}[{key:?}] must be a list of strings, not {}",
                type_name(&v)
            ))
        };
        if v.cast::<PyString>().is_ok() {
            return Err(wrong());
        }
        let list: Vec<String> = v.extract().map_err(|_| wrong())?;
        out.insert(key, list);
    }
    Ok(out)
}

/// An optional string (`confirmation`, `intent`, `agent`).
pub fn to_opt_string(value: Option<&Bound<'_, PyAny>>, param: &str) -> PyResult<Option<String>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => v.extract::<String>().map(Some).map_err(|_| {
            PyTypeError::new_err(format!(
                "{param} must be a string or None, not {}",
                type_name(v)
            ))
        }),
    }
}

/// A Python object from a JSON value: dicts keep their order.
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
