//! Running the `wizeng` binary from a test.

use std::path::Path;
use std::process::Command;

/// Run `wizeng args...` in `dir` with the environment variables `envs` set;
/// its exit status, then stdout and stderr, as one string to compare.
pub fn wizeng(dir: &Path, envs: &[(&str, &str)], args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .current_dir(dir)
        .envs(envs.iter().copied())
        .args(args)
        .output()
        .expect("run wizeng");
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
