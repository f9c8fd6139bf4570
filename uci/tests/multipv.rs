//! MultiPV through UCI: after each iteration one `info` line per line, all
//! at the same depth, best first, each with its own first move and a PV that
//! is legal from the root; `bestmove` is the first line's move, whatever the
//! limit, the `searchmoves` and the number of threads.

mod common;

use common::{Engine, field, position, pv};
use std::time::Duration;

const LONG: Duration = Duration::from_secs(60);
const MIDDLEGAME: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

/// One `info` line of a MultiPV report.
#[derive(Debug)]
struct Line {
    depth: u32,
    multipv: usize,
    /// Comparable score: mates beyond every centipawn score, sooner mates higher.
    rank: i64,
    pv: Vec<String>,
}

fn parse(info: &str) -> Option<Line> {
    let multipv = field(info, "multipv")?.parse().ok()?;
    let rank = if let Some(cp) = field(info, "cp") {
        cp.parse().ok()?
    } else {
        let moves: i64 = field(info, "mate")?.parse().ok()?;
        if moves > 0 {
            1_000_000 - moves
        } else {
            -1_000_000 - moves
        }
    };
    Some(Line {
        depth: field(info, "depth")?.parse().ok()?,
        multipv,
        rank,
        pv: pv(info),
    })
}

/// The reports of one search, cut into groups that each start at `multipv 1`.
fn groups(infos: &[String]) -> Vec<Vec<Line>> {
    let mut groups: Vec<Vec<Line>> = Vec::new();
    for line in infos
        .iter()
        .filter(|l| l.contains(" pv "))
        .filter_map(|l| parse(l))
    {
        if line.multipv == 1 || groups.is_empty() {
            groups.push(Vec::new());
        }
        groups.last_mut().unwrap().push(line);
    }
    groups
}

/// Checks one group: `count` lines numbered 1.. at one depth, distinct
/// first moves from `allowed` (any legal move when empty), scores not
/// increasing, every PV legal from `fen`.
fn check_group(group: &[Line], count: usize, fen: &str, allowed: &[&str]) {
    assert_eq!(group.len(), count, "{group:#?}");
    let depth = group[0].depth;
    let mut first_moves = Vec::new();
    for (index, line) in group.iter().enumerate() {
        assert_eq!(line.multipv, index + 1, "{group:#?}");
        assert_eq!(line.depth, depth, "{group:#?}");
        let mut pos = position(fen);
        for m in &line.pv {
            common::play(&mut pos, m);
        }
        first_moves.push(line.pv[0].clone());
        if !allowed.is_empty() {
            assert!(allowed.contains(&line.pv[0].as_str()), "{group:#?}");
        }
    }
    first_moves.sort();
    first_moves.dedup();
    assert_eq!(first_moves.len(), count, "{group:#?}");
    assert!(
        group.windows(2).all(|pair| pair[0].rank >= pair[1].rank),
        "{group:#?}"
    );
}

/// Runs `go` with `MultiPV` at `lines` from `fen`; returns the best move and
/// the groups of lines reported.
fn analyse(e: &mut Engine, fen: &str, lines: usize, go: &str) -> (String, Vec<Vec<Line>>) {
    e.send(&format!("setoption name MultiPV value {lines}"));
    e.send(&format!("position fen {fen}"));
    e.send(go);
    let (best, _, infos) = e.bestmove(LONG);
    (best, groups(&infos))
}

#[test]
fn every_depth_reports_its_lines_best_first() {
    let mut e = Engine::start();
    let (best, groups) = analyse(&mut e, MIDDLEGAME, 3, "go depth 7");
    let depths: Vec<u32> = groups.iter().map(|g| g[0].depth).collect();
    assert_eq!(depths, (1..=7).collect::<Vec<_>>());
    for group in &groups {
        check_group(group, 3, MIDDLEGAME, &[]);
    }
    assert_eq!(best, groups.last().unwrap()[0].pv[0]);
}

#[test]
fn multipv_one_reports_one_line() {
    let mut e = Engine::start();
    let (best, groups) = analyse(&mut e, MIDDLEGAME, 1, "go depth 6");
    assert_eq!(groups.len(), 6);
    for group in &groups {
        check_group(group, 1, MIDDLEGAME, &[]);
    }
    assert_eq!(best, groups.last().unwrap()[0].pv[0]);
}

#[test]
fn fewer_legal_moves_than_lines() {
    let mut e = Engine::start();
    // The king in the corner has three moves.
    let fen = "k7/8/8/8/8/8/8/4K2R b K - 0 1";
    let (best, groups) = analyse(&mut e, fen, 10, "go depth 5");
    for group in &groups {
        check_group(group, 3, fen, &[]);
    }
    assert_eq!(best, groups.last().unwrap()[0].pv[0]);
}

#[test]
fn searchmoves_limit_the_lines() {
    let mut e = Engine::start();
    let allowed = ["d2d4", "a2a3", "h2h3", "b1c3"];
    let go = format!("go depth 6 searchmoves {}", allowed.join(" "));
    let (best, groups) = analyse(&mut e, MIDDLEGAME, 3, &go);
    for group in &groups {
        check_group(group, 3, MIDDLEGAME, &allowed);
    }
    assert_eq!(best, groups.last().unwrap()[0].pv[0]);
    let (best, groups) = analyse(&mut e, MIDDLEGAME, 3, "go depth 5 searchmoves a2a3 h2h3");
    for group in &groups {
        check_group(group, 2, MIDDLEGAME, &["a2a3", "h2h3"]);
    }
    assert_eq!(best, groups.last().unwrap()[0].pv[0]);
}

#[test]
fn two_threads_report_the_lines_they_play() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    for go in ["go depth 9", "go nodes 60000", "go movetime 300"] {
        let (best, groups) = analyse(&mut e, MIDDLEGAME, 3, go);
        for group in &groups {
            check_group(group, 3, MIDDLEGAME, &[]);
        }
        assert_eq!(best, groups.last().unwrap()[0].pv[0], "{go}");
    }
}

#[test]
fn infinite_analysis_stops_with_the_first_line() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 4");
    e.send(&format!("position fen {MIDDLEGAME}"));
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let (best, _, infos) = e.bestmove(LONG);
    let groups = groups(&infos);
    assert!(!groups.is_empty());
    for group in &groups {
        check_group(group, 4, MIDDLEGAME, &[]);
    }
    assert_eq!(best, groups.last().unwrap()[0].pv[0]);
}

#[test]
fn node_and_time_limits_end_on_a_whole_iteration() {
    let mut e = Engine::start();
    for go in ["go nodes 20000", "go movetime 200"] {
        let (best, groups) = analyse(&mut e, MIDDLEGAME, 2, go);
        for group in &groups {
            check_group(group, 2, MIDDLEGAME, &[]);
        }
        assert_eq!(best, groups.last().unwrap()[0].pv[0], "{go}");
    }
}
