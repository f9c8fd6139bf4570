//! Helpers shared by the engine's integration tests.

use std::path::{Path, PathBuf};

/// The repository root: `testsuites/` is below it, `../shared/` beside it.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the engine crate sits inside the repository")
        .to_path_buf()
}
