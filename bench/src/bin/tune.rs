//! Tunes every evaluation weight on labelled positions (see `bench/README.md`)
//! and writes the result to `engine/src/eval/weights.rs`, so that re-tuning
//! is one command followed by a rebuild.

use bench::tune::{
    Schedule, current_weights, fit_k, loss, occurrences, parse_samples, tune, weights_source,
};
use clap::Parser;
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
    let (samples, skipped) = parse_samples(&text);
    eprintln!(
        "{} positions ({skipped} lines skipped: repeated, unreadable or dead drawn) in {:.1} s",
        samples.len(),
        started.elapsed().as_secs_f64()
    );
    let weights = current_weights();
    let k = fit_k(&samples, &weights);
    eprintln!("k = {k:.4}, loss {:.6}", loss(&samples, &weights, k));
    let rare = occurrences(&samples)
        .iter()
        .filter(|&&n| n < args.min_positions)
        .count();
    eprintln!(
        "{rare} weights keep their value (features in fewer than {} positions)",
        args.min_positions
    );
    let schedule = Schedule {
        epochs: args.epochs,
        rate: args.rate,
        min_positions: args.min_positions,
        report_every: 100,
    };
    let tuned = tune(&samples, weights, k, schedule, |epoch, loss| {
        eprintln!(
            "epoch {epoch:5}  loss {loss:.6}  {:.0} s",
            started.elapsed().as_secs_f64()
        );
    });
    std::fs::write(&args.out, weights_source(&tuned))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", args.out.display()));
    eprintln!("weights written to {}", args.out.display());
}
