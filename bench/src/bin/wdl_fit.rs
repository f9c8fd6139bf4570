//! Fits the win/draw/loss model of `engine/src/wdl.rs` to Sessa's games
//! (see `bench::wdl_fit`). Reads PGN files whose moves carry the engine's
//! score in their comments (as fastchess and cutechess-cli write them) and/or
//! sample files written by `--write-samples`, prints the fitted coefficients
//! as the Rust constants of `wdl.rs`, and compares predicted and observed
//! results in bins of score.

use bench::wdl_fit::{Sample, calibration, fit, loss, parse_sample, samples_from_pgn};
use clap::Parser;
use sessa_engine::wdl::{A, B};
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "Fit the win/draw/loss model to games")]
struct Args {
    /// PGN files of games with score comments.
    pgn: Vec<PathBuf>,
    /// Sample files (`score,material,outcome` lines) to read as well.
    #[arg(long)]
    samples: Vec<PathBuf>,
    /// Write every sample read to this file.
    #[arg(long)]
    write_samples: Option<PathBuf>,
    /// Optimiser steps.
    #[arg(long, default_value_t = 600)]
    iterations: usize,
}

fn main() {
    let args = Args::parse();
    if let Err(message) = run(&args) {
        eprintln!("wdl_fit: {message}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    let mut samples: Vec<Sample> = Vec::new();
    for path in &args.pgn {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        samples.extend(samples_from_pgn(&text));
    }
    for path in &args.samples {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (number, line) in text.lines().enumerate() {
            samples.push(
                parse_sample(line)
                    .ok_or_else(|| format!("{}:{}: not a sample", path.display(), number + 1))?,
            );
        }
    }
    if samples.is_empty() {
        return Err("no samples".to_string());
    }
    if let Some(path) = &args.write_samples {
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        for sample in &samples {
            writeln!(out, "{sample}").map_err(|e| e.to_string())?;
        }
        out.flush().map_err(|e| e.to_string())?;
    }
    println!(
        "{} samples; loss with the current coefficients {:.5}",
        samples.len(),
        loss(&samples, &A, &B)
    );
    let (a, b) = fit(&samples, args.iterations);
    println!("fitted loss {:.5}", loss(&samples, &a, &b));
    let format = |c: &[f64; 4]| {
        c.iter()
            .map(|v| format!("{v:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("pub const A: [f64; 4] = [{}];", format(&a));
    println!("pub const B: [f64; 4] = [{}];", format(&b));
    println!();
    println!("score range      samples   predicted W/D/L %     observed W/D/L %");
    let edges = [
        -100_000.0, -400.0, -200.0, -100.0, -50.0, -20.0, 20.0, 50.0, 100.0, 200.0, 400.0,
        100_000.0,
    ];
    for bin in calibration(&samples, &a, &b, &edges) {
        let pct = |x: f64| x * 100.0;
        println!(
            "[{:>6}, {:>6})  {:>7}   {:5.1} {:5.1} {:5.1}     {:5.1} {:5.1} {:5.1}",
            bin.from,
            bin.to,
            bin.count,
            pct(bin.predicted.0),
            pct(bin.predicted.1),
            pct(bin.predicted.2),
            pct(bin.observed.0),
            pct(bin.observed.1),
            pct(bin.observed.2)
        );
    }
    Ok(())
}
