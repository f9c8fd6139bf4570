//! `sessa annotate` on games of several kinds (`tests/fixtures/annotate/`):
//! a long game, a hung queen, Chess960 from a `FEN` tag with castling,
//! lichess and ChessBase annotations in the input, broken records among
//! good ones; and runs killed or interrupted (SIGINT, SIGTERM, SIGHUP)
//! midway, which must leave whole games. The output is read back with
//! `pgn-reader` here and with python-chess, a real PGN reader, when it is
//! installed.
//!
//! Without python-chess its test is skipped with a message, unless
//! `SESSA_REQUIRE_PYTHON_CHESS=1` (as `.ci/run` sets it) makes that a failure.

use pgn_reader::{Nag, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// Nodes per position: enough to see a hung queen, little enough that the
/// whole file runs in seconds.
const NODES: &str = "2000";
/// Set to 1 to fail rather than skip when python-chess is missing.
const REQUIRE: &str = "SESSA_REQUIRE_PYTHON_CHESS";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/annotate")
        .join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn annotate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sessa"))
        .arg("annotate")
        .args(args)
        .output()
        .expect("running sessa annotate")
}

fn annotate_fixture(name: &str, extra: &[&str]) -> Output {
    let path = fixture(name);
    let mut args = vec![path.to_str().unwrap(), "--nodes", NODES];
    args.extend_from_slice(extra);
    annotate(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// What the tests look at in a game read back.
#[derive(Debug, Default)]
struct ReadGame {
    tags: Vec<(String, String)>,
    /// The main line moves as written.
    moves: Vec<String>,
    /// The NAGs of each main line move (`??` is 4).
    nags: Vec<Vec<u8>>,
    /// The comments after each main line move, joined.
    comments: Vec<String>,
    /// Variations right after each main line move: their first moves.
    variations: Vec<Vec<String>>,
    /// Variation depth while reading.
    depth: usize,
    /// The first move of the variation being read, still wanted.
    variation_start_due: bool,
}

impl ReadGame {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(tag, _)| tag == name)
            .map(|(_, value)| value.as_str())
    }
}

struct GameCollector;

impl Visitor for GameCollector {
    type Tags = Vec<(String, String)>;
    type Movetext = ReadGame;
    type Output = ReadGame;

