//! Shared helpers of the schema tests: compile a JSON Schema with the compiler, archive the body
//! the way a record holds it, and validate with the runtime.

#![allow(dead_code)]

use rkyv::rancor::Error;
use serde_json::{Map, Value as Json};
use stalwart_lower::schema::{CompiledSchema, compile_schema};
use stalwart_record::{ArchivedRecordBody, RecordBody};

/// A record body holding one compiled schema, archived.
pub struct Compiled {
    pub schema: CompiledSchema,
    pub bytes: rkyv::util::AlignedVec,
}

impl Compiled {
    pub fn body(&self) -> &ArchivedRecordBody {
        rkyv::access::<ArchivedRecordBody, Error>(&self.bytes).unwrap()
    }
}

/// Compiles `schema` into an empty body and archives it; the schema must compile without errors.
pub fn compile(schema: &Json) -> Compiled {
    let mut body = RecordBody::default();
    let compiled = compile_schema(&mut body.values, &mut body.schema_nodes, schema);
    assert_eq!(compiled.errors, vec![], "schema {schema} has errors");
    let bytes = rkyv::to_bytes::<Error>(&body).unwrap();
    Compiled {
        schema: compiled,
        bytes,
    }
}

pub fn object(json: Json) -> Map<String, Json> {
    match json {
        Json::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}
