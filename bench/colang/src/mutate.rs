//! The mutations the fuzzer applies to corpus files: byte flips, insertions of punctuation and
//! Colang keywords, deletions, truncations, line splices from other files, indentation changes,
//! crossovers of two files and deep nesting. A small xorshift generator makes every run
//! reproducible from its seed.

/// xorshift64*: fast, and good enough to pick mutations.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

/// Words of both dialects and of the condition language, each inserted as it is.
const KEYWORDS: &[&str] = &[
    "define ",
    "user ",
    "bot ",
    "flow ",
    "subflow ",
    "if ",
    "elif ",
    "else",
    "else:",
    "when ",
    "or when ",
    "else when ",
    "while ",
    "await ",
    "start ",
    "match ",
    "send ",
    "return",
    "abort",
    "global ",
    "import ",
    "execute ",
    "do ",
    "stop",
    "activate ",
    "priority ",
    "as $ref",
    "and ",
    "or ",
    "not ",
    "in ",
    "$",
    "$x = ",
    "$args.",
    "@meta",
    "@active\n",
    "@loop(\"x\")\n",
    "...",
    "\"\"\"",
    "# meta: exclude from llm\n",
    "create ",
    "return ",
    "log ",
    "print ",
    "pass",
    "continue",
    "break",
    "event:",
    "flow:",
    "action:",
    "Action(",
    "UtteranceUserActionFinished(",
    ".Finished()",
    "r\"",
    "f\"{",
    "}\"",
    "{{",
    "}}",
    "${",
    "\\",
    "\\n",
    "'",
    "\"",
    "\t",
    "\r",
    "\r\n",
    "\u{feff}",
    "é",
    "\u{1F600}",
    "\u{0}",
    "  ",
    "    ",
    "\n",
    "\n\n",
    ":",
    "=",
    "==",
    "!=",
    "<=",
    ">=",
    "->",
    ",",
    ".",
    "*",
    "/",
    "-",
    "+",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "#",
    "0",
    "-1",
    "1.5e309",
    "99999999999999999999999",
    "true",
    "false",
    "None",
    "null",
];

/// Bytes that change the structure: punctuation, whitespace, quotes and invalid UTF-8.
const BYTES: &[u8] = b" \t\n\r\"'()[]{}:,.$@#\\=<>!-+*/`;|&\xff\xc3\x80";

/// Applies one to six random mutations to a copy of `base`; `others` gives lines and halves to
/// splice in.
pub fn mutate(rng: &mut Rng, base: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut out = base.to_vec();
    let steps = 1 + rng.below(6);
    for _ in 0..steps {
        match rng.below(12) {
            0 => flip_byte(rng, &mut out),
            1 => insert_byte(rng, &mut out),
            2 | 3 => insert_keyword(rng, &mut out),
            4 => delete_range(rng, &mut out),
            5 => {
                let at = rng.below(out.len() + 1);
                out.truncate(at);
            }
            6 | 7 => splice_line(rng, &mut out, others),
            8 => reindent_line(rng, &mut out),
            9 => duplicate_line(rng, &mut out),
            10 => crossover(rng, &mut out, others),
            _ => nest(rng, &mut out),
        }
    }
    out
}

fn flip_byte(rng: &mut Rng, out: &mut [u8]) {
    let at = rng.below(out.len());
    let bit = 1u8 << rng.below(8);
    if let Some(b) = out.get_mut(at) {
        *b ^= bit;
    }
}

fn insert_byte(rng: &mut Rng, out: &mut Vec<u8>) {
    let at = rng.below(out.len() + 1);
    let b = rng.pick(BYTES).copied().unwrap_or(b' ');
    out.insert(at, b);
}

fn insert_keyword(rng: &mut Rng, out: &mut Vec<u8>) {
    let word = rng.pick(KEYWORDS).copied().unwrap_or("");
    // Half of the time at the start of a line, where keywords matter most.
    let at = if rng.below(2) == 0 {
        let starts = line_starts(out);
        starts.get(rng.below(starts.len())).copied().unwrap_or(0)
    } else {
        rng.below(out.len() + 1)
    };
    out.splice(at..at, word.bytes());
}

fn delete_range(rng: &mut Rng, out: &mut Vec<u8>) {
    let at = rng.below(out.len() + 1);
    let cap = if rng.below(4) == 0 { 256 } else { 8 };
    let len = 1 + rng.below(cap);
    let end = (at + len).min(out.len());
    out.drain(at..end);
}

fn line_starts(text: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            text.iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect()
}

/// The byte range of a random line of `text`, its newline included.
fn random_line(rng: &mut Rng, text: &[u8]) -> (usize, usize) {
    let starts = line_starts(text);
    let i = rng.below(starts.len());
    let start = starts.get(i).copied().unwrap_or(0);
    let end = starts.get(i + 1).copied().unwrap_or(text.len());
    (start, end)
}

fn splice_line(rng: &mut Rng, out: &mut Vec<u8>, others: &[Vec<u8>]) {
    let Some(source) = rng.pick(others) else {
        return;
    };
    let (s, e) = random_line(rng, source);
    let mut line = source.get(s..e).unwrap_or(&[]).to_vec();
    if !line.ends_with(b"\n") {
        line.push(b'\n');
    }
    let starts = line_starts(out);
    let at = starts.get(rng.below(starts.len())).copied().unwrap_or(0);
    out.splice(at..at, line);
}

fn reindent_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let (s, _) = random_line(rng, out);
    match rng.below(3) {
        0 => {
            let n = 1 + rng.below(8);
            out.splice(s..s, std::iter::repeat_n(b' ', n));
        }
        1 => {
            out.insert(s, b'\t');
        }
        _ => {
            let n = out.get(s..).map_or(0, |rest| {
                rest.iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count()
            });
            let cut = rng.below(n + 1);
            out.drain(s..s + cut);
        }
    }
}

fn duplicate_line(rng: &mut Rng, out: &mut Vec<u8>) {
    let (s, e) = random_line(rng, out);
    let line = out.get(s..e).unwrap_or(&[]).to_vec();
    let cap = if rng.below(8) == 0 { 200 } else { 3 };
    let times = 1 + rng.below(cap);
    for _ in 0..times {
        out.splice(e..e, line.iter().copied());
    }
}

fn crossover(rng: &mut Rng, out: &mut Vec<u8>, others: &[Vec<u8>]) {
    let Some(source) = rng.pick(others) else {
        return;
    };
    let cut = rng.below(out.len() + 1);
    let from = rng.below(source.len() + 1);
    out.truncate(cut);
    out.extend_from_slice(source.get(from..).unwrap_or(&[]));
}

/// Deep nesting: brackets, quotes, indentation or `if` blocks repeated many times.
fn nest(rng: &mut Rng, out: &mut Vec<u8>) {
    let cap = if rng.below(4) == 0 { 5000 } else { 64 };
    let depth = 1 + rng.below(cap);
    let at = rng.below(out.len() + 1);
    let text: Vec<u8> = match rng.below(6) {
        0 => "(".repeat(depth).into_bytes(),
        1 => "[".repeat(depth).into_bytes(),
        2 => "{".repeat(depth).into_bytes(),
        3 => "not ".repeat(depth).into_bytes(),
        4 => (0..depth.min(400))
            .map(|d| format!("{}if $x:\n", "  ".repeat(d)))
            .collect::<String>()
            .into_bytes(),
        _ => (0..depth.min(400))
            .map(|d| format!("{}when $x\n", " ".repeat(d)))
            .collect::<String>()
            .into_bytes(),
    };
    out.splice(at..at, text);
}
