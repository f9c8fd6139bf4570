//! Syzygy tablebases through UCI, as a GUI sets them up: `SyzygyPath`
//! loads the shared 3- and 4-piece tables before `readyok` and says what it
//! found; a bad path is an error and the engine plays on; folder names keep
//! their spaces; `<empty>` turns the tables off; the root move keeps the
//! tablebase result, MultiPV lists the lines by it, and `tbhits` counts the
//! probes. Every test is skipped (see `common::shared_data`) when the tables
//! are not there.

mod common;

use common::{Engine, PROMPT, assert_legal, field, last_score_line, shared_data};
use std::path::{Path, PathBuf};
use std::time::Duration;

const LONG: Duration = Duration::from_secs(60);
/// What `info string` says after loading all the shared tables.
const LOADED: &str = "info string Syzygy tablebases: 35 WDL and 35 DTZ tables, up to 4 pieces";
/// The score of a won root move: `TB_WIN - 1`.
const WON: &str = "31742";

/// The shared tables, or `None` (the test is skipped) when they are absent.
fn tables_folder() -> Option<PathBuf> {
    shared_data("syzygy", "KBNvK.rtbz")
}

/// Sets `SyzygyPath` and returns the `info string` lines before `readyok`.
fn set_path(e: &mut Engine, path: &str) -> Vec<String> {
    e.send(&format!("setoption name SyzygyPath value {path}"));
    e.send("isready");
    let (_, before) = e.expect(|l| l == "readyok", Duration::from_secs(10));
    before
}

fn engine_with_tables(folder: &Path) -> Engine {
    let mut e = Engine::start();
    assert_eq!(set_path(&mut e, folder.to_str().unwrap()), [LOADED]);
    e
}

/// Searches `fen` to `depth`; returns the best move and the info lines.
fn search(e: &mut Engine, fen: &str, depth: u32) -> (String, Vec<String>) {
    e.send(&format!("position fen {fen}"));
    e.send(&format!("go depth {depth}"));
    let (best, _, infos) = e.bestmove(LONG);
    assert_legal(fen, &best);
    (best, infos)
}

#[test]
fn the_root_move_keeps_the_tablebase_result() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let mut e = engine_with_tables(&folder);
    for (fen, keeping, score) in [
        // KQvKR: only Qxh1 keeps the win.
        ("8/8/8/8/3k4/8/8/KQ5r w - - 0 1", &["b1h1"][..], WON),
        // KRvK: every move but Rb7 (stalemate) wins.
        (
            "k7/2K5/8/8/8/8/8/1R6 w - - 0 1",
            &[
                "b1a1", "b1b2", "b1b3", "b1b4", "b1b5", "b1b6", "b1b8", "b1c1", "b1d1", "b1e1",
                "b1f1", "b1g1", "b1h1", "c7c6", "c7d6", "c7d7", "c7d8", "c7c8", "c7b6",
            ][..],
            WON,
        ),
        // KRvKB: only Kd8 and Kd7 hold the draw.
        (
            "4k3/8/8/8/8/5b2/8/K3R3 b - - 0 1",
            &["e8d8", "e8d7"][..],
            "0",
        ),
    ] {
        let (best, infos) = search(&mut e, fen, 6);
        assert!(keeping.contains(&best.as_str()), "{fen}: {best}");
        let line = last_score_line(&infos);
        if field(&line, "mate").is_none() {
            assert_eq!(field(&line, "cp"), Some(score), "{fen}: {line}");
        }
    }
}

#[test]
fn multipv_lists_the_moves_by_their_tablebase_result() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let mut e = engine_with_tables(&folder);
    e.send("setoption name MultiPV value 15");
    // KQvKR: 15 legal moves; Qa2 draws, Qc2 loses the queen, the rest win.
    let (best, infos) = search(&mut e, "8/8/2k5/8/8/8/1r6/KQ6 w - - 0 1", 4);
    let last: Vec<&String> = infos
        .iter()
        .filter(|l| l.starts_with("info depth 4 "))
        .collect();
    assert_eq!(last.len(), 15, "{last:#?}");
    assert_eq!(common::pv(last[0])[0], best);
    for line in &last[..13] {
        let won = field(line, "cp") == Some(WON) || field(line, "mate").is_some();
        assert!(won, "{line}");
    }
    assert_eq!(common::pv(last[13])[0], "b1a2", "{last:#?}");
    assert_eq!(field(last[13], "cp"), Some("0"), "{last:#?}");
    assert_eq!(common::pv(last[14])[0], "b1c2", "{last:#?}");
    assert!(field(last[14], "cp").unwrap().starts_with('-'), "{last:#?}");
}

