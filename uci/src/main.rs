//! `sessa`: the UCI chess engine binary. Without arguments it speaks UCI on
//! stdin/stdout; subcommands run the bench and perft, test suites, and
//! annotate games.

mod annotate;
mod batch;
mod epd;
#[cfg(test)]
mod fuzz;
mod options;
mod output;
mod uci;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use sessa_engine::bench::{self, DEFAULT_DEPTH};
use sessa_engine::engine::DEFAULT_HASH_MB;
use sessa_engine::nnue::{Kernel, Network};
use sessa_engine::perft::divide;
use sessa_engine::threads::MAX_THREADS;
use sessa_engine::{Board, START_FEN};
use shakmaty::CastlingMode;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;

/// Sessa, a UCI chess engine. Run without arguments to speak UCI.
#[derive(Parser)]
#[command(name = "sessa", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Search the bench positions to a fixed depth; the last line is
    /// `<nodes> nodes <nps> nps`, the node count being the search's signature.
    Bench {
        /// Search depth.
        #[arg(long, default_value_t = DEFAULT_DEPTH)]
        depth: u32,
        /// Search threads (with more than one the node count varies from run to run).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hash size in MB, cleared before each position.
        #[arg(long, default_value_t = DEFAULT_HASH_MB)]
        hash: usize,
        /// Search with this network file instead of the built-in one (to
        /// compare networks' speed; the node count is then that network's,
        /// not the build's signature).
        #[arg(long)]
        net: Option<std::path::PathBuf>,
    },
    /// Count the leaf nodes of the move tree (the root moves run in parallel).
    Perft {
        /// Depth in plies.
        depth: u32,
        /// Position to start from (default: the starting position).
        #[arg(long, default_value = START_FEN)]
        fen: String,
        /// Print the count of every root move.
        #[arg(long)]
        divide: bool,
        /// Read castling in the FEN as Chess960 (Shredder or X-FEN).
        #[arg(long)]
        chess960: bool,
    },
    /// Run EPD test suites (bm, am, dm, `bm #N`, STS points) and report the
    /// positions solved per file.
    Epd(epd::EpdArgs),
    /// Search every position of the games of PGN files and write the games
    /// back with an evaluation on every move, inaccuracies (?!), mistakes (?)
    /// and blunders (??) marked by the drop in the mover's expected score,
    /// and a better line for every mistake and blunder.
    Annotate(annotate::AnnotateArgs),
    /// Print every search tunable as `name, int, value, min, max, step,
    /// 0.002`, the SPSA input OpenBench reads (step as the tuner's final
    /// perturbation, 0.002 as its final learning rate); a build with
    /// `--features tune` takes each as a UCI option of that name.
    Tunables,
}

/// CPU features a binary may be compiled for that matter to the engine:
/// bit counting and scans (board), vector instructions (network).
const TARGET_FEATURES: [(&str, bool); 13] = [
    ("sse2", cfg!(target_feature = "sse2")),
    ("sse3", cfg!(target_feature = "sse3")),
    ("ssse3", cfg!(target_feature = "ssse3")),
    ("sse4.1", cfg!(target_feature = "sse4.1")),
    ("sse4.2", cfg!(target_feature = "sse4.2")),
    ("popcnt", cfg!(target_feature = "popcnt")),
    ("lzcnt", cfg!(target_feature = "lzcnt")),
    ("bmi1", cfg!(target_feature = "bmi1")),
    ("bmi2", cfg!(target_feature = "bmi2")),
    ("avx", cfg!(target_feature = "avx")),
    ("avx2", cfg!(target_feature = "avx2")),
    ("avx512f", cfg!(target_feature = "avx512f")),
    ("neon", cfg!(target_feature = "neon")),
];

