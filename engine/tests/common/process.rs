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

/// The numbers of the `--metrics` line of `stderr` that starts
/// `wizeng: metrics: WHAT`, in order (panics if there is none).
pub fn metric_numbers(stderr: &str, what: &str) -> Vec<usize> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("wizeng: metrics: ")?.strip_prefix(what))
        .unwrap_or_else(|| panic!("no `{what}` line in {stderr}"));
    line.split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// The cases a `cases.txt` lists, one per line as `NAME: ARGS` (`#` comments
/// and blank lines skipped): each name with its arguments.
pub fn cases(path: &Path) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (name, args) = l.split_once(':').expect("NAME: ARGS");
            (
                name.to_string(),
                args.split_whitespace().map(String::from).collect(),
            )
        })
        .collect()
}
