//! Diagnostics, rendered with `codespan-reporting`.
//!
//! Why codespan-reporting: it is small, has no proc-macro or `dyn Error`
//! framework baggage (unlike miette), renders multi-label, multi-file
//! diagnostics in the rustc style (file:line:col, source line, underline), and
//! can render to a plain `String`, which keeps snapshot tests deterministic.
//! (ariadne would also do, but its output is colour-first and less stable
//! across versions.)

use crate::span::Span;
use codespan_reporting::diagnostic::{Diagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diag {
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub label: String,
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diag {
    pub fn error(message: impl Into<String>, span: Span) -> Diag {
        Diag {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            secondary: vec![],
            notes: vec![],
        }
    }
    pub fn warning(message: impl Into<String>, span: Span) -> Diag {
        Diag {
            severity: Severity::Warning,
            ..Diag::error(message, span)
        }
    }
    pub fn with_label(mut self, l: impl Into<String>) -> Diag {
        self.label = l.into();
        self
    }
    pub fn with_note(mut self, n: impl Into<String>) -> Diag {
        self.notes.push(n.into());
        self
    }
    pub fn with_secondary(mut self, span: Span, l: impl Into<String>) -> Diag {
        self.secondary.push((span, l.into()));
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

fn clamp(span: Span, len: usize) -> std::ops::Range<usize> {
    let lo = span.lo.min(len);
    let hi = span.hi.min(len).max(lo);
    lo..hi
}

/// Render diagnostics (in source order) as plain text.
pub fn render(file_name: &str, src: &str, diags: &[Diag]) -> String {
    let file = SimpleFile::new(file_name, src);
    let config = term::Config::default();
    let mut sorted: Vec<&Diag> = diags.iter().collect();
    sorted.sort_by_key(|d| (d.span.lo, d.span.hi));
    let mut out = String::new();
    for d in sorted {
        let sev = match d.severity {
            Severity::Error => CsSeverity::Error,
            Severity::Warning => CsSeverity::Warning,
        };
        let mut labels =
            vec![Label::primary((), clamp(d.span, src.len())).with_message(d.label.clone())];
        for (s, l) in &d.secondary {
            labels.push(Label::secondary((), clamp(*s, src.len())).with_message(l.clone()));
        }
        let cd = Diagnostic::new(sev)
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(d.notes.clone());
        match term::emit_into_string(&config, &file, &cd) {
            Ok(s) => out.push_str(&s),
            Err(e) => out.push_str(&format!("error: {} (while rendering: {e})\n", d.message)),
        }
    }
    out
}