/// What `sessa --version` prints after the name: the version, the target
/// features compiled in, the network kernel chosen on this CPU and the
/// network built in.
fn long_version() -> String {
    let features: Vec<&str> = TARGET_FEATURES
        .iter()
        .filter(|(_, on)| *on)
        .map(|(name, _)| *name)
        .collect();
    let features = if features.is_empty() {
        "none".to_string()
    } else {
        features.join(" ")
    };
    let kernel = Kernel::detect().name();
    format!(
        "{}\ntarget: {} {}\ntarget features: {features}\nnetwork kernel: {kernel} (chosen at run time)\nnetwork: {}",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        std::env::consts::OS,
        Network::embedded().file_name()
    )
}

fn main() -> ExitCode {
    let matches = Cli::command().long_version(long_version()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match cli.command {
        None => {
            uci::Session::new().run();
            ExitCode::SUCCESS
        }
        Some(Command::Bench {
            depth,
            threads,
            hash,
            net,
        }) => output::to_stdout(|out| run_bench(out, depth, threads, hash, net.as_deref())),
        Some(Command::Perft {
            depth,
            fen,
            divide,
            chess960,
        }) => output::to_stdout(|out| run_perft(out, depth, &fen, divide, chess960)),
        Some(Command::Epd(args)) => epd::run(&args),
        Some(Command::Annotate(args)) => annotate::run(&args),
        Some(Command::Tunables) => output::to_stdout(print_tunables),
    }
}

/// `sessa tunables`: one line per search tunable.
fn print_tunables(out: &mut dyn Write) -> io::Result<ExitCode> {
    for t in sessa_engine::params::TUNABLES {
        writeln!(
            out,
            "{}, int, {}, {}, {}, {}, 0.002",
            t.name, t.value, t.min, t.max, t.step
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `sessa bench`: the bench positions' counts, then the total.
fn run_bench(
    out: &mut dyn Write,
    depth: u32,
    threads: usize,
    hash: usize,
    net: Option<&std::path::Path>,
) -> io::Result<ExitCode> {
    let net = match net {
        None => Network::embedded(),
        Some(path) => match Network::load(path) {
            Ok(net) => {
                writeln!(
                    out,
                    "network {} ({}) from {}",
                    net.file_name(),
                    net.shape(),
                    path.display()
                )?;
                std::sync::Arc::new(net)
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return Ok(ExitCode::FAILURE);
            }
        },
    };
    let report = bench::run(
        depth.max(1),
        hash.max(1),
        threads.clamp(1, MAX_THREADS),
        net,
    );
    for (index, line) in report.lines.iter().enumerate() {
        writeln!(
            out,
            "{:>2} {:>10} nodes  bestmove {:<6} {}",
            index + 1,
            line.nodes,
            line.best,
            line.fen
        )?;
    }
    writeln!(out, "time {} ms", report.elapsed.as_millis())?;
    writeln!(out, "{} nodes {} nps", report.nodes, report.nps())?;
    Ok(ExitCode::SUCCESS)
}

/// `sessa perft`: the leaf count of the position, and of every root move
/// when `divide_by_move`.
fn run_perft(
    out: &mut dyn Write,
    depth: u32,
    fen: &str,
    divide_by_move: bool,
    chess960: bool,
) -> io::Result<ExitCode> {
    let board = match Board::from_fen_repaired(fen, CastlingMode::from_chess960(chess960)) {
        Ok((board, repairs)) => {
            for repair in repairs {
                eprintln!("note: FEN repaired: {repair}");
            }
            board
        }
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let start = Instant::now();
    let split = divide(&board, depth);
    let elapsed = start.elapsed();
    if divide_by_move {
        for (mv, count) in &split.moves {
            writeln!(out, "{mv}: {count}")?;
        }
        writeln!(out)?;
    }
    let total = split.total;
    let nps = total as u128 * 1_000_000_000 / elapsed.as_nanos().max(1);
    writeln!(out, "{total} nodes {} ms {nps} nps", elapsed.as_millis())?;
    Ok(ExitCode::SUCCESS)
}
