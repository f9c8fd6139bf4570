//! Where the tests find the repository and the shared data: the engine's
//! integration tests use this module, and the uci crate's tests include it.

use std::path::{Path, PathBuf};

/// The repository root: `testsuites/` is below it, `../shared/` beside it.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits inside the repository")
        .to_path_buf()
}

/// The environment variable that makes missing shared data a failure: CI
/// sets it, so that a run without `../shared` cannot pass by skipping.
pub const REQUIRE_SHARED: &str = "SESSA_REQUIRE_SHARED";

/// The shared data at `relative` inside `../shared` (beside the repository),
/// if `marker` is there below it. When it is missing the test that asks is
/// skipped: this returns `None` and says so once per test binary on the
/// process's stderr (not through the test harness, whose capture would hide
/// it from a passing run). With `SESSA_REQUIRE_SHARED=1` it panics instead.
pub fn shared_data(relative: &str, marker: &str) -> Option<PathBuf> {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    let folder = repo_root().join("../shared").join(relative);
    if folder.join(marker).exists() {
        return Some(folder);
    }
    let missing = folder.join(marker);
    assert!(
        std::env::var_os(REQUIRE_SHARED).is_none_or(|v| v != "1"),
        "{} is missing and {REQUIRE_SHARED}=1 requires it",
        missing.display()
    );
    NOTICE.call_once(|| {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "note: skipping the tests that need {} (missing); set {REQUIRE_SHARED}=1 to fail instead",
            missing.display()
        );
    });
    None
}
