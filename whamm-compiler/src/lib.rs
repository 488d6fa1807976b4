//! The whamm probe-script compiler: front end (lexer, parser, diagnostics,
//! rule matching, name resolution and type checking).
//!
//! Pipeline: [`lexer`] (logos) -> [`parser`] (lalrpop, `grammar.lalrpop`,
//! error recovery) -> [`ast`] -> [`check`] (scopes, types, probe rules
//! expanded by [`rules`] against an [`catalog::EventCatalog`]) ->
//! diagnostics rendered by [`diag`].
//!
//! The passes after the parser are recursive, so the entry points
//! ([`front_end`], [`front_end_with_libs`], [`build`]) run them on a thread
//! with a large stack ([`on_compiler_stack`]); [`nesting`] reports scripts
//! nested more deeply than that stack covers.

#![forbid(unsafe_code)]

pub mod ast;
pub mod bytecode;
pub mod catalog;
pub mod categories;
pub mod check;
pub mod codegen;
pub(crate) mod desugar;
pub mod diag;
pub mod lexer;
pub mod libs;
pub mod nesting;
pub mod numbering;
pub mod parser;
pub mod rules;
pub mod span;
pub mod types;
pub mod wasm;

use catalog::EventCatalog;
use diag::Diag;

/// The result of running the front end on one file.
pub struct FrontEnd {
    pub script: ast::Script,
    pub checked: check::CheckResult,
    pub diags: Vec<Diag>,
}

impl FrontEnd {
    pub fn has_errors(&self) -> bool {
        self.diags.iter().any(|d| d.is_error())
    }
}

/// Lex, parse and check `src`, collecting every diagnostic. Never panics on
/// malformed input.
pub fn front_end(src: &str, cat: &dyn EventCatalog) -> FrontEnd {
    front_end_with_libs(src, cat, &libs::Libs::new())
}

/// [`front_end`] with the signatures of monitor libraries (`--lib`): calls
/// of those libraries are type-checked against them.
pub fn front_end_with_libs(src: &str, cat: &dyn EventCatalog, libs: &libs::Libs) -> FrontEnd {
    on_compiler_stack(|| run_front_end(src, cat, libs))
}

/// The stack of the compiler's thread. Enough for every script within
/// [`nesting::MAX_DEPTH`], in debug builds too; only touched pages are used.
pub const COMPILER_STACK: usize = 1 << 30;

/// Run `f` on a thread with a [`COMPILER_STACK`]-sized stack (the recursive
/// passes need it for deeply nested scripts), and wait for it. A panic in
/// `f` is resumed on the calling thread.
pub fn on_compiler_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("whamm-compiler".into())
            .stack_size(COMPILER_STACK)
            .spawn_scoped(s, f)
            .unwrap_or_else(|e| panic!("cannot start the compiler thread: {e}"));
        h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

fn run_front_end(src: &str, cat: &dyn EventCatalog, libs: &libs::Libs) -> FrontEnd {
    let (script, mut diags) = parser::parse(src);
    // Semantic errors on a line that already has a syntax error are almost
    // always consequences of it (a half-parsed statement): drop them.
    let line_of = |pos: usize| {
        src.as_bytes()[..pos.min(src.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    };
    let syntax_lines: std::collections::HashSet<usize> =
        diags.iter().map(|d| line_of(d.span.lo)).collect();
    let mut semantic = vec![];
    // `use whamm_core;` without `--lib whamm_core=...`: whamm's core library,
    // provided by the monitor itself (docs/probe-language.md#libraries).
    let mut with_core = libs.clone();
    with_core
        .entry(libs::CORE.to_string())
        .or_insert_with(libs::core_library);
    with_core
        .entry(libs::DYNINSTR.to_string())
        .or_insert_with(libs::dyninstr_library);
    let libs = &with_core;
    let checked = check::check_with_libs(&script, cat, libs, &mut semantic);
    diags.extend(
        semantic
            .into_iter()
            .filter(|d| !syntax_lines.contains(&line_of(d.span.lo))),
    );
    FrontEnd {
        script,
        checked,
        diags,
    }
}

/// Compile a script to a monitor module: front end, then [`codegen`].
/// Returns the module bytes (validated), or every diagnostic.
pub fn build(src: &str, opts: &codegen::Options) -> Result<(Vec<u8>, Vec<Diag>), Vec<Diag>> {
    on_compiler_stack(|| run_build(src, opts))
}

fn run_build(src: &str, opts: &codegen::Options) -> Result<(Vec<u8>, Vec<Diag>), Vec<Diag>> {
    let cat: Box<dyn EventCatalog> = if opts.portable {
        Box::new(catalog::AbiCatalog::portable())
    } else {
        catalog::default_catalog()
    };
    let fe = run_front_end(src, cat.as_ref(), &opts.libs);
    if fe.has_errors() {
        return Err(fe.diags);
    }
    match codegen::compile(&fe.script, &fe.checked, opts) {
        Ok(bytes) => Ok((bytes, fe.diags)),
        Err(mut d) => {
            let mut all = fe.diags;
            all.append(&mut d);
            Err(all)
        }
    }
}

/// The text format of a module (for `--emit-wat`).
pub fn to_wat(bytes: &[u8]) -> String {
    wasmprinter::print_bytes(bytes).unwrap_or_else(|e| format!(";; cannot print: {e}\n"))
}
