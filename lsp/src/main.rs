//! `stalwart-lsp`: the language server on standard input and output.

fn main() {
    std::process::exit(stalwart_lsp::run_stdio());
}
