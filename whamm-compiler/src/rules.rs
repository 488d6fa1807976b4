//! Probe rules (docs/probe-language.md#probe-rules): parsing `provider:package:event:mode` with globs and
//! type bounds, and expanding them against the event catalogue.
//!
//! Glob syntax per part: `*` (any run), `?` (any one char), `[abc]`,
//! `[a-z]`, `[!a-z]` / `[^a-z]`, and alternatives `a|b` (lowest precedence).
//! An empty part means `*`. Matching is case-insensitive.

use crate::catalog::{Event, EventCatalog};
use crate::diag::Diag;
use crate::span::Span;
use crate::types::{parse_type_name, Type};

#[derive(Clone, Debug, PartialEq)]
pub struct RulePart {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeBound {
    pub var: String,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub parts: Vec<RulePart>,
    pub bounds: Vec<TypeBound>,
    pub span: Span,
}

/// One matched (event, mode) pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub event: Event,
    pub mode: Option<String>,
}

impl Match {
    pub fn name(&self) -> String {
        match &self.mode {
            Some(m) => format!("{}:{}", self.event.name(), m),
            None => self.event.name(),
        }
    }
}

/// Parse the text of a `Tok::Rule` that starts at byte `base` of the file.
pub fn parse_rule(text: &str, base: usize, diags: &mut Vec<Diag>) -> Rule {
    let mut parts = vec![];
    let mut bounds = vec![];
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut part_start = 0;
    let mut part_text = String::new();
    loop {
        let c = bytes.get(i).copied();
        match c {
            Some(b'(') => {
                let close = text[i..].find(')').map(|k| i + k).unwrap_or(text.len());
                parse_bounds(&text[i + 1..close], base + i + 1, &mut bounds, diags);
                i = close + 1;
            }
            Some(b':') | None => {
                parts.push(RulePart {
                    text: std::mem::take(&mut part_text),
                    span: Span::new(base + part_start, base + i.min(text.len())),
                });
                if c.is_none() || i >= text.len() {
                    break;
                }
                i += 1;
                part_start = i;
                if i >= text.len() {
                    parts.push(RulePart {
                        text: String::new(),
                        span: Span::new(base + i, base + i),
                    });
                    break;
                }
            }
            Some(ch) => {
                part_text.push(ch as char);
                i += 1;
            }
        }
    }
    for p in &parts {
        if let Err(msg) = Glob::compile(&p.text) {
            diags.push(
                Diag::error(
                    format!("invalid glob `{}` in probe rule: {msg}", p.text),
                    p.span,
                )
                .with_label("invalid glob"),
            );
        }
    }
    Rule {
        parts,
        bounds,
        span: Span::new(base, base + text.len()),
    }
}

fn parse_bounds(inner: &str, base: usize, out: &mut Vec<TypeBound>, diags: &mut Vec<Diag>) {
    let mut off = 0;
    for piece in inner.split(',') {
        let span = Span::new(base + off, base + off + piece.len());
        off += piece.len() + 1;
        if piece.trim().is_empty() {
            if inner.trim().is_empty() {
                return;
            }
            diags.push(Diag::error("empty type bound", span).with_label("expected `name: type`"));
            continue;
        }
        let Some((name, ty)) = piece.split_once(':') else {
            diags.push(
                Diag::error(format!("malformed type bound `{}`", piece.trim()), span)
                    .with_label("expected `name: type`, e.g. `arg0: i32`"),
            );
            continue;
        };
        let name = name.trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            diags.push(
                Diag::error(format!("malformed type bound `{}`", piece.trim()), span)
                    .with_label("expected a bound-variable name before `:`"),
            );
            continue;
        }
        match parse_type_name(ty) {
            Some(t) => out.push(TypeBound {
                var: name.to_string(),
                ty: t,
                span,
            }),
            None => diags.push(
                Diag::error(format!("unknown type `{}` in type bound", ty.trim()), span)
                    .with_label(
                        "expected one of u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 v128 bool str",
                    ),
            ),
        }
    }
}

// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum GItem {
    Lit(u8),
    Any,
    Star,
    Class(bool, Vec<(u8, u8)>),
}

/// A compiled glob for one rule part.
#[derive(Clone, Debug)]
pub struct Glob {
    alts: Vec<Vec<GItem>>,
}

