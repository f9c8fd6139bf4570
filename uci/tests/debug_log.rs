//! The `Debug Log File` option: every line received and sent is appended to
//! the file as it goes, input marked `>> ` and output `<< `.

mod common;

use common::{Engine, PROMPT};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An empty folder for one test, with a space in its name.
fn fresh_folder(test: &str) -> PathBuf {
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("debug log {test}"));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

fn log_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn option_is_declared_empty() {
    let mut e = Engine::spawn();
    e.send("uci");
    let (_, lines) = e.expect(|l| l == "uciok", Duration::from_secs(5));
    assert!(
        lines
            .iter()
            .any(|l| l == "option name Debug Log File type string default <empty>"),
        "{lines:#?}"
    );
}

#[test]
fn both_directions_are_logged_as_they_go() {
    let folder = fresh_folder("directions");
    let path = folder.join("sessa log.txt");
    let mut e = Engine::start();
    e.send(&format!(
        "setoption name Debug Log File value {}",
        path.display()
    ));
    e.send("position startpos");
    e.send("go depth 2");
    let (best, _, _) = e.bestmove(PROMPT);
    e.ready();
    // Written and flushed while the engine runs.
    let lines = log_lines(&path);
    assert_eq!(lines[0], ">> position startpos", "{lines:#?}");
    assert_eq!(lines[1], ">> go depth 2", "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.starts_with("<< info depth 2 ")),
        "{lines:#?}"
    );
    let bestmove = lines
        .iter()
        .position(|l| l.starts_with(&format!("<< bestmove {best}")))
        .unwrap_or_else(|| panic!("no bestmove in {lines:#?}"));
    assert_eq!(lines[bestmove + 1..], [">> isready", "<< readyok"]);

    // Off with `<empty>`: the line that turns it off is the last one logged.
    e.send("setoption name Debug Log File value <empty>");
    e.send("position startpos moves e2e4");
    e.ready();
    let logged = log_lines(&path);
    assert_eq!(logged.len(), lines.len() + 1, "{logged:#?}");
    assert_eq!(
        logged.last().unwrap(),
        ">> setoption name Debug Log File value <empty>"
    );

    // On again: appended to what is there. Off with an empty value.
    e.send(&format!(
        "setoption name Debug Log File value {}",
        path.display()
    ));
    e.ready();
    e.send("setoption name Debug Log File value");
    e.ready();
    let appended = log_lines(&path);
    assert_eq!(appended[..logged.len()], logged[..]);
    assert_eq!(
        appended[logged.len()..],
        [
            ">> isready",
            "<< readyok",
            ">> setoption name Debug Log File value"
        ]
    );
}

#[test]
fn an_unopenable_path_is_an_error_and_logging_stays_off() {
    let folder = fresh_folder("unopenable");
    let good = folder.join("log.txt");
    let mut e = Engine::start();
    e.send(&format!(
        "setoption name Debug Log File value {}",
        good.display()
    ));
    e.ready();
    for bad in [folder.join("missing folder/log.txt"), folder.clone()] {
        let bad = bad.display().to_string();
        e.send(&format!("setoption name Debug Log File value {bad}"));
        let (line, _) = e.expect(|l| l.starts_with("info string"), PROMPT);
        assert!(
            line.starts_with(&format!("info string error: Debug Log File '{bad}': ")),
            "{line}"
        );
        assert!(line.ends_with("; logging off"), "{line}");
        e.ready();
    }
    // Only what came before the first bad path is in the good log.
    let lines = log_lines(&good);
    assert_eq!(
        lines,
        [
            ">> isready".to_string(),
            "<< readyok".to_string(),
            format!(
                ">> setoption name Debug Log File value {}",
                folder.join("missing folder/log.txt").display()
            ),
        ]
    );
    assert!(!folder.join("missing folder").exists());
}
