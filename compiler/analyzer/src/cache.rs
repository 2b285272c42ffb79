//! The proof cache: a proof is stored under the digest of what it read (the graph, the catalogue
//! and rulebook as compiled into the record body, the Python modules, the bounds and the
//! engines), so proving the same agent again is answered from the cache.

use std::path::{Path, PathBuf};

use crate::{ENGINES, Proof, ProofInput};

/// The cache key of a proof's input: BLAKE3, hex.
/// Changed whenever `Proof` gains or changes a field.
const PROOF_LAYOUT: &str = "proof-layout-2 (governs, not_governed)";

pub fn key(input: &ProofInput<'_>) -> String {
    let mut h = blake3::Hasher::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    // The proof's own layout: a proof stored by an earlier layout is never read as this one.
    h.update(PROOF_LAYOUT.as_bytes());
    h.update(stalwart_graph::to_json_string(input.graph).as_bytes());
    h.update(format!("{:?}", input.body.tools).as_bytes());
    h.update(format!("{:?}", input.body.agents).as_bytes());
    h.update(
        format!(
            "{:?}{:?}{:?}",
            input.body.exprs, input.body.values, input.body.budget_steps
        )
        .as_bytes(),
    );
    h.update(format!("{:?}{:?}", input.rulebook, input.rulebook_errors).as_bytes());
    h.update(format!("{:?}", input.rulebook_input).as_bytes());
    for (path, text) in &input.python {
        h.update(path.as_bytes());
        h.update(&[0]);
        h.update(text.as_bytes());
        h.update(&[0]);
    }
    h.update(format!("{:?}{:?}", input.bounds, ENGINES).as_bytes());
    h.finalize().to_hex().to_string()
}

/// Where a proof with this key is stored under a cache folder.
pub fn path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.json"))
}

/// The cached proof, when there is one that reads back.
pub fn load(dir: &Path, key: &str) -> Option<Proof> {
    let text = std::fs::read_to_string(path(dir, key)).ok()?;
    let mut proof: Proof = serde_json::from_str(&text).ok()?;
    if proof.key != key {
        return None;
    }
    proof.from_cache = true;
    Some(proof)
}

/// Stores a proof (written to a temporary file and renamed, so a reader never sees half of it).
pub fn store(dir: &Path, proof: &Proof) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut stored = proof.clone();
    stored.from_cache = false;
    let text = serde_json::to_string(&stored).map_err(std::io::Error::other)?;
    let tmp = dir.join(format!(".{}.tmp", proof.key));
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, path(dir, &proof.key))
}