#[test]
fn tbhits_count_the_probes() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let mut e = engine_with_tables(&folder);
    // Five pieces: the search probes after captures.
    let fen = "8/8/4k3/8/2r5/8/1P6/KQ6 w - - 0 1";
    let (_, infos) = search(&mut e, fen, 8);
    let hits: u64 = field(&last_score_line(&infos), "tbhits")
        .unwrap()
        .parse()
        .unwrap();
    assert!(hits > 0, "{infos:#?}");
    assert_eq!(
        set_path(&mut e, "<empty>"),
        ["info string Syzygy tablebases off"]
    );
    let (_, infos) = search(&mut e, fen, 8);
    assert_eq!(field(&last_score_line(&infos), "tbhits"), Some("0"));
}

#[test]
fn a_bad_path_is_an_error_and_the_engine_plays_on() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let mut e = Engine::start();
    for bad in ["/no/such/folder", "/no/such/folder:/neither/this"] {
        let lines = set_path(&mut e, bad);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("info string error: SyzygyPath: ") && lines[0].contains(bad),
            "{lines:?}"
        );
    }
    e.send("position startpos");
    e.send("go depth 4");
    e.bestmove(LONG);
    // Loaded tables stay when a later path is bad.
    assert_eq!(set_path(&mut e, folder.to_str().unwrap()), [LOADED]);
    assert_eq!(set_path(&mut e, "/no/such/folder").len(), 1);
    let (best, _) = search(&mut e, "8/8/8/8/3k4/8/8/KQ5r w - - 0 1", 1);
    assert_eq!(best, "b1h1");
    // A list with one bad folder loads the good one and names the bad.
    let lines = set_path(&mut e, &format!("/no/such/folder:{}", folder.display()));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info string error: SyzygyPath: /no/such/folder"));
    assert_eq!(lines[1], LOADED);
    e.ready();
}

#[test]
fn folder_names_keep_their_spaces() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let spaced = std::env::temp_dir().join(format!("sessa tables  {}", std::process::id()));
    std::fs::create_dir_all(&spaced).unwrap();
    for name in ["KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw", "KRvK.rtbz"] {
        std::fs::copy(folder.join(name), spaced.join(name)).unwrap();
    }
    let mut e = Engine::start();
    assert_eq!(
        set_path(&mut e, spaced.to_str().unwrap()),
        ["info string Syzygy tablebases: 2 WDL and 2 DTZ tables, up to 3 pieces"]
    );
    // KRvK: Rc1 wins (but does not mate), Rb7 would be stalemate.
    let (best, infos) = search(&mut e, "k7/2K5/8/8/8/8/8/1R6 w - - 0 1", 1);
    assert_ne!(best, "b1b7");
    assert!(field(&last_score_line(&infos), "tbhits").is_some_and(|hits| hits != "0"));
    e.send("go depth 1 searchmoves b1c1 b1b7");
    let (best, _, infos) = e.bestmove(LONG);
    assert_eq!(best, "b1c1");
    assert_eq!(field(&last_score_line(&infos), "cp"), Some(WON));
    std::fs::remove_dir_all(&spaced).unwrap();
}

