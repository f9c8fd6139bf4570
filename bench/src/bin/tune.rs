//! Tunes every evaluation weight on labelled positions (see `bench/README.md`)
//! and writes the result to `engine/src/eval/weights.rs`, so that re-tuning
//! is one command followed by a rebuild.

use bench::tune::{
    Sample, Schedule, current_weights, fit_k, loss, occurrences, parse_samples, tune,
    weights_source,
};
use clap::Parser;
use sessa_engine::eval::terms::TERMS;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Texel-tune Sessa's evaluation weights")]
struct Args {
    /// Files of `<fen> | <result>` lines, as `datagen` writes them.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Gradient-descent steps over the whole data set.
    #[arg(long, default_value_t = 2000)]
    epochs: usize,
    /// Adam step size, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// Weights of features seen in fewer positions than this are not tuned.
    #[arg(long, default_value_t = 100)]
    min_positions: usize,
    /// Pull toward the starting weights, per squared centipawn (see `Schedule::l2`).
    #[arg(long, default_value_t = 1e-7)]
    l2: f64,
    /// Terms (by name in weights.rs, comma-separated) to leave as they are.
    #[arg(long, value_delimiter = ',', default_value = "MATERIAL,PSQT")]
    freeze: Vec<String>,
    /// Where to write the tuned weights.
    #[arg(long, default_value = "engine/src/eval/weights.rs")]
    out: PathBuf,
}

fn main() {
    let args = Args::parse();
    let started = Instant::now();
    let mut text = String::new();
    for path in &args.data {
        text.push_str(
            &std::fs::read_to_string(path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())),
        );
        text.push('\n');
    }
    let (all, skipped) = parse_samples(&text);
    // Every tenth position is held out to show whether the fit generalises.
    let (held_out, samples): (Vec<_>, Vec<_>) =
        all.into_iter().enumerate().partition(|(i, _)| i % 10 == 0);
    let held_out: Vec<Sample> = held_out.into_iter().map(|(_, s)| s).collect();
    let samples: Vec<Sample> = samples.into_iter().map(|(_, s)| s).collect();
    eprintln!(
        "{} positions to train on, {} held out ({skipped} lines skipped: repeated, unreadable or dead drawn) in {:.1} s",
        samples.len(),
        held_out.len(),
        started.elapsed().as_secs_f64()
    );
    let weights = current_weights();
    let k = fit_k(&samples, &weights);
    eprintln!(
        "k = {k:.4}, loss {:.6}, held out {:.6}",
        loss(&samples, &weights, k),
        loss(&held_out, &weights, k)
    );
    let rare = occurrences(&samples)
        .iter()
        .filter(|&&n| n < args.min_positions)
        .count();
    eprintln!(
        "{rare} weights keep their value (features in fewer than {} positions)",
        args.min_positions
    );
    let mut frozen = vec![false; weights.len()];
    for name in &args.freeze {
        let term = TERMS
            .iter()
            .find(|t| t.name == name.as_str())
            .unwrap_or_else(|| panic!("no term named {name}"));
        frozen[term.start..term.start + term.len].fill(true);
    }
    let schedule = Schedule {
        epochs: args.epochs,
        rate: args.rate,
        min_positions: args.min_positions,
        l2: args.l2,
        frozen,
        report_every: 100,
    };
    let tuned = tune(&samples, weights, k, schedule, |epoch, training| {
        eprintln!(
            "epoch {epoch:5}  loss {training:.6}  {:.0} s",
            started.elapsed().as_secs_f64()
        );
    });
    eprintln!("held-out loss {:.6}", loss(&held_out, &tuned, k));
    std::fs::write(&args.out, weights_source(&tuned))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", args.out.display()));
    eprintln!("weights written to {}", args.out.display());
}
