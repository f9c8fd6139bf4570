//! The Sessa chess engine library: board and game history, rules of the game
//! ending, evaluation, transposition table, move ordering, search, endgame
//! tablebases, time management and the engine controller that runs searches
//! on threads.
//!
//! The library never prints; the `sessa` binary turns its events into UCI.

#![deny(missing_docs)]

pub mod bench;
pub mod board;
pub mod correction;
pub mod draw;
pub mod engine;
pub mod epd;
pub mod history;
pub mod movepick;
pub mod nnue;
pub mod params;
pub mod perft;
pub mod report;
pub mod score;
pub mod search;
pub mod see;
pub mod stack;
pub mod strength;
pub mod syzygy;
pub mod thread_tables;
pub mod threads;
pub mod time;
pub mod tt;
pub mod wdl;

pub use board::{Board, BoardError, Repair, START_FEN};
pub use engine::Engine;
pub use report::{SearchEvent, SearchInfo};
pub use score::{ReportedScore, Score};
pub use time::Limits;
