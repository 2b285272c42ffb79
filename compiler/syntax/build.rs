//! Generates the parsers from the lalrpop grammars in the workspace's `grammars/` folder, plus a
//! second parser of each Colang grammar for clean files: the same grammar with the rules that
//! only rename another rule or turn tokens into a plain value inlined. It accepts the same
//! language and runs the same actions in the same order, with fewer reductions; but its
//! "expected …" lists differ, so its errors are never reported: a file it rejects is parsed
//! again with the first parser.

use std::path::Path;

/// The rules of `colang_v1.lalrpop` inlined in its clean-file parser, by the start of their
/// definition.
const V1_INLINED: &[&str] = &[
    "InTok: () =",
    "AnyTok: () =",
    "NameTok: () =",
    "ValIn: () =",
    "Word: R =",
    "Var: R =",
    "KwSpan: R =",
    "Mod: R =",
    "FlowKw: bool =",
    "SetOp: SetOp =",
];

/// The rules of `colang_v2.lalrpop` inlined in its clean-file parser.
const V2_INLINED: &[&str] = &[
    "Expr: () =",
    "ExprNU: () =",
    "ExprOf<F>: () =",
    "XorOf<F>: () =",
    "AndOf<F>: () =",
    "ShiftOf<F>: () =",
    "ArithOf<F>: () =",
    "TermOf<F>: () =",
    "Power: () =",
    "PowerNU: () =",
    "AtomExpr: () =",
    "OrOp: BinOp =",
    "XorOp: BinOp =",
    "AndOp: BinOp =",
    "ShiftOp: BinOp =",
    "AddOp: BinOp =",
    "MulOp: BinOp =",
    "UnaryOp: UnaryOp =",
    "CompOp: CmpOp =",
    "AssignOp: AssignOp =",
    "SpecOpKw: SpecOp =",
    "Word: (usize, usize) =",
    "FWord: (usize, usize) =",
];

fn main() {
    println!("cargo:rerun-if-changed=../../grammars");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| "target".into());
    if let Err(e) = generate(Path::new(&out)) {
        eprintln!("lalrpop failed: {e}");
        std::process::exit(1);
    }
}

fn generate(out: &Path) -> Result<(), Box<dyn std::error::Error>> {
    lalrpop::Configuration::new()
        .set_in_dir("../../grammars")
        .set_out_dir(out)
        .emit_rerun_directives(true)
        .process()?;
    let dir = out.join("clean");
    std::fs::create_dir_all(&dir)?;
    write_clean(&dir, "colang_v1", V1_INLINED)?;
    write_clean(&dir, "colang_v2", V2_INLINED)?;
    lalrpop::Configuration::new()
        .set_in_dir(&dir)
        .set_out_dir(out)
        .process()?;
    Ok(())
}

/// Writes `dir/NAME_clean.lalrpop`: `grammars/NAME.lalrpop` with `#[inline]` before the
/// definitions of `rules`.
fn write_clean(dir: &Path, name: &str, rules: &[&str]) -> Result<(), Box<dyn std::error::Error>> {
    let grammar = std::fs::read_to_string(format!("../../grammars/{name}.lalrpop"))?;
    let mut clean = String::with_capacity(grammar.len() + 256);
    let mut found = 0;
    for line in grammar.lines() {
        if rules.iter().any(|rule| line.starts_with(rule)) {
            clean.push_str("#[inline] ");
            found += 1;
        }
        clean.push_str(line);
        clean.push('\n');
    }
    if found != rules.len() {
        return Err(format!(
            "{found} of the {} rules to inline found in {name}.lalrpop",
            rules.len()
        )
        .into());
    }
    std::fs::write(dir.join(format!("{name}_clean.lalrpop")), clean)?;
    Ok(())
}
