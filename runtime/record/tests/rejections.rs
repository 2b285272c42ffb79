//! Every way a record can be wrong is refused with its own error, in the documented order.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers stop at their first failure"
)]

mod common;

use common::{COMPILER, reseal, rich_body, small_body};
use stalwart_record::*;

fn encoded() -> Vec<u8> {
    encode(&rich_body(), COMPILER).unwrap()
}

fn load_error(bytes: &[u8]) -> LoadError {
    Record::from_bytes(bytes).unwrap_err()
}

#[test]
fn truncated_inside_the_header() {
    let bytes = encoded();
    for len in [0, 1, 7, 8, 12, 47, HEADER_LEN - 1] {
        let error = load_error(&bytes[..len]);
        assert!(matches!(error, LoadError::TruncatedHeader { len: l } if l == len as u64));
        assert_eq!(
            error.to_string(),
            format!("truncated: the file has {len} bytes, fewer than the 80-byte record header")
        );
    }
}

#[test]
fn truncated_inside_the_body() {
    let bytes = encoded();
    let declared = (bytes.len() - HEADER_LEN) as u64;
    for len in [HEADER_LEN, HEADER_LEN + 1, bytes.len() / 2, bytes.len() - 1] {
        let found = (len - HEADER_LEN) as u64;
        let error = load_error(&bytes[..len]);
        assert!(matches!(
            error,
            LoadError::TruncatedBody { declared: d, found: f } if d == declared && f == found
        ));
        assert_eq!(
            error.to_string(),
            format!(
                "truncated: the header declares a body of {declared} bytes but only {found} follow"
            )
        );
    }
}

