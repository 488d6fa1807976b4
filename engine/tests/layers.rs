//! The engine's layers depend one way: core → runtime → exec → monitor → CLI
//! (`docs/ARCHITECTURE.md`). This test reads every source file under
//! `engine/src` and fails on any `crate::` path (outside comments) that reaches
//! a higher layer than the file's own, so no import cycle can span two folders.

use std::path::{Path, PathBuf};

const LAYERS: [&str; 4] = ["core", "runtime", "exec", "monitor"];

/// The layer of a path's first segment after `crate::`, or None for names that
/// are not modules of the crate (macros, root re-exports are resolved below).
fn layer_of_segment(seg: &str) -> Option<usize> {
    if let Some(i) = LAYERS.iter().position(|l| *l == seg) {
        return Some(i);
    }
    // The crate root re-exports each layer's modules and its main types
    // (`lib.rs`); a lower layer must not reach a higher one through them either.
    match seg {
        "error" | "module" | "probe" | "types" => Some(0),
        "store" | "wasi" | "linear_memory" => Some(1),
        "interp" | "jit" => Some(2),
        "blockcount" | "dyninstr" | "frames" | "inline" | "standalone" | "weave" | "session" => {
            Some(3)
        }
        // Root re-exports of core types (`pub use core::{error::*, types::*}`).
        s if s.starts_with(|c: char| c.is_ascii_uppercase()) => root_type_layer(s),
        _ => None,
    }
}

fn root_type_layer(name: &str) -> Option<usize> {
    match name {
        "Store" | "Linker" | "Caller" | "HostFn" | "Config" | "Tier" => Some(1),
        "Session" | "SessionBuilder" | "MonitorSpec" => Some(3),
        _ => Some(0),
    }
}

fn file_layer(rel: &Path) -> Option<usize> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    LAYERS.iter().position(|l| *l == first)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `crate::seg` references in code (comments removed), with line numbers.
fn crate_refs(src: &str) -> Vec<(usize, String)> {
    let mut refs = Vec::new();
    for (n, line) in src.lines().enumerate() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let seg: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let preceded_by_ident = rest[..i]
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            if !seg.is_empty() && !preceded_by_ident {
                refs.push((n + 1, seg));
            }
            rest = after;
        }
    }
    refs
}

#[test]
fn layers_depend_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    let mut checked = 0;
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let Some(own) = file_layer(rel) else { continue };
        checked += 1;
        let text = std::fs::read_to_string(f).unwrap();
        for (line, seg) in crate_refs(&text) {
            if let Some(target) = layer_of_segment(&seg) {
                if target > own {
                    violations.push(format!(
                        "{}:{line}: {} layer uses crate::{seg} ({} layer)",
                        rel.display(),
                        LAYERS[own],
                        LAYERS[target]
                    ));
                }
            }
        }
    }
    assert!(
        checked > 30,
        "expected the layered source tree, found {checked} files"
    );
    assert!(
        violations.is_empty(),
        "upward dependencies:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_checker_sees_upward_references() {
    let refs = crate_refs("use crate::exec::jit; // crate::monitor in a comment\nx(crate::Store)");
    let segs: Vec<_> = refs.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(segs, ["exec", "Store"]);
    assert_eq!(layer_of_segment("exec"), Some(2));
    assert_eq!(layer_of_segment("weave"), Some(3));
    assert_eq!(layer_of_segment("Store"), Some(1));
    assert_eq!(file_layer(Path::new("runtime/store.rs")), Some(1));
}
