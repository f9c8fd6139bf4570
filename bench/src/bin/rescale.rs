//! Scales the output layer of an evaluation network (see
//! `bench::train::scale_output`): by a given factor, or by the one that gives
//! it the same mean absolute evaluation as a reference network (the previous
//! generation's) on the same self-play positions. Writes the result into
//! `--out` under its shipping name, `sessa-<hash>.nnue`.

use bench::train::{FloatNetwork, load_records, mean_abs_eval, scale_output};
use clap::Parser;
use sessa_engine::nnue::Network;
use std::path::{Path, PathBuf};

/// Every this many records are evaluated to measure a network's scale.
const SAMPLE_STRIDE: usize = 37;

#[derive(Parser)]
#[command(about = "Scale an evaluation network's output to a factor or to a reference network")]
struct Args {
    /// The network to scale.
    net: PathBuf,
    /// Folder to write the scaled network into.
    #[arg(long)]
    out: PathBuf,
    /// Multiply the output layer by this factor.
    #[arg(
        long,
        conflicts_with = "reference",
        required_unless_present = "reference"
    )]
    factor: Option<f64>,
    /// Match the mean absolute evaluation of this network (the factor is
    /// rounded to three decimals, and printed).
    #[arg(long, requires = "data")]
    reference: Option<PathBuf>,
    /// Record files or folders whose positions measure the two scales.
    #[arg(long, num_args = 1..)]
    data: Vec<PathBuf>,
}

fn main() {
    let args = Args::parse();
    if let Err(message) = run(&args) {
        eprintln!("rescale: {message}");
        std::process::exit(1);
    }
}

fn load(path: &Path) -> Result<Network, String> {
    Network::load(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(args: &Args) -> Result<(), String> {
    let mut net = load(&args.net)?;
    let factor = match (args.factor, &args.reference) {
        (Some(factor), _) => factor,
        (None, Some(reference)) => {
            let records = load_records(&args.data).map_err(|e| e.to_string())?;
            if records.is_empty() {
                return Err("no records found".to_string());
            }
            let ours = mean_abs_eval(&FloatNetwork::from_quantised(&net), &records, SAMPLE_STRIDE);
            let theirs = mean_abs_eval(
                &FloatNetwork::from_quantised(&load(reference)?),
                &records,
                SAMPLE_STRIDE,
            );
            if ours == 0.0 {
                return Err("the network evaluates every sampled position as 0".to_string());
            }
            let factor = (theirs / ours * 1000.0).round() / 1000.0;
            eprintln!(
                "rescale: mean |eval| {ours:.1} cp, reference {theirs:.1} cp, factor {factor:.3}"
            );
            factor
        }
        (None, None) => unreachable!("clap requires --factor or --reference"),
    };
    if !(factor.is_finite() && factor > 0.0) {
        return Err(format!(
            "the factor must be a positive number, not {factor}"
        ));
    }
    scale_output(&mut net, factor);
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let path = args.out.join(net.file_name());
    std::fs::write(&path, net.to_bytes()).map_err(|e| e.to_string())?;
    eprintln!("rescale: {} written (factor {factor})", path.display());
    Ok(())
}