#[test]
fn trailing_bytes() {
    let mut bytes = encoded();
    let declared = (bytes.len() - HEADER_LEN) as u64;
    bytes.extend_from_slice(&[0; 3]);
    let error = load_error(&bytes);
    assert!(matches!(error, LoadError::TrailingBytes { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "trailing bytes: the header declares a body of {declared} bytes but {} follow",
            declared + 3
        )
    );
}

#[test]
fn wrong_magic() {
    for at in 0..8 {
        let mut bytes = encoded();
        bytes[at] ^= 0x20;
        let error = load_error(&bytes);
        assert!(matches!(error, LoadError::NotARecord));
        assert_eq!(
            error.to_string(),
            "not a Stalwart record: the file does not start with the record magic"
        );
    }
    // A file that is not a record is named as such before its body's length is looked at.
    let error = load_error(&[b'{'; HEADER_LEN + 2]);
    assert!(matches!(error, LoadError::NotARecord));
}

#[test]
fn wrong_version() {
    let mut bytes = encoded();
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    let error = load_error(&bytes);
    assert!(matches!(
        error,
        LoadError::UnsupportedVersion {
            found: 2,
            supported: 4
        }
    ));
    assert_eq!(
        error.to_string(),
        "unsupported record format version 2: this runtime reads version 4; \
         compile the record again with a matching compiler"
    );
    // The version is checked before the length.
    let error = load_error(&bytes[..HEADER_LEN]);
    assert!(matches!(
        error,
        LoadError::UnsupportedVersion { found: 2, .. }
    ));
}

#[test]
fn damaged_compiler_version() {
    let mut bytes = encoded();
    bytes[16] = 0xFF;
    let error = load_error(&bytes);
    assert!(matches!(error, LoadError::DamagedHeader));
    assert_eq!(
        error.to_string(),
        "damaged record header: the compiler version is not UTF-8 text"
    );
}

#[test]
fn flags_are_ignored() {
    let mut bytes = encoded();
    bytes[12] = 1;
    let record = Record::from_bytes(&bytes).unwrap();
    assert_eq!(record.header().flags, 1);
}

#[test]
fn wrong_digest() {
    let message =
        "the record's digest does not match its contents: the file was changed or damaged";
    let mut in_header = encoded();
    in_header[60] ^= 1;
    let error = load_error(&in_header);
    assert!(matches!(error, LoadError::DigestMismatch));
    assert_eq!(error.to_string(), message);

    let mut in_body = encoded();
    let last = in_body.len() - 1;
    in_body[last] ^= 1;
    assert_eq!(load_error(&in_body).to_string(), message);
}

#[test]
fn body_that_is_not_an_archive() {
    let mut bytes = encoded();
    // The root object sits at the end of the body; fill it with bytes no archive holds.
    let len = bytes.len();
    bytes[len - 88..].fill(0xFF);
    reseal(&mut bytes);
    let error = load_error(&bytes);
    assert!(matches!(error, LoadError::Archive(_)), "{error}");
    assert_eq!(error.to_string(), ARCHIVE_MESSAGE);
    // The archive's own account stays available to a program, not in the message.
    let detail = std::error::Error::source(&error).map(ToString::to_string);
    assert_eq!(
        detail.as_deref(),
        Some("invalid discriminant '255' for enum 'ArchivedLanguage'")
    );
}

#[test]
fn empty_body_is_not_an_archive() {
    let mut bytes = encode(&small_body(), COMPILER).unwrap();
    bytes.truncate(HEADER_LEN);
    bytes[40..48].copy_from_slice(&0u64.to_le_bytes());
    reseal(&mut bytes);
    let error = load_error(&bytes);
    assert!(matches!(error, LoadError::Archive(_)));
    assert_eq!(error.to_string(), ARCHIVE_MESSAGE);
    // rkyv's text names addresses here, which differ from run to run.
    let detail = std::error::Error::source(&error).map(ToString::to_string);
    assert!(
        detail
            .as_deref()
            .is_some_and(|d| d.starts_with("subtree pointer overran range")),
        "{detail:?}"
    );
}

/// What a digest-correct body that is no archive is reported as: in words, no rkyv internals.
const ARCHIVE_MESSAGE: &str = "the record's body is not a record this runtime can read, though \
    its digest matches: it was written by an incompatible build of the compiler or made by hand; \
    compile the record again with this version's compiler";

/// Encodes `body` (with a correct digest) and returns the loader's message.
fn index_message(body: &RecordBody) -> String {
    let error = load_error(&encode(body, COMPILER).unwrap());
    assert!(matches!(error, LoadError::Index(_)), "{error}");
    error.to_string()
}

#[test]
fn index_out_of_range_in_every_field() {
    type Damage = fn(&mut RecordBody);
    let cases: &[(Damage, &str)] = &[
        (
            |b| b.tools[0].arguments = Some(8),
            "`tools[0].arguments` refers to schema node 8, but the record has 8 schema nodes",
        ),
        (
            |b| b.tools[0].result = Some(99),
            "`tools[0].result` refers to schema node 99, but the record has 8 schema nodes",
        ),
        (
            |b| b.tools[2].after[0].tool = 4,
            "`tools[2].after[0].tool` refers to tool 4, but the record has 4 tools",
        ),
        (
            |b| b.tools[2].not_after[0] = NotAfter::Tool(u32::MAX),
            "`tools[2].not_after[0].tool` refers to tool 4294967295, but the record has 4 tools",
        ),
        (
            |b| {
                b.tools[2].undo = Undo::Tool {
                    tool: 10,
                    bind: vec![],
                }
            },
            "`tools[2].undo.tool` refers to tool 10, but the record has 4 tools",
        ),
        (
            |b| b.tools[2].checks[2].operand = CheckOperand::Value(7),
            "`tools[2].checks[2].operand.value` refers to value 7, but the record has 7 values",
        ),
        (
            |b| {
                b.tools[2].checks[1].operand = CheckOperand::From {
                    tool: 5,
                    field: "amount".into(),
                }
            },
            "`tools[2].checks[1].operand.from.tool` refers to tool 5, but the record has 4 tools",
        ),
        (
            |b| b.tools[2].gate.paths[1].condition = Some(20),
            "`tools[2].gate.paths[1].condition` refers to expression 20, \
             but the record has 20 expressions",
        ),
        (
            |b| b.tools[2].gate.paths[2].span.source = 2,
            "`tools[2].gate.paths[2].span.source` refers to source file 2, \
             but the record has 2 source files",
        ),
        (
            |b| b.tools[3].span.source = 9,
            "`tools[3].span.source` refers to source file 9, but the record has 2 source files",
        ),
        (
            |b| b.agents[0].tools[3] = 4,
            "`agents[0].tools[3]` refers to tool 4, but the record has 4 tools",
        ),
        (
            |b| b.agents[1].hands_off_to[1] = 4,
            "`agents[1].hands_off_to[1]` refers to agent 4, but the record has 4 agents",
        ),
        (
            |b| b.agents[3].span.source = 2,
            "`agents[3].span.source` refers to source file 2, but the record has 2 source files",
        ),
        (
            |b| b.facts[1].tool = 4,
            "`facts[1].tool` refers to tool 4, but the record has 4 tools",
        ),
        (
            |b| b.facts[0].equals = Some(7),
            "`facts[0].equals` refers to value 7, but the record has 7 values",
        ),
        (
            |b| b.facts[0].span.source = 3,
            "`facts[0].span.source` refers to source file 3, but the record has 2 source files",
        ),
        (
            |b| b.values[4] = Value::Array(vec![0, 8]),
            "`values[4].array[1]` refers to value 8, but the record has 7 values",
        ),
        (
            |b| b.values[5] = Value::Object(vec![("k".into(), 7)]),
            "`values[5].object[0]` refers to value 7, but the record has 7 values",
        ),
        (
            |b| b.schema_nodes[0].properties[3].1 = 8,
            "`schema_nodes[0].properties[3]` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[4].additional = Additional::Schema(8),
            "`schema_nodes[4].additional` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[1].enum_values = vec![3, 7],
            "`schema_nodes[1].enum_values[1]` refers to value 7, but the record has 7 values",
        ),
        (
            |b| b.schema_nodes[2].constant = Some(7),
            "`schema_nodes[2].constant` refers to value 7, but the record has 7 values",
        ),
        (
            |b| b.schema_nodes[3].items = Some(8),
            "`schema_nodes[3].items` refers to schema node 8, but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[4].any_of[1] = 8,
            "`schema_nodes[4].any_of[1]` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[6].all_of[0] = 8,
            "`schema_nodes[6].all_of[0]` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[6].one_of[1] = 9,
            "`schema_nodes[6].one_of[1]` refers to schema node 9, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[6].reference = Some(8),
            "`schema_nodes[6].reference` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[6].property_names = Some(8),
            "`schema_nodes[6].property_names` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.schema_nodes[6].pattern_properties[0].1 = 8,
            "`schema_nodes[6].pattern_properties[0]` refers to schema node 8, \
             but the record has 8 schema nodes",
        ),
        (
            |b| b.exprs[2] = Expr::Literal(7),
            "`exprs[2].literal` refers to value 7, but the record has 7 values",
        ),
        (
            |b| b.exprs[4] = Expr::Not(20),
            "`exprs[4].not` refers to expression 20, but the record has 20 expressions",
        ),
        (
            |b| b.exprs[5] = Expr::And(3, 20),
            "`exprs[5].and[1]` refers to expression 20, but the record has 20 expressions",
        ),
        (
            |b| b.exprs[6] = Expr::Or(20, 0),
            "`exprs[6].or[0]` refers to expression 20, but the record has 20 expressions",
        ),
        (
            |b| {
                b.exprs[12] = Expr::Member {
                    base: 21,
                    field: "x".into(),
                }
            },
            "`exprs[12].member` refers to expression 21, but the record has 20 expressions",
        ),
        (
            |b| b.exprs[13] = Expr::List(vec![1, 20]),
            "`exprs[13].list[1]` refers to expression 20, but the record has 20 expressions",
        ),
        (
            |b| {
                b.exprs[14] = Expr::In {
                    item: 1,
                    collection: 25,
                }
            },
            "`exprs[14].in.collection` refers to expression 25, but the record has 20 expressions",
        ),
        (
            |b| {
                b.exprs[17] = Expr::Method {
                    method: StrMethod::Lower,
                    receiver: 1,
                    args: vec![30],
                }
            },
            "`exprs[17].method.args[0]` refers to expression 30, but the record has 20 expressions",
        ),
        (
            |b| {
                b.exprs[3] = Expr::Compare {
                    op: CompareOp::Le,
                    left: 1,
                    right: 20,
                }
            },
            "`exprs[3].compare.right` refers to expression 20, but the record has 20 expressions",
        ),
        (
            |b| {
                b.exprs[7] = Expr::Compare {
                    op: CompareOp::Eq,
                    left: 40,
                    right: 2,
                }
            },
            "`exprs[7].compare.left` refers to expression 40, but the record has 20 expressions",
        ),
        (
            |b| b.selector.routes[0].intent = Some(1),
            "`selector.routes[0].intent` refers to intent 1, but the record has 1 intent",
        ),
        (
            |b| b.selector.routes[0].target = RouteTarget::Tool(9),
            "`selector.routes[0].target.tool` refers to tool 9, but the record has 4 tools",
        ),
        (
            |b| b.selector.intents[0].span.source = 8,
            "`selector.intents[0].span.source` refers to source file 8, but the record has 2 source files",
        ),
        (
            |b| b.selector.readers[0].terms[2].postings[1].route = 3,
            "`selector.readers[0].terms[2].postings[1].route` refers to route 3, but the record has 3 routes",
        ),
        (
            |b| b.selector.readers[0].words[7].kind = WordKind::Term(4),
            "`selector.readers[0].words[7].kind.term` refers to term 4, but the record has 4 terms",
        ),
        (
            |b| b.selector.readers[0].phrases[0].kind = WordKind::Term(5),
            "`selector.readers[0].phrases[0].kind.term` refers to term 5, but the record has 4 terms",
        ),
        (
            |b| b.selector.readers[0].stems[0].term = 4,
            "`selector.readers[0].stems[0].term` refers to term 4, but the record has 4 terms",
        ),
        (
            |b| b.selector.readers[0].near[0].word = 12,
            "`selector.readers[0].near[0].word` refers to word 12, but the record has 12 words",
        ),
        (
            |b| b.selector.readers[0].profiles[0].examples[0][1] = 4,
            "`selector.readers[0].profiles[0].examples[0].terms[1]` refers to term 4, but the record has 4 terms",
        ),
    ];
    for (damage, expected) in cases {
        let mut body = rich_body();
        damage(&mut body);
        assert_eq!(
            index_message(&body),
            format!("the record is inconsistent: {expected}")
        );
    }
}

#[test]
fn index_fault_names_field_arena_and_lengths() {
    let mut body = small_body();
    body.sources.clear();
    let error = load_error(&encode(&body, COMPILER).unwrap());
    let LoadError::Index(fault) = error else {
        panic!("expected an index fault, got {error}");
    };
    assert_eq!(
        fault,
        IndexFault {
            field: "tools[0].span.source".into(),
            arena: Arena::Sources,
            index: 0,
            len: 0,
        }
    );
    assert_eq!(
        fault.to_string(),
        "`tools[0].span.source` refers to source file 0, but the record has 0 source files"
    );
}

#[test]
fn one_member_arena_is_named_in_the_singular() {
    let mut body = small_body();
    body.tools[0].arguments = Some(1);
    assert_eq!(
        index_message(&body),
        "the record is inconsistent: \
         `tools[0].arguments` refers to schema node 1, but the record has 1 schema node"
    );
}

#[test]
fn io_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.bin");
    for error in [
        Record::open(&path).unwrap_err(),
        Record::read(&path).unwrap_err(),
    ] {
        assert!(matches!(error, LoadError::Io { .. }));
        assert_eq!(
            error.to_string(),
            format!(
                "could not read `{}`: No such file or directory (os error 2)",
                path.display()
            )
        );
    }
}

