//! The repository is self-contained, and links into the normative documents
//! resolve:
//!
//! * no text file of the repository (outside `target/`, `.git/` and ignored
//!   tool directories) points outside it: to the old out-of-tree reference
//!   notes or to an absolute checkout path;
//! * every link to a heading of `docs/monitor-abi.md` or
//!   `docs/probe-language.md` (the file name, `#`, the anchor) written in
//!   any text file, and every `](#anchor)` link inside those two documents,
//!   names a heading of the document (GitHub-style anchor slug).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Split so that this file does not match itself.
const FORBIDDEN: &[(&str, &str)] = &[("..", "/shared/"), ("shared/", "reference"), ("/wo", "rk/")];

/// The normative documents, relative to the repository root.
const DOCS: &[&str] = &["docs/monitor-abi.md", "docs/probe-language.md"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("monitor-abi lives in the repository root")
        .to_path_buf()
}

/// Directories that hold build output, VCS data or local tool state.
fn skipped_dir(name: &str) -> bool {
    matches!(
        name,
        "target" | ".git" | ".venv" | "__pycache__" | "node_modules"
    )
}

/// Every text file (valid UTF-8 without NUL bytes) under `dir`.
fn text_files(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let Ok(ft) = e.file_type() else { continue };
        // In a `git worktree` checkout `.git` is a file naming the main
        // repository's directory: git's, not ours.
        if e.file_name() == ".git" {
            continue;
        }
        if ft.is_dir() {
            if !skipped_dir(&e.file_name().to_string_lossy()) {
                text_files(&path, out);
            }
        } else if ft.is_file() {
            if let Ok(bytes) = std::fs::read(&path) {
                if !bytes.contains(&0) {
                    if let Ok(s) = String::from_utf8(bytes) {
                        out.push((path, s));
                    }
                }
            }
        }
    }
}

fn all_text_files() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    text_files(&repo_root(), &mut files);
    assert!(
        files.iter().any(|(p, _)| p.ends_with("Cargo.toml")),
        "walked the wrong directory: {}",
        repo_root().display()
    );
    files
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo_root())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// GitHub's heading anchor: inline code and link syntax reduced to their
/// text, lowercased, everything but letters, digits, `_`, `-` and spaces
/// dropped, spaces turned into `-`.
fn slug(heading: &str) -> String {
    // `[text](url)` -> `text`
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| {
            after[close + 2..]
                .find(')')
                .map(|end| (close, close + 2 + end))
        }) {
            Some((close, end)) => {
                text.push_str(&rest[..open]);
                text.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            None => {
                text.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    text.push_str(rest);
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown document's headings (outside fenced code).
fn anchors(markdown: &str) -> HashSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = HashSet::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

fn is_anchor_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Every `needle` immediately followed by an anchor: (line, anchor).
fn references<'a>(text: &'a str, needle: &str) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find(needle) {
            let start = from + at + needle.len();
            let len = line[start..]
                .find(|c: char| !is_anchor_char(c))
                .unwrap_or(line.len() - start);
            out.push((i + 1, &line[start..start + len]));
            from = start;
        }
    }
    out
}

#[test]
fn no_paths_outside_the_repository() {
    let forbidden: Vec<String> = FORBIDDEN.iter().map(|(a, b)| format!("{a}{b}")).collect();
    let mut bad = Vec::new();
    for (path, text) in all_text_files() {
        for (i, line) in text.lines().enumerate() {
            for f in &forbidden {
                if line.contains(f.as_str()) {
                    bad.push(format!("{}:{}: `{f}`: {}", rel(&path), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "paths outside the repository (link docs/monitor-abi.md or docs/probe-language.md instead):\n{}",
        bad.join("\n")
    );
}

#[test]
fn doc_anchors_resolve() {
    let root = repo_root();
    let mut bad = Vec::new();
    let mut checked = 0;
    let docs: Vec<(&str, String, HashSet<String>)> = DOCS
        .iter()
        .map(|d| {
            let text = std::fs::read_to_string(root.join(d)).unwrap_or_else(|e| panic!("{d}: {e}"));
            let a = anchors(&text);
            (*d, text, a)
        })
        .collect();
    // Anchors that diagnostics and other documents rely on.
    let required: &[(&str, &[&str])] = &[
        (
            "docs/monitor-abi.md",
            &[
                "part-a",
                "part-b",
                "bind-errors",
                "exit-statuses",
                "differences-from-wizard",
            ],
        ),
        (
            "docs/probe-language.md",
            &["targets", "report-format", "differences-from-whamm"],
        ),
    ];
    for (d, must) in required {
        let (_, _, a) = docs
            .iter()
            .find(|(x, _, _)| x == d)
            .expect("a listed document");
        for m in must.iter().filter(|m| !a.contains(**m)) {
            bad.push(format!("{d}: no heading for #{m}"));
        }
    }
    // References from anywhere, by file name (`docs/x.md#a` and `x.md#a`).
    for (path, text) in all_text_files() {
        for (doc, _, doc_anchors) in &docs {
            let file = Path::new(doc).file_name().unwrap().to_string_lossy();
            for (line, anchor) in references(&text, &format!("{file}#")) {
                checked += 1;
                if !doc_anchors.contains(anchor) {
                    bad.push(format!(
                        "{}:{line}: `{file}#{anchor}` names no heading of {doc}",
                        rel(&path)
                    ));
                }
            }
        }
    }
    // Links inside each document to its own headings.
    for (doc, text, doc_anchors) in &docs {
        for (line, anchor) in references(text, "](#") {
            checked += 1;
            if !doc_anchors.contains(anchor) {
                bad.push(format!("{doc}:{line}: `#{anchor}` names no heading"));
            }
        }
    }
    assert!(checked > 0, "no anchor references found at all");
    assert!(bad.is_empty(), "broken anchors:\n{}", bad.join("\n"));
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug(" Part B"), "part-b");
    assert_eq!(slug(" `whamm_buffer`"), "whamm_buffer");
    assert_eq!(
        slug(" Not yet identical (issue #16)"),
        "not-yet-identical-issue-16"
    );
    assert_eq!(slug(" Begin, end and report"), "begin-end-and-report");
    assert_eq!(slug(" See [the ABI](x.md) now"), "see-the-abi-now");
    let a = anchors("# A\n## A\n```\n# not a heading\n```\n### B c\n");
    assert_eq!(
        a,
        ["a", "a-1", "b-c"].into_iter().map(String::from).collect()
    );
}
