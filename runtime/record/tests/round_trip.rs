//! Encoding and loading give back what went in; the same body always gives the same bytes.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers stop at their first failure"
)]

mod common;

use common::{COMPILER, rich_body, rich_body_alt, small_body, walk};
use stalwart_record::*;

#[test]
fn rich_body_round_trips_through_bytes() {
    let body = rich_body();
    let bytes = encode(&body, COMPILER).unwrap();
    let record = Record::from_bytes(&bytes).unwrap();
    assert_eq!(record.to_body().unwrap(), body);
    assert_eq!(walk(&record), body);
    assert!(!record.is_mapped());
}

#[test]
fn alternative_variants_round_trip() {
    let body = rich_body_alt();
    let record = Record::from_bytes(&encode(&body, COMPILER).unwrap()).unwrap();
    assert_eq!(record.to_body().unwrap(), body);
    assert_eq!(record.body().kind, ArchivedRecordKind::Rulebook);
    assert_eq!(
        record.body().settings.taint_policy,
        ArchivedTaintPolicy::Confirm
    );
    assert_eq!(record.body().settings.language, ArchivedLanguage::En);
}

#[test]
fn archived_fields_read_in_place() {
    let record = Record::from_bytes(&encode(&rich_body(), COMPILER).unwrap()).unwrap();
    let body = record.body();
    let refund = &body.tools[2];
    assert_eq!(refund.name, "refund");
    assert_eq!(refund.effects, ArchivedEffects::Changes);
    assert_eq!(refund.requires.as_ref(), Some(&ArchivedTrust::High));
    assert_eq!(refund.after[0].tool.to_native(), 0);
    assert_eq!(refund.gate.paths.len(), 3);
    assert_eq!(
        refund.gate.paths[0]
            .condition
            .as_ref()
            .map(|c| c.to_native()),
        Some(6)
    );
    assert_eq!(
        refund.spend.as_ref().map(|s| s.at_most.to_native()),
        Some(500.0)
    );
    assert_eq!(body.agents[1].name, "triage");
    assert_eq!(body.settings.confirmation_expiry_secs.to_native(), 3_600);
    assert_eq!(body.budget_steps.as_ref().map(|b| b.to_native()), Some(40));
    assert!(matches!(&body.values[2], ArchivedValue::Number(n) if n.to_native() == 40.5));
}

#[test]
fn header_describes_the_body() {
    let bytes = encode(&rich_body(), COMPILER).unwrap();
    let record = Record::from_bytes(&bytes).unwrap();
    let header = record.header();
    assert_eq!(header.magic, MAGIC);
    assert_eq!(header.format_version, FORMAT_VERSION);
    assert_eq!(header.flags, 0);
    assert_eq!(header.compiler_version, COMPILER);
    assert_eq!(header.body_len as usize, bytes.len() - HEADER_LEN);
    assert_eq!(
        &header.digest,
        blake3::hash(&bytes[HEADER_LEN..]).as_bytes()
    );
    assert_eq!(record.body_bytes(), &bytes[HEADER_LEN..]);
    assert_eq!(&header.to_bytes()[..], &bytes[..HEADER_LEN]);
    assert_eq!(&bytes[..8], b"STLWREC\0");
    assert_eq!(&bytes[8..12], &[4, 0, 0, 0]);
    assert_eq!(&bytes[16..16 + COMPILER.len()], COMPILER.as_bytes());
    assert!(bytes[16 + COMPILER.len()..40].iter().all(|&b| b == 0));
}

#[test]
fn compiler_version_fills_its_field_exactly() {
    let version = "v".repeat(COMPILER_VERSION_LEN);
    let record = Record::from_bytes(&encode(&small_body(), &version).unwrap()).unwrap();
    assert_eq!(record.header().compiler_version, version);
    let empty = Record::from_bytes(&encode(&small_body(), "").unwrap()).unwrap();
    assert_eq!(empty.header().compiler_version, "");
}

#[test]
fn compiler_version_that_does_not_fit_is_refused() {
    let long = "v".repeat(COMPILER_VERSION_LEN + 1);
    let error = encode(&small_body(), &long).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the compiler version `{long}` does not fit the record header \
             (at most 24 bytes of UTF-8, no NUL)"
        )
    );
    let error = encode(&small_body(), "a\0b").unwrap_err();
    assert!(matches!(error, EncodeError::CompilerVersion { version } if version == "a\0b"));
}

#[test]
fn same_body_gives_same_bytes() {
    let first = encode(&rich_body(), COMPILER).unwrap();
    let second = encode(&rich_body(), COMPILER).unwrap();
    let of_clone = encode(&rich_body().clone(), COMPILER).unwrap();
    assert_eq!(first, second);
    assert_eq!(first, of_clone);
    // Loading and encoding again gives the same bytes too.
    let reloaded = Record::from_bytes(&first).unwrap().to_body().unwrap();
    assert_eq!(encode(&reloaded, COMPILER).unwrap(), first);
}

#[test]
fn different_bodies_give_different_bytes() {
    assert_ne!(
        encode(&rich_body(), COMPILER).unwrap(),
        encode(&rich_body_alt(), COMPILER).unwrap()
    );
}

/// The rich body's bytes are pinned: a change here changes the format, and needs a new
/// `FORMAT_VERSION`.
#[test]
fn rich_body_bytes_are_pinned() {
    let bytes = encode(&rich_body(), COMPILER).unwrap();
    assert_eq!(bytes.len(), PINNED_LEN);
    assert_eq!(blake3::hash(&bytes).to_hex().as_str(), PINNED_DIGEST);
}

const PINNED_LEN: usize = 7544;
const PINNED_DIGEST: &str = "1aabef7085de429c82b6e209f8c0acebab6dd81c0be690415651608b1edcd6e3";

#[test]
fn empty_body_round_trips() {
    let body = RecordBody::default();
    let record = Record::from_bytes(&encode(&body, COMPILER).unwrap()).unwrap();
    assert_eq!(record.to_body().unwrap(), body);
}

#[test]
fn open_maps_large_records_and_reads_small_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut large = rich_body();
    large.intents = (0..2_000).map(|i| format!("intent_{i:05}")).collect();
    let large_bytes = encode(&large, COMPILER).unwrap();
    assert!(large_bytes.len() > HEADER_LEN + 16 * 1024);
    let large_path = dir.path().join("large.bin");
    std::fs::write(&large_path, &large_bytes).unwrap();
    let small_path = dir.path().join("small.bin");
    std::fs::write(&small_path, encode(&small_body(), COMPILER).unwrap()).unwrap();

    let mapped = Record::open(&large_path).unwrap();
    assert!(mapped.is_mapped());
    assert_eq!(mapped.body().intents.len(), 2_000);
    assert_eq!(walk(&mapped), large);
    assert_eq!(mapped.header().compiler_version, COMPILER);

    let read = Record::read(&large_path).unwrap();
    assert!(!read.is_mapped());
    assert_eq!(read.to_body().unwrap(), large);
    assert_eq!(read.body_bytes(), mapped.body_bytes());

    let small = Record::open(&small_path).unwrap();
    assert!(!small.is_mapped());
    assert_eq!(small.to_body().unwrap(), small_body());
}
