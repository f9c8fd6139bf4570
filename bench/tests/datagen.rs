//! `datagen --net FILE` plays with the network it is given, and says so in
//! the folder's settings.

use sessa_engine::nnue::EMBEDDED_NAME;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file of the network built into the engine.
fn embedded_net() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../engine/nets/{EMBEDDED_NAME}"))
}

/// Runs `program` with `args`, which must succeed.
fn run(program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Plays two short games into `folder` (with `net`, if given).
fn generate(folder: &Path, net: Option<&Path>) -> (String, Vec<u8>) {
    let mut args = vec![
        "--out",
        folder.to_str().unwrap(),
        "--games",
        "2",
        "--games-per-chunk",
        "2",
        "--soft-nodes",
        "200",
        "--threads",
        "1",
        "--seed",
        "9",
    ];
    if let Some(net) = net {
        args.extend(["--net", net.to_str().unwrap()]);
    }
    run(env!("CARGO_BIN_EXE_datagen"), &args);
    (
        std::fs::read_to_string(folder.join("settings.txt")).unwrap(),
        std::fs::read(folder.join("chunk-000000.bin")).unwrap(),
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sessa-datagen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_given_network_plays_the_games_and_is_named_in_the_settings() {
    // The built-in network by default and by file give the same games.
    let (default_settings, default_games) = generate(&scratch("default"), None);
    let (file_settings, file_games) = generate(&scratch("file"), Some(&embedded_net()));
    assert!(default_settings.contains(&format!("evaluation {EMBEDDED_NAME}")));
    assert_eq!(default_settings, file_settings);
    assert_eq!(default_games, file_games);

    // Another network (the same one at half the output scale) plays other games.
    let scaled = scratch("scaled-net");
    run(
        env!("CARGO_BIN_EXE_rescale"),
        &[
            embedded_net().to_str().unwrap(),
            "--out",
            scaled.to_str().unwrap(),
            "--factor",
            "0.5",
        ],
    );
    let net = std::fs::read_dir(&scaled)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|e| e == "nnue"))
        .expect("rescale writes a network");
    let (scaled_settings, scaled_games) = generate(&scratch("scaled"), Some(&net));
    let name = net.file_name().unwrap().to_str().unwrap();
    assert!(
        scaled_settings.contains(&format!("evaluation {name}")),
        "{scaled_settings}"
    );
    assert_ne!(scaled_games, default_games);

    // A network that cannot be read stops the run with its name.
    let output = Command::new(env!("CARGO_BIN_EXE_datagen"))
        .args([
            "--out",
            scratch("bad").to_str().unwrap(),
            "--net",
            "/no/such.nnue",
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("/no/such.nnue"));
}
