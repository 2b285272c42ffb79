//! Shared helpers of the schema tests: compile a JSON Schema with the compiler, encode the body
//! into a record's bytes and load it back with the validating loader, as the runtime reads it.

#![allow(dead_code)]

use serde_json::{Map, Value as Json};
use stalwart_lower::schema::{CompiledSchema, compile_schema};
use stalwart_record::{ArchivedRecordBody, Record, RecordBody, encode};

/// A loaded record holding one compiled schema.
pub struct Compiled {
    pub schema: CompiledSchema,
    pub record: Record,
}

impl Compiled {
    pub fn body(&self) -> &ArchivedRecordBody {
        self.record.body()
    }
}

/// Compiles `schema` into an empty body, encodes and loads it; the schema must compile without
/// errors.
pub fn compile(schema: &Json) -> Compiled {
    let mut body = RecordBody::default();
    let compiled = compile_schema(&mut body.values, &mut body.schema_nodes, schema);
    assert_eq!(compiled.errors, vec![], "schema {schema} has errors");
    let bytes = encode(&body, "0.1.0").unwrap();
    let record = Record::from_bytes(&bytes).unwrap();
    Compiled {
        schema: compiled,
        record,
    }
}

pub fn object(json: Json) -> Map<String, Json> {
    match json {
        Json::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}