#[test]
fn syzygy_options_are_declared_and_checked() {
    let mut e = Engine::spawn();
    e.send("uci");
    let (_, lines) = e.expect(|l| l == "uciok", Duration::from_secs(5));
    for declaration in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l == declaration), "{declaration}");
    }
    for good in [
        "setoption name SyzygyProbeDepth value 5",
        "setoption name Syzygy50MoveRule value false",
        "setoption name SyzygyProbeLimit value 0",
    ] {
        e.send(good);
        e.send("isready");
        let (_, before) = e.expect(|l| l == "readyok", PROMPT);
        assert!(before.is_empty(), "{good}: {before:?}");
    }
    for bad in [
        "setoption name SyzygyProbeDepth value 0",
        "setoption name Syzygy50MoveRule value sometimes",
        "setoption name SyzygyProbeLimit value 8",
    ] {
        e.send(bad);
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(line.starts_with("info string error: "), "{bad}: {line}");
    }
}

/// The project's tablebase suite: wins that must be converted before the
/// 50-move rule and draws that must be held. With the tables every
/// position is solved, even at a small node limit.
#[test]
fn the_tablebase_suite_is_solved_with_the_tables() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuites/syzygy-4.epd");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_sessa"))
        .args(["epd", "--nodes", "5000", "--syzygy"])
        .arg(&folder)
        .arg(&suite)
        .output()
        .expect("running sessa epd");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("solved 100/100 (100.0%)"),
        "{}",
        text.lines()
            .filter(|l| l.contains("failed"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// A copy of the shared tables in a fresh folder, to damage.
fn copy_of_tables(folder: &Path, name: &str) -> PathBuf {
    let copy = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    if copy.exists() {
        std::fs::remove_dir_all(&copy).unwrap();
    }
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let target = copy.join(path.file_name().unwrap());
        std::fs::write(&target, std::fs::read(&path).unwrap()).unwrap();
    }
    copy
}

#[test]
fn damaged_and_unreadable_tables_are_reported_and_the_others_used() {
    let Some(folder) = tables_folder() else {
        return;
    };
    let copy = copy_of_tables(&folder, "damaged-syzygy");
    // A file that is not a table: its header is gone.
    let foreign = copy.join("KRvK.rtbw");
    let mut bytes = std::fs::read(&foreign).unwrap();
    bytes[..4].fill(0);
    std::fs::write(&foreign, bytes).unwrap();
    // A file that cannot be read: a folder in its place.
    let unreadable = copy.join("KNvK.rtbw");
    std::fs::remove_file(&unreadable).unwrap();
    std::fs::create_dir(&unreadable).unwrap();
    // A table cut short after a valid header: it loads, but cannot be probed.
    let truncated = copy.join("KQvK.rtbw");
    let bytes = std::fs::read(&truncated).unwrap();
    std::fs::write(&truncated, &bytes[..80]).unwrap();

    let mut e = Engine::start();
    let lines = set_path(&mut e, copy.to_str().unwrap());
    let named = |file: &Path| {
        let file = file.display().to_string();
        lines
            .iter()
            .any(|l| l.starts_with("info string error: SyzygyPath: ") && l.contains(&file))
    };
    assert!(named(&foreign) && named(&unreadable), "{lines:#?}");
    assert_eq!(
        lines.last().unwrap(),
        "info string Syzygy tablebases: 33 WDL and 35 DTZ tables, up to 4 pieces"
    );
    // Probing the cut table fails: the failures are counted and reported,
    // naming the file, before the move.
    let (_, infos) = search(&mut e, "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1", 5);
    let truncated_name = truncated.display().to_string();
    let report = infos
        .iter()
        .find(|l| l.starts_with("info string error: ") && l.contains(&truncated_name))
        .unwrap_or_else(|| panic!("no report of {truncated_name}: {infos:#?}"));
    assert!(report.contains("failed probes"), "{report}");
    // The other tables are still used (KRRvK), and the failures of a
    // search are reported once.
    let (_, infos) = search(&mut e, "4k3/8/8/8/8/8/8/R3K2R w - - 0 1", 3);
    assert!(
        infos
            .iter()
            .any(|l| field(l, "cp") == Some(WON) && field(l, "tbhits") != Some("0")),
        "{infos:#?}"
    );
    assert!(
        !infos.iter().any(|l| l.starts_with("info string error")),
        "{infos:#?}"
    );
    std::fs::remove_dir_all(&copy).unwrap();
}
