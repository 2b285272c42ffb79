//! Generates the parsers from the lalrpop grammars in the workspace's `grammars/` folder.

fn main() {
    println!("cargo:rerun-if-changed=../../grammars");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| "target".into());
    if let Err(e) = lalrpop::Configuration::new()
        .set_in_dir("../../grammars")
        .set_out_dir(out)
        .emit_rerun_directives(true)
        .process()
    {
        eprintln!("lalrpop failed: {e}");
        std::process::exit(1);
    }
}
