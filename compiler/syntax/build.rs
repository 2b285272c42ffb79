//! Generates the parsers from the lalrpop grammars in the workspace's `grammars/` folder, plus a
//! second parser of each Colang grammar for clean files: the same grammar with the rules that
//! only rename another rule or turn tokens into a plain value inlined, and (2.x) a few tokens
//! standing for merged runs of the token stream (`V2_ADDED`). It runs the same actions in the
//! same order, with fewer reductions; but its "expected …" lists differ, so its errors are never
//! reported: a file it rejects is parsed again with the first parser.

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

/// Lines added to `colang_v2.lalrpop` in its clean-file parser, each after the line starting
/// with the first text: the token of a run of name words, read only as the first words of
/// `Words`; the token of a string that is a whole first argument of a spec, read only as
/// `SimpleFirst`; and the token of a string that is a whole named argument's value, read only
/// after `name =` in `ArgValue` and `CallArg` (see `v2::parser::NameRuns`); each with the
/// actions of the rules it stands for.
const V2_ADDED: &[(&str, &str)] = &[
    (
        r#"        "name" => Tok::Name,"#,
        r#"        "names" => Tok::Names,"#,
    ),
    (
        r#"        "str" => Tok::Str,"#,
        r#"        "simplestr" => Tok::SimpleStr,"#,
    ),
    (
        r#"        "str" => Tok::Str,"#,
        r#"        "namedstr" => Tok::NamedStr,"#,
    ),
    (
        "    <w:Word> => Words::first(w),",
        r#"    <l:@L> "names" <r:@R> => Words::first((l, r)),"#,
    ),
    (
        "SimpleFirst: () = {",
        r#"    <l:@L> "simplestr" <r:@R> => { p.leaf(file, l, r, ExprKind::Str); p.arg(file, l, r, None) },"#,
    ),
    (
        "ArgValue: () = {",
        r#"    <l:@L> <n:Word> "=" <sl:@L> "namedstr" <r:@R> => { p.leaf(file, sl, r, ExprKind::Str); p.arg(file, l, r, Some(b::name_of(text, n))) },"#,
    ),
    (
        "CallArg: () = {",
        r#"    <n:Word> "=" <l:@L> "namedstr" <r:@R> => { p.leaf(file, l, r, ExprKind::Str); p.named_call_arg(b::span(file, n.0, n.1)) },"#,
    ),
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
    write_clean(&dir, "colang_v1", V1_INLINED, &[])?;
    write_clean(&dir, "colang_v2", V2_INLINED, V2_ADDED)?;
    lalrpop::Configuration::new()
        .set_in_dir(&dir)
        .set_out_dir(out)
        .force_build(true)
        .process()?;
    for name in ["colang_v1_clean", "colang_v2_clean"] {
        let path = out.join(format!("{name}.rs"));
        let code = std::fs::read_to_string(&path)?;
        std::fs::write(&path, pop_without_drop(&code)?)?;
    }
    Ok(())
}

/// The types of parser values that are `Copy`, as lalrpop writes them.
const COPY_TYPES: &[&str] = &[
    "()",
    "(usize, usize)",
    "AssignOp",
    "BinOp",
    "CmpOp",
    "Option<()>",
    "Option<Option<()>>",
    "Option<R>",
    "Option<Tok>",
    "Option<usize>",
    "R",
    "SetOp",
    "SpecOp",
    "Tok",
    "UnaryOp",
    "bool",
    "usize",
];

/// Rewrites the generated functions that pop a symbol holding a `Copy` value so that the popped
/// symbol is not dropped. A `Copy` value is copied out of the symbol rather than moved, so the
/// symbol is dropped after the match, by a call to the symbol type's drop glue (too large to be
/// inlined) that does nothing for that variant: one call per reduction for nothing. Holding the
/// popped symbol in a `ManuallyDrop` skips it; only the unreachable "wrong variant" arm, which
/// panics, would leak. (A type wrongly listed as `Copy` does not compile.)
fn pop_without_drop(code: &str) -> Result<String, Box<dyn std::error::Error>> {
    let start = code.find("enum __Symbol<>").ok_or("no __Symbol enum")?;
    let end = start
        + code
            .get(start..)
            .and_then(|c| c.find('}'))
            .ok_or("no enum end")?;
    let mut out = code.to_string();
    let mut patched = 0;
    for line in code.get(start..end).unwrap_or("").lines() {
        let Some((variant, ty)) = line
            .trim()
            .strip_suffix("),")
            .and_then(|l| l.split_once('('))
        else {
            continue;
        };
        if !COPY_TYPES.contains(&ty) {
            continue;
        }
        let head = format!("fn __pop_{variant}<");
        let at = out.find(&head).ok_or_else(|| format!("no {head}"))?;
        let pop = "match __symbols.pop() {";
        let rel = out.get(at..).and_then(|c| c.find(pop)).ok_or("no pop")?;
        out.replace_range(
            at + rel..at + rel + pop.len(),
            "let __popped = core::mem::ManuallyDrop::new(__symbols.pop());\n        match *__popped {",
        );
        patched += 1;
    }
    if patched == 0 {
        return Err("no symbol variant holds a Copy value".into());
    }
    Ok(out)
}

/// Writes `dir/NAME_clean.lalrpop`: `grammars/NAME.lalrpop` with `#[inline]` before the
/// definitions of `rules`, and each line of `added` after the line it names.
fn write_clean(
    dir: &Path,
    name: &str,
    rules: &[&str],
    added: &[(&str, &str)],
) -> Result<(), Box<dyn std::error::Error>> {
    let grammar = std::fs::read_to_string(format!("../../grammars/{name}.lalrpop"))?;
    let mut clean = String::with_capacity(grammar.len() + 256);
    let mut found = 0;
    let mut found_added = 0;
    for line in grammar.lines() {
        if rules.iter().any(|rule| line.starts_with(rule)) {
            clean.push_str("#[inline] ");
            found += 1;
        }
        clean.push_str(line);
        clean.push('\n');
        for (_, add) in added.iter().filter(|(after, _)| line.starts_with(after)) {
            clean.push_str(add);
            clean.push('\n');
            found_added += 1;
        }
    }
    if found_added != added.len() {
        return Err(format!(
            "{found_added} of the {} lines to add placed in {name}.lalrpop",
            added.len()
        )
        .into());
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
