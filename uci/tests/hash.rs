//! A large hash table is ready at once: its memory is promised by the
//! operating system, not touched, before `readyok` (a GUI gives up on an
//! engine that stays silent for long after `isready`).

mod common;

use common::Engine;
use std::time::{Duration, Instant};

/// How long a GUI may wait for `readyok` here: Cute Chess gives up after
/// 15 s; the table's memory must not be touched before the answer, which
/// took several seconds per gigabyte on a machine with slow page faults.
const READY_WITHIN: Duration = Duration::from_secs(3);
/// A table of this size is backed in the background, and a single touch of
/// all of it takes more than `READY_WITHIN` on such a machine.
const LARGE_HASH_MB: u32 = 2048;

/// Sends `command`, then `isready`; returns how long `readyok` took.
fn time_to_ready(engine: &mut Engine, command: &str) -> Duration {
    let start = Instant::now();
    engine.send(command);
    engine.send("isready");
    engine.expect(|l| l == "readyok", Duration::from_secs(60));
    start.elapsed()
}

#[test]
fn a_large_hash_answers_readyok_at_once_and_searches() {
    let mut engine = Engine::start();
    let set = format!("setoption name Hash value {LARGE_HASH_MB}");
    for command in [set.as_str(), "ucinewgame", "setoption name Clear Hash"] {
        let took = time_to_ready(&mut engine, command);
        assert!(took < READY_WITHIN, "{command}: readyok after {took:?}");
    }
    engine.send("position startpos moves e2e4");
    engine.send("go depth 8");
    let (best, _, infos) = engine.bestmove(Duration::from_secs(60));
    common::assert_legal(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        &best,
    );
    assert!(infos.iter().any(|l| l.contains(" depth 8 ")), "{infos:#?}");
    // Back to a small table while the large one may still be backed.
    let took = time_to_ready(&mut engine, "setoption name Hash value 16");
    assert!(took < READY_WITHIN, "back to 16 MB: readyok after {took:?}");
    engine.send("quit");
    assert!(engine.exit_within(Duration::from_secs(5)).is_some());
}
