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
    let checked = check::check(&script, cat, &mut diags);
    FrontEnd { script, checked, diags }
}