impl Glob {
    pub fn compile(text: &str) -> Result<Glob, String> {
        let text = text.to_ascii_lowercase();
        if text.is_empty() {
            return Ok(Glob {
                alts: vec![vec![GItem::Star]],
            });
        }
        let mut alts = vec![];
        for alt in text.split('|') {
            if alt.is_empty() {
                return Err("empty alternative around `|`".into());
            }
            let cs: Vec<u8> = alt.bytes().collect();
            let mut items = vec![];
            let mut i = 0;
            while i < cs.len() {
                match cs[i] {
                    b'*' => items.push(GItem::Star),
                    b'?' => items.push(GItem::Any),
                    b'[' => {
                        let mut j = i + 1;
                        let neg = matches!(cs.get(j), Some(b'!') | Some(b'^'));
                        if neg {
                            j += 1;
                        }
                        let mut ranges = vec![];
                        while j < cs.len() && cs[j] != b']' {
                            if cs.get(j + 1) == Some(&b'-')
                                && cs.get(j + 2).is_some_and(|c| *c != b']')
                            {
                                ranges.push((cs[j], cs[j + 2]));
                                j += 3;
                            } else {
                                ranges.push((cs[j], cs[j]));
                                j += 1;
                            }
                        }
                        if j >= cs.len() {
                            return Err("unclosed `[`".into());
                        }
                        if ranges.is_empty() {
                            return Err("empty character class `[]`".into());
                        }
                        items.push(GItem::Class(neg, ranges));
                        i = j;
                    }
                    b']' => return Err("unmatched `]`".into()),
                    c => items.push(GItem::Lit(c)),
                }
                i += 1;
            }
            alts.push(items);
        }
        Ok(Glob { alts })
    }

    pub fn matches(&self, s: &str) -> bool {
        if let [alt] = self.alts.as_slice() {
            if let [GItem::Star] = alt.as_slice() {
                return true;
            }
        }
        self.alts.iter().any(|a| glob_match(a, s.as_bytes()))
    }

    pub fn is_wildcard(&self) -> bool {
        self.alts
            .iter()
            .any(|a| a.iter().any(|g| !matches!(g, GItem::Lit(_))))
    }
}

/// Iterative glob matching with single-star backtracking (linear-ish, no
/// exponential blowup on `*a*a*a*`).
fn glob_match(p: &[GItem], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let ch = s[si].to_ascii_lowercase();
        let ok = match p.get(pi) {
            Some(GItem::Lit(c)) => *c == ch,
            Some(GItem::Any) => true,
            Some(GItem::Class(neg, rs)) => rs.iter().any(|(a, b)| *a <= ch && ch <= *b) != *neg,
            Some(GItem::Star) => {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            None => false,
        };
        if ok {
            pi += 1;
            si += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi.min(p.len())..]
        .iter()
        .all(|g| matches!(g, GItem::Star))
}

/// Expand a rule against the catalogue: all (event, mode) pairs whose parts
/// match, filtered by the type bounds. Errors (with spans) when nothing
/// matches.
pub fn expand(rule: &Rule, cat: &dyn EventCatalog, diags: &mut Vec<Diag>) -> Vec<Match> {
    let globs: Vec<Glob> = match rule
        .parts
        .iter()
        .map(|p| Glob::compile(&p.text))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(g) => g,
        Err(_) => return vec![], // already reported by parse_rule
    };
    let events = cat.events();
    let mut out = vec![];
    // For a helpful message when nothing matches.
    let mut best_prefix = 0usize;
    let mut names_matched: Vec<&Event> = vec![];
    let mut prev_parts: std::sync::Arc<[String]> = Vec::new().into();
    let mut prev_hits = [false; 2];
    for ev in events {
        let name_parts = ev.parts.len();
        let want = name_parts + usize::from(!ev.modes.is_empty());
        // Consecutive events share provider/package: reuse those results.
        let mut k = 0;
        for (i, (p, g)) in ev.parts.iter().zip(&globs).enumerate() {
            let hit = if i < 2 && prev_parts.get(i).is_some_and(|q| q == p) {
                prev_hits[i]
            } else {
                let h = g.matches(p);
                if i < 2 {
                    prev_hits[i] = h;
                }
                h
            };
            if !hit {
                break;
            }
            k += 1;
        }
        prev_parts = ev.parts.clone();
        best_prefix = best_prefix.max(k);
        if k < name_parts || globs.len() < name_parts {
            continue;
        }
        names_matched.push(ev);
        if globs.len() != want {
            continue;
        }
        if ev.modes.is_empty() {
            out.push(Match {
                event: ev.clone(),
                mode: None,
            });
        } else {
            for m in ev.modes.iter() {
                if globs[name_parts].matches(m) {
                    out.push(Match {
                        event: ev.clone(),
                        mode: Some(m.clone()),
                    });
                }
            }
        }
    }
    if out.is_empty() {
        diags.push(no_match(rule, &names_matched, best_prefix));
        return out;
    }
    // Type bounds: keep the sites where each bounded variable exists with the
    // stated type (or a site-dependent type, which the bound then fixes).
    for b in &rule.bounds {
        let before = out.len();
        out.retain(
            |m| match cat.bound_var(&m.event, m.mode.as_deref(), &b.var) {
                Some(v) => v.ty.accepts_bound(&b.ty),
                None => false,
            },
        );
        if out.is_empty() && before > 0 {
            diags.push(
                Diag::error(
                    format!(
                        "no event matched by `{}` has a bound variable `{}` of type {}",
                        rule_text(rule),
                        b.var,
                        b.ty
                    ),
                    b.span,
                )
                .with_label("this type bound excludes every matched event"),
            );
            return out;
        }
    }
    out
}

