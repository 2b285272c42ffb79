//! `colang-bench`: times the Colang 1.0 and 2.x front ends of `stalwart-syntax` on a list of
//! files (`time`), on one large input made by concatenating valid files (`big`), and fuzzes them
//! with mutated corpus files for a fixed time (`fuzz`), and hashes what every input parses to
//! (`dump`, to compare two builds). Results are printed as one JSON object per
//! line so that `bench/colang-vs-nemo.sh` can set them beside the reference parser's.

mod corpus;
mod dump;
mod fuzz;
mod mutate;
mod timing;

/// The allocator of the `stalwart` binary, so that the figures are the ones its users see.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use corpus::Dialect;

const USAGE: &str = "\
usage:
  colang-bench time --dialect v1|v2 [--runs N] [--inspect] FILE...
  colang-bench big  --dialect v1|v2 [--runs N] [--min-mb M] [--inspect] FILE...
  colang-bench fuzz --dialect v1|v2 [--seconds S] [--seed N] [--out DIR] FILE...
  colang-bench dump --dialect v1|v2 [--mutations N] [--seed N] FILE...";

/// The options shared by the three commands.
struct Options {
    dialect: Dialect,
    runs: usize,
    inspect: bool,
    min_mb: f64,
    seconds: u64,
    seed: u64,
    mutations: usize,
    out: std::path::PathBuf,
    files: Vec<std::path::PathBuf>,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut opts = Options {
        dialect: Dialect::V1,
        runs: 15,
        inspect: false,
        min_mb: 10.0,
        seconds: 60,
        seed: 1,
        mutations: 30,
        out: std::env::temp_dir().join("colang-fuzz-findings"),
        files: Vec::new(),
    };
    let mut dialect = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("`{name}` needs a value"))
        };
        match arg.as_str() {
            "--dialect" => dialect = Some(Dialect::parse(&value("--dialect")?)?),
            "--runs" => opts.runs = number(&value("--runs")?)?,
            "--min-mb" => opts.min_mb = number(&value("--min-mb")?)?,
            "--seconds" => opts.seconds = number(&value("--seconds")?)?,
            "--seed" => opts.seed = number(&value("--seed")?)?,
            "--mutations" => opts.mutations = number(&value("--mutations")?)?,
            "--out" => opts.out = value("--out")?.into(),
            "--inspect" => opts.inspect = true,
            other if other.starts_with("--") => return Err(format!("unknown option `{other}`")),
            file => opts.files.push(file.into()),
        }
    }
    opts.dialect = dialect.ok_or("`--dialect v1|v2` is required")?;
    if opts.files.is_empty() {
        return Err("no input files".into());
    }
    opts.runs = opts.runs.max(1);
    Ok(opts)
}

fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a number"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let opts = match parse_options(rest) {
        Ok(opts) => opts,
        Err(message) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match command.as_str() {
        "time" => timing::time_files(&opts),
        "big" => timing::time_big(&opts),
        "fuzz" => fuzz::run(&opts),
        "dump" => dump::run(&opts),
        other => Err(format!("unknown command `{other}`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
