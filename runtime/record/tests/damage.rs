//! Damaged bytes never crash the loader: every load either fails with an error or gives a record
//! whose every field can be walked and deserialised.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test helpers stop at their first failure"
)]

mod common;

use common::{COMPILER, reseal, rich_body, small_body, walk};
use proptest::prelude::*;
use stalwart_record::*;

const MASKS: [u8; 4] = [0xFF, 0x01, 0x80, 0x10];

/// Loads `bytes`, walking the record if it loads; returns whether it loaded.
fn load_and_walk(bytes: &[u8]) -> bool {
    match Record::from_bytes(bytes) {
        Ok(record) => {
            walk(&record);
            true
        }
        Err(error) => {
            assert!(!error.to_string().is_empty());
            false
        }
    }
}

/// Flipping any byte of the file is caught: by the header checks, or by the digest.
#[test]
fn every_flipped_byte_is_refused() {
    let bytes = encode(&small_body(), COMPILER).unwrap();
    for at in 0..bytes.len() {
        for mask in MASKS {
            let mut damaged = bytes.clone();
            damaged[at] ^= mask;
            match Record::from_bytes(&damaged) {
                // The reserved flags and the compiler version's padding are not checked.
                Ok(_) => assert!((12..16).contains(&at) || (16..40).contains(&at), "{at}"),
                Err(LoadError::NotARecord) => assert!(at < 8),
                Err(LoadError::UnsupportedVersion { .. }) => assert!((8..12).contains(&at)),
                Err(LoadError::DamagedHeader) => assert!((16..40).contains(&at)),
                Err(LoadError::TruncatedBody { .. } | LoadError::TrailingBytes { .. }) => {
                    assert!((40..48).contains(&at))
                }
                Err(LoadError::DigestMismatch) => assert!(at >= 48, "{at}"),
                Err(other) => panic!("byte {at} mask {mask:#x}: unexpected {other}"),
            }
        }
    }
}

/// With the digest written again after each flip, the damage reaches bytecheck and the index
/// pass: each load is refused or gives a walkable record.
#[test]
fn every_flipped_body_byte_with_a_fresh_digest_is_refused_or_walkable() {
    for body in [small_body(), rich_body()] {
        let bytes = encode(&body, COMPILER).unwrap();
        let (mut loaded, mut refused) = (0, 0);
        for at in HEADER_LEN..bytes.len() {
            for mask in MASKS {
                let mut damaged = bytes.clone();
                damaged[at] ^= mask;
                reseal(&mut damaged);
                if load_and_walk(&damaged) {
                    loaded += 1;
                } else {
                    refused += 1;
                }
            }
        }
        // Both outcomes occur: string bytes may change freely, lengths and tags may not.
        assert!(
            loaded > 0 && refused > 0,
            "loaded {loaded}, refused {refused}"
        );
    }
}

fn sealed(body: &[u8]) -> Vec<u8> {
    let mut bytes = encode(&RecordBody::default(), COMPILER).unwrap();
    bytes.truncate(HEADER_LEN);
    bytes[40..48].copy_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(body);
    reseal(&mut bytes);
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let error = Record::from_bytes(&bytes).unwrap_err();
        if bytes.len() < HEADER_LEN {
            prop_assert!(matches!(error, LoadError::TruncatedHeader { .. }), "{}", error);
        }
    }

    #[test]
    fn random_sealed_bodies_are_refused_or_walkable(
        body in proptest::collection::vec(any::<u8>(), 0..600)
    ) {
        load_and_walk(&sealed(&body));
    }

    #[test]
    fn damaged_sealed_bodies_are_refused_or_walkable(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)
    ) {
        let bytes = encode(&rich_body(), COMPILER).unwrap();
        let mut body = bytes[HEADER_LEN..].to_vec();
        for (at, value) in edits {
            let at = at.index(body.len());
            body[at] = value;
        }
        load_and_walk(&sealed(&body));
    }

    #[test]
    fn every_truncation_is_refused(cut in any::<prop::sample::Index>()) {
        let bytes = encode(&rich_body(), COMPILER).unwrap();
        let len = cut.index(bytes.len());
        let error = Record::from_bytes(&bytes[..len]).unwrap_err();
        if len < HEADER_LEN {
            prop_assert!(
                matches!(error, LoadError::TruncatedHeader { len: l } if l == len as u64),
                "{}", error
            );
        } else {
            let found = (len - HEADER_LEN) as u64;
            prop_assert!(
                matches!(error, LoadError::TruncatedBody { found: f, .. } if f == found),
                "{}", error
            );
        }
    }

    #[test]
    fn any_trailing_bytes_are_refused(tail in proptest::collection::vec(any::<u8>(), 1..64)) {
        let mut bytes = encode(&small_body(), COMPILER).unwrap();
        let declared = (bytes.len() - HEADER_LEN) as u64;
        bytes.extend_from_slice(&tail);
        let error = Record::from_bytes(&bytes).unwrap_err();
        let found = declared + tail.len() as u64;
        prop_assert!(
            matches!(error, LoadError::TrailingBytes { declared: d, found: f }
                if d == declared && f == found),
            "{}", error
        );
    }
}
