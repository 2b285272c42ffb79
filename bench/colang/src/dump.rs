//! `dump`: one line per input with a hash of everything a parse yields (the tree, the facts
//! `stalwart rules inspect` prints, every diagnostic), for the given files and `--mutations`
//! mutations of each (seeded, so every build sees the same inputs). Two builds that print the
//! same lines parse every input alike: `diff` the outputs of the old and the new parser.

use std::hash::{DefaultHasher, Hash, Hasher};

use stalwart_diagnostics::FileId;

use crate::Options;
use crate::corpus::{self, Dialect};
use crate::mutate::{Rng, mutate};

pub fn run(opts: &Options) -> Result<(), String> {
    let inputs = corpus::read_files(&opts.files)?;
    let bases: Vec<Vec<u8>> = inputs.iter().map(|i| i.text.clone().into_bytes()).collect();
    let mut rng = Rng::new(opts.seed);
    let mut count = 0usize;
    for (n, base) in bases.iter().enumerate() {
        let mut texts = vec![base.clone()];
        for _ in 0..opts.mutations {
            texts.push(mutate(&mut rng, base, &bases));
        }
        for (m, bytes) in texts.iter().enumerate() {
            let text = String::from_utf8_lossy(bytes);
            println!(
                "{n}.{m} {} {:016x}",
                text.len(),
                digest(opts.dialect, &text)
            );
            count += 1;
        }
    }
    eprintln!("{count} inputs");
    Ok(())
}

fn digest(dialect: Dialect, text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    let dump = match dialect {
        Dialect::V1 => {
            let parsed = stalwart_syntax::parse_v1(FileId(0), text);
            let facts = stalwart_syntax::inspect_v1(&parsed.value);
            format!("{:?}\n{facts}\n{:?}", parsed.value, parsed.diagnostics)
        }
        Dialect::V2 => {
            let parsed = stalwart_syntax::v2::parse_v2(FileId(0), text);
            let facts = stalwart_syntax::v2::inspect_v2(&parsed.value);
            format!("{:?}\n{facts}\n{:?}", parsed.value, parsed.diagnostics)
        }
    };
    dump.hash(&mut h);
    h.finish()
}