#[test]
fn files_are_checked_like_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut large = rich_body();
    large.intents = (0..2_000).map(|i| format!("intent_{i:05}")).collect();
    let bytes = encode(&large, COMPILER).unwrap();
    let declared = (bytes.len() - HEADER_LEN) as u64;
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            vec![],
            "truncated: the file has 0 bytes, fewer than the 80-byte record header".into(),
        ),
        (
            bytes[..40].to_vec(),
            "truncated: the file has 40 bytes, fewer than the 80-byte record header".into(),
        ),
        (
            bytes[..bytes.len() - 5].to_vec(),
            format!(
                "truncated: the header declares a body of {declared} bytes but only {} follow",
                declared - 5
            ),
        ),
        (
            [&bytes[..], b"\n"].concat(),
            format!(
                "trailing bytes: the header declares a body of {declared} bytes but {} follow",
                declared + 1
            ),
        ),
        (
            {
                let mut b = bytes.clone();
                b[1000] ^= 0xFF;
                b
            },
            "the record's digest does not match its contents: the file was changed or damaged"
                .into(),
        ),
    ];
    for (i, (content, expected)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("case{i}.bin"));
        std::fs::write(&path, content).unwrap();
        assert_eq!(Record::open(&path).unwrap_err().to_string(), *expected);
        assert_eq!(Record::read(&path).unwrap_err().to_string(), *expected);
    }
}