/// The error for a rule that matches no event: what is wrong with it, told
/// from the events whose names it matched (`names_matched`) or, without
/// any, from the longest prefix of parts some event matched.
fn no_match(rule: &Rule, names_matched: &[&Event], best_prefix: usize) -> Diag {
    let text = rule_text(rule);
    let mut d;
    if let Some(ev) = names_matched.first() {
        let np = ev.parts.len();
        if ev.modes.is_empty() && rule.parts.len() > np {
            d = Diag::error(
                format!("probe rule `{text}` matches no event"),
                rule.parts[np].span,
            )
            .with_label(format!("`{}` has no modes", ev.name()))
            .with_note(format!("write just `{}`", ev.name()));
        } else if !ev.modes.is_empty() && rule.parts.len() == np {
            d = Diag::error(
                format!("probe rule `{text}` matches no event: a mode is missing"),
                rule.span,
            )
            .with_label("expected `:MODE` after this")
            .with_note(format!(
                "`{}` has modes {}; e.g. `{}:before`",
                ev.name(),
                ev.modes.join(", "),
                ev.name()
            ));
        } else if rule.parts.len() == np + 1 {
            let mut modes: Vec<String> = names_matched
                .iter()
                .flat_map(|e| e.modes.iter().cloned())
                .collect();
            modes.sort();
            modes.dedup();
            d = Diag::error(
                format!("probe rule `{text}` matches no event"),
                rule.parts[np].span,
            )
            .with_label("no matched event has this mode")
            .with_note(format!("modes of the matched events: {}", modes.join(", ")));
        } else {
            d = Diag::error(format!("probe rule `{text}` matches no event"), rule.span)
                .with_label("too many parts");
        }
    } else {
        let i = best_prefix.min(rule.parts.len().saturating_sub(1));
        let span = rule.parts.get(i).map(|p| p.span).unwrap_or(rule.span);
        d = Diag::error(format!("probe rule `{text}` matches no event"), span)
            .with_label(format!("no event matches this part ({})", part_role(i)));
        d = d.with_note("run `whamm info --spec 'wasm:*'` to list events and modes");
    }
    if d.span.lo == d.span.hi {
        d.span = rule.span;
    }
    d
}

fn part_role(i: usize) -> &'static str {
    ["provider", "package", "event", "mode"]
        .get(i)
        .copied()
        .unwrap_or("extra part")
}

pub fn rule_text(rule: &Rule) -> String {
    rule.parts
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn globs() {
        let g = Glob::compile("*load*|*store*").unwrap();
        assert!(g.matches("i32.load") && g.matches("I64.Store8") && !g.matches("i32.add"));
        assert!(Glob::compile("").unwrap().matches("anything"));
        assert!(Glob::compile("br?if").unwrap().matches("br_if"));
        assert!(Glob::compile("[a-c]all").unwrap().matches("call"));
        assert!(!Glob::compile("[!a-c]all").unwrap().matches("call"));
        assert!(Glob::compile("a[").is_err());
        assert!(!Glob::compile("*a*a*a*a*a*b")
            .unwrap()
            .matches(&"a".repeat(200)));
    }

    #[test]
    fn parse() {
        let mut d = vec![];
        let r = parse_rule("wasm:opcode:call(arg0: i32):before", 10, &mut d);
        assert!(d.is_empty());
        assert_eq!(r.parts.len(), 4);
        assert_eq!(r.parts[2].text, "call");
        assert_eq!(r.bounds[0].var, "arg0");
        assert_eq!(r.bounds[0].ty, Type::I32);
        let r = parse_rule("wasm::br:before", 0, &mut d);
        assert_eq!(r.parts[1].text, "");
        let cat = crate::catalog::AbiCatalog::engine();
        let m = expand(
            &parse_rule("wasm:opcode:*load*|*store*:before", 0, &mut d),
            &cat,
            &mut d,
        );
        assert!(
            m.len() > 20
                && m.iter().all(
                    |m| m.event.parts[2].contains("load") || m.event.parts[2].contains("store")
                )
        );
        let m = expand(
            &parse_rule("wasm::br|br_if|br_table:*", 0, &mut d),
            &cat,
            &mut d,
        );
        assert_eq!(m.len(), 12);
        let m = expand(
            &parse_rule("WASM:OPCODE:CALL:BEFORE", 0, &mut d),
            &cat,
            &mut d,
        );
        assert_eq!(m.len(), 1);
        assert!(d.is_empty());
        expand(
            &parse_rule("wasm:opcode:nosuch:before", 0, &mut d),
            &cat,
            &mut d,
        );
        assert_eq!(d.len(), 1);
    }
}
