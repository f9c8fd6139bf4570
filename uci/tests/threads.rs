//! Lazy SMP through UCI: many threads start and stop cleanly, answer every
//! `go` with exactly one legal `bestmove`, and survive option changes.

mod common;

use common::{Engine, PROMPT, position};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The tests here time engines that run many threads on a machine with a
/// few cores. Run beside each other, each would also measure the others'
/// threads (up to 84 at once on two cores), so they take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn take_turn() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn assert_legal(text: &str) {
    common::assert_legal(START, text);
}

#[test]
fn fifty_cycles_with_four_threads() {
    let _turn = take_turn();
    let mut e = Engine::start();
    e.send("setoption name Threads value 4");
    e.ready();
    for cycle in 0..50 {
        e.send("position startpos");
        e.send("go infinite");
        if cycle % 5 == 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
        let sent = Instant::now();
        e.send("stop");
        let (best, _, _) = e.bestmove(PROMPT);
        assert!(sent.elapsed() < PROMPT);
        assert_legal(&best);

        e.send("go movetime 50");
        let (best, _, _) = e.bestmove(Duration::from_millis(50) + PROMPT);
        assert_legal(&best);
    }
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
    e.send("setoption name Threads value 1");
    e.send("go depth 3");
    assert_legal(&e.bestmove(PROMPT * 4).0);
}

#[test]
fn hash_and_threads_change_between_searches() {
    let _turn = take_turn();
    let mut e = Engine::start();
    for (threads, hash) in [(2, 1), (3, 32), (1, 8), (8, 8), (2, 64)] {
        e.send(&format!("setoption name Threads value {threads}"));
        e.send(&format!("setoption name Hash value {hash}"));
        e.send("position startpos moves e2e4 e7e5");
        e.send("go depth 5");
        let (best, _, infos) = e.bestmove(Duration::from_secs(30));
        assert!(
            infos.iter().any(|l| l.starts_with("info depth 5")),
            "{infos:?}"
        );
        let mut pos = position(START);
        common::play(&mut pos, "e2e4");
        common::play(&mut pos, "e7e5");
        common::play(&mut pos, &best);
    }
}

#[test]
fn many_threads_still_answer_isready_and_stop() {
    let _turn = take_turn();
    let mut e = Engine::start();
    e.send("setoption name Threads value 8");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    e.send("isready");
    e.expect(|l| l == "readyok", PROMPT);
    assert!(sent.elapsed() < PROMPT);
    let sent = Instant::now();
    e.send("stop");
    assert_legal(&e.bestmove(PROMPT).0);
    assert!(sent.elapsed() < PROMPT);
}

/// Far more threads than cores (64 on a machine with a few): a timed search
/// still ends in time with a legal move, `stop` still answers at once, and
/// the pool shrinks back.
#[test]
fn sixty_four_threads_keep_time_and_answer_stop() {
    let _turn = take_turn();
    let mut e = Engine::start();
    e.send("setoption name Threads value 64");
    e.ready();
    e.send("position startpos");
    let sent = Instant::now();
    e.send("go movetime 300");
    let (best, _, _) = e.bestmove(Duration::from_millis(300) + PROMPT);
    assert!(sent.elapsed() < Duration::from_millis(300) + PROMPT);
    assert_legal(&best);
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    e.send("stop");
    assert_legal(&e.bestmove(PROMPT).0);
    assert!(sent.elapsed() < PROMPT, "stop took {:?}", sent.elapsed());
    e.send("setoption name Threads value 1");
    e.send("go depth 4");
    assert_legal(&e.bestmove(PROMPT * 4).0);
}
