//! Protocol edge cases with the real binary: a hash size that cannot be
//! allocated, options, `go` and `position` during a search, and the end of
//! input or `quit` while a search runs.

mod common;

use common::{Engine, PROMPT, assert_legal, timed};
use std::time::{Duration, Instant};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

/// Why the largest `Hash` might be allocated here after all, if it might:
/// Linux refuses an allocation larger than memory and swap together unless
/// it is told to promise any amount (`vm.overcommit_memory = 1`).
fn largest_hash_may_fit() -> Option<String> {
    let mode = std::fs::read_to_string("/proc/sys/vm/overcommit_memory")
        .map_err(|_| "not Linux: cannot tell whether 1 TB can be promised".to_string());
    match mode {
        Ok(mode) if mode.trim() == "1" => Some("vm.overcommit_memory is 1".to_string()),
        Ok(_) => None,
        Err(why) => Some(why),
    }
}

/// Nodes of the last iteration of a `go depth 8` after e2e4.
fn nodes_of_search(e: &mut Engine) -> u64 {
    e.send("go depth 8");
    let (best, _, infos) = e.bestmove(PROMPT * 20);
    assert_legal(AFTER_E4, &best);
    let last = common::last_score_line(&infos);
    common::field(&last, "nodes").unwrap().parse().unwrap()
}

#[test]
fn a_hash_that_cannot_be_allocated_keeps_the_old_table() {
    if let Some(why) = largest_hash_may_fit() {
        println!("skipped: {why}, so Hash 1048576 may succeed");
        return;
    }
    let mut e = Engine::start();
    e.send("setoption name Hash value 8");
    e.send("position startpos moves e2e4");
    nodes_of_search(&mut e);
    let sent = Instant::now();
    e.send("setoption name Hash value 1048576");
    let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
    assert!(sent.elapsed() < PROMPT, "{:?}", sent.elapsed());
    assert_eq!(
        line,
        "info string error: cannot allocate 1048576 MB of hash; \
         Hash stays at 8 MB with its contents"
    );
    e.ready();
    // The engine plays on, and the table still holds the first search: the
    // same search again needs fewer nodes than with a fresh table of the
    // same size (one thread searches deterministically).
    let with_old_table = nodes_of_search(&mut e);
    let mut fresh = Engine::start();
    fresh.send("setoption name Hash value 8");
    fresh.send("position startpos moves e2e4");
    nodes_of_search(&mut fresh);
    fresh.send("setoption name Hash value 4");
    fresh.send("setoption name Hash value 8");
    let with_fresh_table = nodes_of_search(&mut fresh);
    assert!(
        with_old_table < with_fresh_table,
        "{with_old_table} nodes with the old table, {with_fresh_table} with a fresh one"
    );
}

#[test]
fn threads_change_during_a_search_and_between_searches() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    // A change of threads ends the running search: it answers once.
    e.send("setoption name Threads value 3");
    let (best, _, _) = e.bestmove(PROMPT);
    assert_legal(START, &best);
    e.ready();
    for threads in [3, 1, 2] {
        e.send(&format!("setoption name Threads value {threads}"));
        e.send("go depth 6");
        assert_legal(START, &e.bestmove(PROMPT * 20).0);
    }
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(200));
}

#[test]
fn go_during_a_search_gives_exactly_one_bestmove_per_go() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("go depth 3");
    e.send("go movetime 50");
    for _ in 0..3 {
        assert_legal(START, &e.bestmove(PROMPT).0);
    }
    // Only the infinite search needed ending; nothing more comes.
    e.assert_no(|l| l.starts_with("bestmove"), Duration::from_millis(300));
    e.ready();
}

#[test]
fn position_during_a_search_applies_to_the_next_go() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send("position startpos moves e2e4");
    e.ready();
    e.send("stop");
    // The running search goes on with the position it started from.
    assert_legal(START, &e.bestmove(PROMPT).0);
    e.send("go depth 4");
    assert_legal(AFTER_E4, &e.bestmove(PROMPT * 20).0);
}

#[test]
fn end_of_input_during_a_search_exits_cleanly_and_prints_nothing_more() {
    // A finished infinite search holds its bestmove until stop; after the
    // end of input it must not print it.
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite depth 2");
    e.expect(|l| l.starts_with("info depth 2 "), PROMPT);
    e.ready();
    e.close_stdin();
    let (took, success) = e.exit_within(Duration::from_secs(5)).expect("an exit");
    assert!(success);
    assert!(took < PROMPT, "{took:?}");
    assert_eq!(e.remaining_lines(), Vec::<String>::new());

    // A search in full swing: at most its last info lines, no bestmove.
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.close_stdin();
    let (_, success) = e.exit_within(Duration::from_secs(5)).expect("an exit");
    assert!(success);
    let after = e.remaining_lines();
    assert!(after.iter().all(|l| l.starts_with("info ")), "{after:?}");
}

#[test]
fn quit_during_a_search_exits_within_100_ms() {
    for threads in [1, 4] {
        timed(|| {
            let mut e = Engine::start();
            e.send(&format!("setoption name Threads value {threads}"));
            e.send("position startpos");
            e.send("go infinite");
            std::thread::sleep(Duration::from_millis(300));
            e.send("quit");
            let (took, success) = e.exit_within(Duration::from_secs(5)).expect("an exit");
            assert!(success);
            assert!(
                took < Duration::from_millis(100),
                "{threads} threads: {took:?}"
            );
            let after = e.remaining_lines();
            assert!(
                !after.iter().any(|l| l.starts_with("bestmove")),
                "{after:?}"
            );
        });
    }
}
