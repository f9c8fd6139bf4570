//! Perft through the engine's board wrapper (make, unmake, incremental keys)
//! on the project's suite and, when present, the shared public suite. Debug
//! assertions (on in the test profile) compare the incremental key with a
//! from-scratch key at every node.

use sessa_engine::Board;
use sessa_engine::perft::perft;
use shakmaty::CastlingMode;
mod common;

use common::{repo_root, shared_data};
use std::path::Path;

/// Largest leaf count a test runs, to keep each suite to seconds.
const MAX_LEAVES: u64 = 5_000_000;

/// Runs every `;Dn count` of an EPD file up to [`MAX_LEAVES`]; returns how many were checked.
fn run_suite(path: &Path, max_leaves: u64) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut checked = 0;
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let mut parts = line.split(';');
        let fen = parts.next().unwrap().trim();
        let mut board = Board::from_fen(fen, CastlingMode::Standard)
            .or_else(|_| Board::from_fen(fen, CastlingMode::Chess960))
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        for op in parts {
            let words: Vec<&str> = op.split_whitespace().collect();
            let [name, count] = words[..] else { continue };
            let Some(depth) = name.strip_prefix('D').and_then(|d| d.parse::<u32>().ok()) else {
                continue;
            };
            let expected: u64 = count.parse().unwrap();
            if expected > max_leaves {
                continue;
            }
            assert_eq!(perft(&mut board, depth), expected, "{fen} depth {depth}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn project_perft_suite() {
    let checked = run_suite(&repo_root().join("testsuites/perft.epd"), MAX_LEAVES);
    assert!(checked >= 30, "only {checked} counts checked");
}

#[test]
fn shared_perft_suite_when_present() {
    let Some(folder) = shared_data("testsuites", "perftsuite.epd") else {
        return;
    };
    let path = folder.join("perftsuite.epd");
    let checked = run_suite(&path, 200_000);
    assert!(checked > 100, "only {checked} counts checked");
}