    fn begin_tags(&mut self) -> ControlFlow<ReadGame, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<ReadGame> {
        tags.push((text(name), value.decode_utf8_lossy().into_owned()));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<ReadGame, ReadGame> {
        ControlFlow::Continue(ReadGame {
            tags,
            ..ReadGame::default()
        })
    }

    fn san(&mut self, game: &mut ReadGame, san: SanPlus) -> ControlFlow<ReadGame> {
        if game.depth == 0 {
            game.moves.push(san.to_string());
            game.nags.push(Vec::new());
            game.comments.push(String::new());
            game.variations.push(Vec::new());
        } else if game.depth == 1 && game.variation_start_due {
            game.variation_start_due = false;
            if let Some(last) = game.variations.last_mut() {
                last.push(san.to_string());
            }
        }
        ControlFlow::Continue(())
    }

    fn nag(&mut self, game: &mut ReadGame, nag: Nag) -> ControlFlow<ReadGame> {
        if game.depth == 0
            && let Some(last) = game.nags.last_mut()
        {
            last.push(nag.0);
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, game: &mut ReadGame, comment: RawComment<'_>) -> ControlFlow<ReadGame> {
        if game.depth == 0
            && let Some(last) = game.comments.last_mut()
        {
            last.push_str(&text(comment.as_bytes()));
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, game: &mut ReadGame) -> ControlFlow<ReadGame, Skip> {
        game.depth += 1;
        game.variation_start_due = game.depth == 1;
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, game: &mut ReadGame) -> ControlFlow<ReadGame> {
        game.depth = game.depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, game: ReadGame) -> ReadGame {
        game
    }
}

fn read_games(pgn: &str) -> Vec<ReadGame> {
    let mut reader = Reader::new(pgn.as_bytes());
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut GameCollector).unwrap() {
        games.push(game);
    }
    games
}

/// The movetext on one line, as the tests look for text that the output
/// may wrap.
fn one_line(pgn: &str) -> String {
    pgn.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks that `output` holds `input`'s games with the same moves, an
/// `Annotator` tag and an `[%eval ...]` comment on every move.
fn assert_annotated(input: &[ReadGame], output: &[ReadGame]) {
    assert_eq!(input.len(), output.len());
    for (before, after) in input.iter().zip(output) {
        assert_eq!(before.moves, after.moves);
        assert!(after.tag("Annotator").unwrap().starts_with("Sessa "));
        for (san, comment) in after.moves.iter().zip(&after.comments) {
            assert!(
                comment.contains("[%eval "),
                "no eval after {san}: {comment:?}"
            );
        }
    }
}

#[test]
fn a_long_game_gets_an_eval_on_every_move_and_a_graph() {
    let svg_dir = temp_dir("annotate-long-svg");
    let output = annotate_fixture("long.pgn", &["--svg", svg_dir.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let input = read_games(&std::fs::read_to_string(fixture("long.pgn")).unwrap());
    let games = read_games(&text(&output.stdout));
    assert!(input[0].moves.len() > 200);
    assert_annotated(&input, &games);
    let last = games[0].comments.last().unwrap();
    assert!(last.contains("[%eval #0]"), "{last}");

    let graphs: Vec<PathBuf> = std::fs::read_dir(&svg_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(graphs.len(), 1);
    assert_eq!(
        graphs[0].file_name().unwrap().to_str().unwrap(),
        "001-Sessa-A-Sessa-B.svg"
    );
    let svg = std::fs::read_to_string(&graphs[0]).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("<polyline points="));
}

#[test]
fn a_hung_queen_is_a_blunder_with_the_better_line() {
    let output = annotate_fixture("blunder.pgn", &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let pgn = text(&output.stdout);
    let games = read_games(&pgn);
    let input = read_games(&std::fs::read_to_string(fixture("blunder.pgn")).unwrap());
    assert_annotated(&input, &games);
    let game = &games[0];
    // 2... Qg5 leaves the queen to 3. Nxg5.
    assert_eq!(game.moves[3], "Qg5");
    assert_eq!(game.nags[3], [4], "{pgn}");
    assert!(one_line(&pgn).contains("2... Qg5??"), "{pgn}");
    assert!(game.nags[4].is_empty(), "{pgn}");
    assert_eq!(game.variations[3].len(), 1, "{pgn}");
    assert_ne!(game.variations[3][0], "Qg5");
    assert_eq!(game.moves[4], "Nxg5", "{pgn}");
    let eval = &game.comments[3];
    assert!(
        eval.contains("[%eval ") && !eval.contains("[%eval -"),
        "{eval}"
    );
}

#[test]
fn a_chess960_game_from_a_fen_tag_castles() {
    let output = annotate_fixture("chess960.pgn", &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let games = read_games(&text(&output.stdout));
    let input = read_games(&std::fs::read_to_string(fixture("chess960.pgn")).unwrap());
    assert_annotated(&input, &games);
    let game = &games[0];
    assert_eq!(game.moves[0], "O-O");
    assert_eq!(game.moves[1], "O-O");
    assert_eq!(game.tag("Variant"), Some("Chess960"));
    assert_eq!(game.tag("FEN"), input[0].tag("FEN"));
}

#[test]
fn comments_variations_and_nags_of_the_input_are_kept() {
    let output = annotate_fixture("commented.pgn", &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let pgn = text(&output.stdout);
    let games = read_games(&pgn);
    let pgn = one_line(&pgn);
    let input = read_games(&std::fs::read_to_string(fixture("commented.pgn")).unwrap());
    assert_annotated(&input, &games);
    // lichess: the clock stays, the old evaluation gives way to Sessa's.
    let first = &games[0].comments[0];
    assert!(first.contains("[%clk 0:03:00]"), "{first}");
    assert_eq!(first.matches("[%eval").count(), 1, "{first}");
    assert!(pgn.contains("(4. Nxd4 exd4 5. O-O)"), "{pgn}");
    assert!(pgn.contains("Nf3# { [%eval #0]"), "{pgn}");
    // ChessBase: the comment before the move, nested variations, NAGs, and
    // the one Annotator tag, Sessa's.
    let chessbase = &games[1];
    assert_eq!(chessbase.tag("Site"), Some("Town \"Hall\""));
    assert_eq!(
        chessbase
            .tags
            .iter()
            .filter(|(name, _)| name == "Annotator")
            .count(),
        1
    );
    assert!(pgn.contains("{ Comments before the first move, as ChessBase writes them. }"));
    assert!(
        pgn.contains("(3. Nf3 b6 (3... d5 4. Nc3 $14) 4. g3)"),
        "{pgn}"
    );
    assert!(pgn.contains("The Nimzo-Indian. }"), "{pgn}");
    assert!(pgn.contains("$10"), "{pgn}");
}

#[test]
fn broken_records_are_named_and_the_others_annotated() {
    let output = annotate_fixture("broken.pgn", &[]);
    assert!(!output.status.success());
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("game 2 (Second - Illegal)") && stderr.contains("Ke3 is illegal"),
        "{stderr}"
    );
    assert!(
        stderr.contains("game 3 (Third - Bad FEN)") && stderr.contains("FEN"),
        "{stderr}"
    );
    let games = read_games(&text(&output.stdout));
    let white: Vec<&str> = games.iter().map(|g| g.tag("White").unwrap()).collect();
    assert_eq!(white, ["First", "Fourth"]);
    assert!(games[0].comments.last().unwrap().contains("[%eval #0]"));
}

#[test]
fn missing_files_and_bad_options_are_errors() {
    let good = fixture("blunder.pgn");
    let output = annotate(&[
        "/nonexistent/games.pgn",
        good.to_str().unwrap(),
        "--nodes",
        NODES,
    ]);
    assert!(!output.status.success());
    assert!(text(&output.stderr).contains("/nonexistent/games.pgn"));
    assert_eq!(read_games(&text(&output.stdout)).len(), 1);

    let output = annotate(&[good.to_str().unwrap(), "--nodes", "1", "--depth", "1"]);
    assert!(!output.status.success());
    let output = annotate(&[]);
    assert!(!output.status.success());
}

#[test]
fn games_go_to_the_out_file_in_order_with_several_jobs() {
    let dir = temp_dir("annotate-out");
    let out = dir.join("annotated.pgn");
    let (long, commented) = (fixture("long.pgn"), fixture("commented.pgn"));
    let output = annotate(&[
        long.to_str().unwrap(),
        commented.to_str().unwrap(),
        "--nodes",
        NODES,
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty());
    let games = read_games(&std::fs::read_to_string(&out).unwrap());
    let white: Vec<&str> = games.iter().map(|g| g.tag("White").unwrap()).collect();
    assert_eq!(white, ["Sessa A", "player_one", "Smith, John"]);
}

/// Copies of `blunder.pgn` (16 moves) in a run that is interrupted: at
/// [`INTERRUPTED_MOVE_TIME`] ms a position, under a second a game and over
/// 6 s for them all. Annotated they take under 5 kB, less than a write
/// buffer holds: only a game written as soon as it is done is there before
/// the end.
const INTERRUPTED_GAMES: usize = 8;
const INTERRUPTED_MOVE_TIME: &str = "50";
/// Longest wait for the first game, and for the process to end once
/// signalled.
const INTERRUPT_TIMEOUT: Duration = Duration::from_secs(20);

/// Starts `sessa annotate` on [`INTERRUPTED_GAMES`] games into `out`.
fn start_long_annotation(out: &Path) -> Child {
    let game = fixture("blunder.pgn");
    Command::new(env!("CARGO_BIN_EXE_sessa"))
        .arg("annotate")
        .args(vec![game.as_os_str(); INTERRUPTED_GAMES])
        .args(["--movetime", INTERRUPTED_MOVE_TIME, "--out"])
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting sessa annotate")
}

/// Waits until `out` holds a whole annotated game.
fn wait_for_a_game(out: &Path, child: &mut Child) {
    let moves = read_games(&std::fs::read_to_string(fixture("blunder.pgn")).unwrap())[0]
        .moves
        .len();
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(out).unwrap_or_default();
        if read_games(&text)
            .first()
            .is_some_and(|game| game.moves.len() == moves)
        {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("sessa annotate ended ({status}) before it wrote a game");
        }
        if started.elapsed() > INTERRUPT_TIMEOUT {
            let _ = child.kill();
            panic!("no game in {} after {INTERRUPT_TIMEOUT:?}", out.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for the process to end; its status and stderr.
fn wait_for_end(mut child: Child) -> (ExitStatus, String) {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > INTERRUPT_TIMEOUT {
            let _ = child.kill();
            panic!("sessa annotate still ran {INTERRUPT_TIMEOUT:?} after it was signalled");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = child.wait_with_output().unwrap();
    (output.status, text(&output.stderr))
}

/// Checks that the file `out` of an interrupted run holds whole annotated
/// games, at least one, and not all of them.
fn assert_whole_games(out: &Path) {
    let pgn = std::fs::read_to_string(out).unwrap();
    let games = read_games(&pgn);
    assert!(
        !games.is_empty() && games.len() < INTERRUPTED_GAMES,
        "{} games",
        games.len()
    );
    let game = std::fs::read_to_string(fixture("blunder.pgn")).unwrap();
    let input = read_games(&format!("{game}\n").repeat(games.len()));
    assert_annotated(&input, &games);
    assert!(pgn.trim_end().ends_with("1-0"), "{pgn}");
}

#[cfg(unix)]
#[test]
fn a_killed_annotation_leaves_whole_games() {
    let out = temp_dir("annotate-killed").join("annotated.pgn");
    let mut child = start_long_annotation(&out);
    wait_for_a_game(&out, &mut child);
    child.kill().unwrap();
    let (status, stderr) = wait_for_end(child);
    assert!(status.code().is_none(), "{status}: {stderr}");
    assert_whole_games(&out);
}

/// Sends `signal` (as `kill -s` names it: `INT`, `TERM`) to the process.
#[cfg(unix)]
fn send_signal(child: &Child, signal: &str) {
    let pid = child.id().to_string();
    let sent = Command::new("sh")
        .args(["-c", "kill -s \"$1\" \"$2\"", "sh", signal, &pid])
        .status()
        .expect("running kill");
    assert!(sent.success(), "kill -s {signal} {pid}");
}

/// Interrupts a run with `signal` once it has written a game: it must end
/// with status 130, say how many games it wrote, and leave them whole.
#[cfg(unix)]
fn assert_interrupt_keeps_whole_games(signal: &str) {
    let out = temp_dir(&format!("annotate-sig{signal}")).join("annotated.pgn");
    let mut child = start_long_annotation(&out);
    wait_for_a_game(&out, &mut child);
    send_signal(&child, signal);
    let (status, stderr) = wait_for_end(child);
    assert_eq!(status.code(), Some(130), "SIG{signal}: {stderr}");
    assert_whole_games(&out);
    let games = read_games(&std::fs::read_to_string(&out).unwrap()).len();
    let note = format!("interrupted: {games} of {INTERRUPTED_GAMES} games written");
    assert_eq!(stderr.trim(), note, "SIG{signal}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_an_annotation_and_keeps_its_whole_games() {
    assert_interrupt_keeps_whole_games("INT");
}

#[cfg(unix)]
#[test]
fn sigterm_stops_an_annotation_and_keeps_its_whole_games() {
    assert_interrupt_keeps_whole_games("TERM");
}

#[cfg(unix)]
#[test]
fn a_closed_terminal_stops_an_annotation_and_keeps_its_whole_games() {
    assert_interrupt_keeps_whole_games("HUP");
}

/// Reads every game of the file `argv[1]` (annotated) and `argv[2]` (the
/// input) with python-chess: the same main line moves, and an evaluation on
/// every main line move.
const PYTHON_CHECK: &str = r#"
import sys
import chess.pgn

def games(path):
    with open(path, encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game

annotated = list(games(sys.argv[1]))
inputs = list(games(sys.argv[2]))
assert len(annotated) == len(inputs), (len(annotated), len(inputs))
moves = 0
for game, original in zip(annotated, inputs):
    assert not game.errors, game.errors
    assert game.headers["Annotator"].startswith("Sessa "), game.headers
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in original.mainline_moves()]
    for node in game.mainline():
        assert node.eval() is not None, (game.headers["White"], node.ply(), node.comment)
        moves += 1
print(f"{len(annotated)} games, {moves} moves with an evaluation")
"#;

#[test]
fn python_chess_reads_every_evaluation_back() {
    let available = Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !available {
        if std::env::var(REQUIRE).as_deref() == Ok("1") {
            panic!("{REQUIRE}=1, but python3 has no python-chess");
        }
        println!("skipped: no python-chess; `pip install chess==1.11.2` to run it");
        return;
    }
    let dir = temp_dir("annotate-python-chess");
    for name in ["long.pgn", "blunder.pgn", "chess960.pgn", "commented.pgn"] {
        let out = dir.join(name);
        let output = annotate_fixture(name, &["--out", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        let check = Command::new("python3")
            .args(["-c", PYTHON_CHECK])
            .arg(&out)
            .arg(fixture(name))
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "{name}: {}{}",
            text(&check.stdout),
            text(&check.stderr)
        );
        println!("{name}: {}", text(&check.stdout).trim());
    }
}
