//! SPSA tuning of the search's tunables by games (see `bench::spsa`).
//!
//! The engine is a `tune` build of `sessa` (`cargo build --release -p sessa
//! --features tune`), which lists its tunables (`sessa tunables`) and takes
//! each as a UCI option. Every iteration plays `--pairs` game pairs (each
//! opening with both colours) of the "plus" values against the "minus"
//! values with fastchess, then moves the values by the result. After every
//! iteration the values go to the state file (a stopped run resumes from it)
//! and a line to the log: iteration, wins, losses, draws, time losses, then
//! every value. fastchess runs in the state file's folder (it leaves its
//! `config.json` there).

use bench::rng::Rng;
use bench::spsa::{
    Parameter, Schedule, apply_state, format_state, parse_fastchess_result, parse_parameters,
    trial, update,
};
use clap::Parser;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Parser)]
#[command(about = "Tune the search's constants by SPSA over fastchess games")]
struct Args {
    /// The `tune` build of sessa.
    #[arg(long)]
    engine: PathBuf,
    /// The fastchess binary.
    #[arg(long)]
    fastchess: PathBuf,
    /// Opening positions (EPD), drawn in random order.
    #[arg(long)]
    openings: PathBuf,
    /// The tunables to tune, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    params: Vec<String>,
    /// Iterations of the run (the schedule depends on it).
    #[arg(long, default_value_t = 2000)]
    iterations: u32,
    /// Game pairs per iteration.
    #[arg(long, default_value_t = 2)]
    pairs: u32,
    /// The clock of each game, in fastchess's form.
    #[arg(long, default_value = "2+0.02")]
    tc: String,
    /// Games played at once.
    #[arg(long, default_value_t = 2)]
    concurrency: u32,
    /// Hash of each engine, in MB.
    #[arg(long, default_value_t = 16)]
    hash: u32,
    /// Seed of the perturbations and the openings' order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// State file: read at the start when it exists, written after every iteration.
    #[arg(long)]
    state: PathBuf,
    /// Log file, one line per iteration (appended).
    #[arg(long)]
    log: PathBuf,
}

fn main() {
    if let Err(message) = run(Args::parse()) {
        eprintln!("spsa: {message}");
        std::process::exit(1);
    }
}

fn run(mut args: Args) -> Result<(), String> {
    // fastchess runs in the state's folder: the paths it is given must not
    // depend on the folder the tool was started in.
    let absolute =
        |path: &Path| std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()));
    args.engine = absolute(&args.engine)?;
    args.fastchess = absolute(&args.fastchess)?;
    args.openings = absolute(&args.openings)?;
    let folder = match args.state.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let args = &args;
    let mut parameters = engine_parameters(&args.engine, &args.params)?;
    let schedule = Schedule::new(args.iterations);
    let mut first = 0;
    if args.state.exists() {
        let text = std::fs::read_to_string(&args.state)
            .map_err(|e| format!("{}: {e}", args.state.display()))?;
        first = apply_state(&text, &mut parameters)?;
        eprintln!("spsa: resuming at iteration {first}");
    }
    let mut rng = Rng::new(args.seed);
    // The perturbations of the iterations already played are drawn again,
    // so that a resumed run continues the same sequence.
    for k in 0..first {
        trial(&parameters, &schedule, k, &mut rng);
    }
    for k in first..schedule.iterations() {
        let t = trial(&parameters, &schedule, k, &mut rng);
        let output = play(
            args,
            &folder,
            &parameters,
            &t.plus,
            &t.minus,
            args.seed.wrapping_add(k.into()),
        )?;
        let result = parse_fastchess_result(&output)
            .ok_or_else(|| format!("no result in fastchess's output:\n{output}"))?;
        let time_losses = output
            .lines()
            .filter(|l| l.contains("loses on time"))
            .count();
        let score = f64::from(result.wins) - f64::from(result.losses);
        update(&mut parameters, &schedule, k, &t, score);
        write_state(&args.state, &format_state(k + 1, &parameters))?;
        let values: Vec<String> = parameters
            .iter()
            .map(|p| format!("{:.3}", p.value))
            .collect();
        let line = format!(
            "{k} {} {} {} {time_losses} {}\n",
            result.wins,
            result.losses,
            result.draws,
            values.join(" ")
        );
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&args.log)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .map_err(|e| format!("{}: {e}", args.log.display()))?;
    }
    for parameter in &parameters {
        println!("{} = {}", parameter.name, parameter.value.round());
    }
    Ok(())
}

/// The engine's tunables, only those named in `wanted` unless it is empty.
fn engine_parameters(engine: &Path, wanted: &[String]) -> Result<Vec<Parameter>, String> {
    let output = Command::new(engine)
        .arg("tunables")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", engine.display()))?;
    let all = parse_parameters(&String::from_utf8_lossy(&output.stdout))?;
    if wanted.is_empty() {
        return Ok(all);
    }
    wanted
        .iter()
        .map(|name| {
            all.iter()
                .find(|p| &p.name == name)
                .cloned()
                .ok_or_else(|| format!("the engine has no tunable {name}"))
        })
        .collect()
}

/// Plays one iteration's games in `folder` and returns fastchess's output.
fn play(
    args: &Args,
    folder: &Path,
    parameters: &[Parameter],
    plus: &[i64],
    minus: &[i64],
    seed: u64,
) -> Result<String, String> {
    let engine = |name: &str, values: &[i64]| -> Vec<String> {
        let mut words = vec![
            "-engine".to_string(),
            format!("cmd={}", args.engine.display()),
            format!("name={name}"),
        ];
        for (parameter, value) in parameters.iter().zip(values) {
            words.push(format!("option.{}={value}", parameter.name));
        }
        words
    };
    let output = Command::new(&args.fastchess)
        .current_dir(folder)
        .args(engine("plus", plus))
        .args(engine("minus", minus))
        .args(["-each", "proto=uci"])
        .arg(format!("tc={}", args.tc))
        .arg(format!("option.Hash={}", args.hash))
        .arg("option.Threads=1")
        .arg("-openings")
        .arg(format!("file={}", args.openings.display()))
        .args(["format=epd", "order=random"])
        .arg("-srand")
        .arg(seed.to_string())
        .args(["-games", "2", "-rounds"])
        .arg(args.pairs.to_string())
        .arg("-repeat")
        .arg("-concurrency")
        .arg(args.concurrency.to_string())
        .args(["-resign", "movecount=3", "score=600"])
        .args(["-draw", "movenumber=34", "movecount=8", "score=20"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", args.fastchess.display()))?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Writes the state whole under a temporary name, then renames it, so that
/// a run stopped while writing keeps the previous state.
fn write_state(path: &Path, text: &str) -> Result<(), String> {
    let temporary = path.with_extension("tmp");
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}
