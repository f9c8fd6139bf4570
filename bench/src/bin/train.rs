//! Trains Sessa's evaluation network on `datagen` records (see `bench::train`).
//!
//! After every epoch it prints the training and held-out losses, and writes
//! a checkpoint (`epoch-NNN.ckpt`, to resume from with `--resume`) and the
//! quantised network the engine reads (`epoch-NNN.nnue`) into `--out`. The
//! last epoch's network is also written under its shipping name,
//! `sessa-<hash>.nnue`.

use bench::train::{FloatNetwork, Settings, Trainer, load_records};
use clap::Parser;
use sessa_engine::nnue::{DEFAULT_HIDDEN, HIDDEN_SIZES, InputLayout, Network};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Parser)]
#[command(about = "Train the evaluation network on self-play records")]
struct Args {
    /// Record files, or folders whose `*.bin` files are all read.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Folder for checkpoints and networks.
    #[arg(long)]
    out: PathBuf,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 30)]
    epochs: usize,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 2048)]
    batch_size: usize,
    /// Learning rate at the start (it falls along a cosine).
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Learning rate at the end.
    #[arg(long, default_value_t = 0.00001)]
    lr_end: f32,
    /// Weight of the game result in the target; the rest is the search
    /// score's (every generation so far trained on the score alone: see
    /// bench/RESULTS.md).
    #[arg(long, default_value_t = 0.0)]
    wdl: f32,
    /// Share of the positions held out to measure the loss.
    #[arg(long, default_value_t = 0.01)]
    held_out: f64,
    /// Seed of the initial weights, the hold-out split and the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Decoupled weight decay (AdamW).
    #[arg(long, default_value_t = 0.0)]
    weight_decay: f32,
    /// Train on the mirror image (files a and h swapped) of every other
    /// position in each epoch, the other half the next epoch.
    #[arg(long)]
    mirror: bool,
    /// Mirror each side's view left to right while its king stands on
    /// files e–h (the king-mirrored input layout); a network given with
    /// `--from` must have the layout asked for.
    #[arg(long)]
    king_mirrored: bool,
    /// Width of the first layer (128, 256, 384 or 512); a network given
    /// with `--from` must have the width asked for.
    #[arg(long, default_value_t = DEFAULT_HIDDEN)]
    hidden: usize,
    /// Start from this network's weights instead of random ones (for
    /// example the previous generation's), rather than from scratch.
    #[arg(long)]
    from: Option<PathBuf>,
    /// Continue from this checkpoint (same data and settings).
    #[arg(long)]
    resume: Option<PathBuf>,
}

fn main() {
    let args = Args::parse();
    if let Err(message) = run(&args) {
        eprintln!("train: {message}");
        std::process::exit(1);
    }
}

fn run(args: &Args) -> Result<(), String> {
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()
            .map_err(|e| e.to_string())?;
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let layout = if args.king_mirrored {
        InputLayout::KingMirrored
    } else {
        InputLayout::Plain
    };
    if !HIDDEN_SIZES.contains(&args.hidden) {
        return Err(format!(
            "--hidden {} is not a width the engine reads ({HIDDEN_SIZES:?})",
            args.hidden
        ));
    }
    let starting = match &args.from {
        Some(path) => Some(Network::load(path).map_err(|e| format!("{}: {e}", path.display()))?),
        None => None,
    };
    if let Some(net) = &starting
        && net.layout != layout
    {
        return Err(format!(
            "the starting network's input layout is {:?}, not the {layout:?} asked for",
            net.layout
        ));
    }
    if let Some(net) = &starting
        && net.hidden() != args.hidden
    {
        return Err(format!(
            "the starting network is {} wide, not the {} asked for (--hidden)",
            net.hidden(),
            args.hidden
        ));
    }
    if args.mirror && layout == InputLayout::KingMirrored {
        return Err(
            "--mirror adds nothing to --king-mirrored: a mirror image gives the same inputs"
                .to_string(),
        );
    }
    let records = load_records(&args.data).map_err(|e| e.to_string())?;
    if records.is_empty() {
        return Err("no records found".to_string());
    }
    let settings = Settings {
        epochs: args.epochs,
        batch_size: args.batch_size,
        lr: args.lr,
        lr_end: args.lr_end,
        wdl_weight: args.wdl,
        held_out: args.held_out,
        seed: args.seed,
        weight_decay: args.weight_decay,
        mirror: args.mirror,
        layout,
        hidden: args.hidden,
    };
    let mut trainer = Trainer::new(records, settings);
    if let Some(net) = &starting {
        trainer.start_from(FloatNetwork::from_quantised(net));
    }
    if let Some(path) = &args.resume {
        trainer.resume(path).map_err(|e| e.to_string())?;
    }
    let (train, held_out) = trainer.sizes();
    eprintln!(
        "train: {train} positions, {held_out} held out; starting at epoch {}, held-out loss {:.6}",
        trainer.epochs_done + 1,
        trainer.held_out_loss()
    );
    let started = Instant::now();
    while trainer.epochs_done < args.epochs {
        let epoch_start = Instant::now();
        let report = trainer.epoch();
        let seconds = epoch_start.elapsed().as_secs_f64();
        let stem = args.out.join(format!("epoch-{:03}", report.epoch));
        trainer
            .save_checkpoint(&stem.with_extension("ckpt"))
            .map_err(|e| e.to_string())?;
        let net = trainer.net.quantise();
        std::fs::write(stem.with_extension("nnue"), net.to_bytes()).map_err(|e| e.to_string())?;
        eprintln!(
            "epoch {:3}: train loss {:.6}  held-out loss {:.6}  lr {:.2e}  {:.0} s  {:.0} positions/s",
            report.epoch,
            report.train_loss,
            report.held_out_loss,
            report.lr,
            seconds,
            train as f64 / seconds.max(1e-9)
        );
    }
    let net = trainer.net.quantise();
    let path = args.out.join(net.file_name());
    std::fs::write(&path, net.to_bytes()).map_err(|e| e.to_string())?;
    eprintln!(
        "train: {} written after {:.0} s",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
