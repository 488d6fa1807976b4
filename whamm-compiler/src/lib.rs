//! The whamm probe-script compiler: front end (lexer, parser, diagnostics,
//! rule matching, name resolution and type checking).
//!
//! Pipeline: [`lexer`] (logos) -> [`parser`] (lalrpop, `grammar.lalrpop`,
//! error recovery) -> [`ast`] -> [`check`] (scopes, types, probe rules
//! expanded by [`rules`] against an [`catalog::EventCatalog`]) ->
//! diagnostics rendered by [`diag`].

pub mod ast;
pub mod catalog;
pub mod check;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod rules;
pub mod span;
pub mod types;

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
    let (script, mut diags) = parser::parse(src);
    // Semantic errors on a line that already has a syntax error are almost
    // always consequences of it (a half-parsed statement): drop them.
    let line_of = |pos: usize| src.as_bytes()[..pos.min(src.len())].iter().filter(|&&b| b == b'\n').count();
    let syntax_lines: std::collections::HashSet<usize> = diags.iter().map(|d| line_of(d.span.lo)).collect();
    let mut semantic = vec![];
    let checked = check::check(&script, cat, &mut semantic);
    diags.extend(semantic.into_iter().filter(|d| !syntax_lines.contains(&line_of(d.span.lo))));
    FrontEnd { script, checked, diags }
}
