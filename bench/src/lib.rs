//! Sessa's development tools, beside the engine: each is a binary in
//! `src/bin/` with the same name as its library module where it has one.
//!
//! | tool | binary | library |
//! |---|---|---|
//! | self-play training data | `datagen` | (in the binary) |
//! | training the evaluation network | `train`, `rescale` | [`train`] |
//! | fitting the win/draw/loss model | `wdl_fit` | [`wdl_fit`] |
//! | tuning the search's constants by games (SPSA) | `spsa` | [`spsa`] |
//! | micro-benchmarks (criterion) | `cargo bench -p bench` (`benches/engine.rs`) | |
//! | UCI answer latency | `uci_latency` | |
//!
//! [`rng`] is the seedable random generator that `datagen` and `train`
//! share. How to run each tool is in `bench/README.md`; every measurement is
//! logged in `bench/RESULTS.md`.

pub mod rng;
pub mod spsa;
pub mod train;
pub mod wdl_fit;
