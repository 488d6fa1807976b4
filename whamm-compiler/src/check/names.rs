//! Names: locals, globals and the probe's bound variables, with the notes
//! that explain an unknown or misused one.

use super::*;

impl Checker<'_> {
    pub(super) fn lookup_var(&self, n: &str) -> Option<VarInfo> {
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.get(n) {
                return Some(v.clone());
            }
        }
        if let Some(g) = self.globals.get(n) {
            if self.ctx != Ctx::TopLevel || self.declared_globals.contains(n) {
                return Some(g.clone());
            }
        }
        None
    }

    /// A hint for `argN`/`resN` that no matched event provides.
    pub(super) fn operand_note(&self, n: &str) -> Option<String> {
        if self.ctx != Ctx::Probe {
            return None;
        }
        if n.starts_with("imm")
            && self
                .matches
                .iter()
                .any(|m| m.event.parts.last().is_some_and(|p| p == "v128.const"))
        {
            return Some(
                "`v128.const` binds no immediates: its value is a v128, `res0` in mode `after`"
                    .into(),
            );
        }
        let (fam, digits) = if let Some(d) = n.strip_prefix("arg") {
            ("arg", d)
        } else {
            ("res", n.strip_prefix("res")?)
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let m = self.matches.first()?;
        if fam == "res" && m.mode.as_deref() != Some("after") {
            return Some(format!(
                "`{n}` (a result) is only available in mode `after`, e.g. `{}:after`",
                m.event.name()
            ));
        }
        let count = (0..16)
            .take_while(|i| {
                self.cat
                    .bound_var(&m.event, m.mode.as_deref(), &format!("{fam}{i}"))
                    .is_some()
            })
            .count();
        let what = if fam == "arg" { "operand" } else { "result" };
        Some(match count {
            0 => format!("`{}` has no {what}s", m.name()),
            1 => format!("`{}` has 1 {what}: `{fam}0`", m.name()),
            c => format!(
                "`{}` has {c} {what}s: `{fam}0` to `{fam}{}`",
                m.name(),
                c - 1
            ),
        })
    }

    pub(super) fn bound_lookup_quiet(&mut self, n: &str) -> bool {
        if self.ctx != Ctx::Probe || self.matches.is_empty() {
            return false;
        }
        if let Some(b) = self.bound_cache.get(n) {
            return *b;
        }
        let b = self
            .matches
            .iter()
            .any(|m| self.cat.bound_var(&m.event, m.mode.as_deref(), n).is_some());
        self.bound_cache.insert(n.to_string(), b);
        b
    }

    /// Resolve a bound variable across all matched events.
    pub(super) fn bound(&mut self, n: &str, span: Span) -> Option<Type> {
        if self.ctx != Ctx::Probe {
            return None;
        }
        if self.matches.is_empty() {
            // the rule itself failed; don't cascade
            return Some(Type::Error);
        }
        if let Some(b) = self.used_bound.get(n) {
            return Some(b.ty.clone());
        }
        if !self.bound_lookup_quiet(n) {
            return None;
        }
        let mut ty: Option<Type> = None;
        let mut is_static = true;
        let mut missing = None;
        let mut first_site: Option<(Type, String)> = None;
        let mut found = false;
        for m in &self.matches {
            match self.cat.bound_var(&m.event, m.mode.as_deref(), n) {
                None => {
                    if missing.is_none() {
                        missing = Some(m.name());
                    }
                }
                Some(v) => {
                    found = true;
                    is_static &= v.is_static;
                    let t = match v.ty {
                        VarType::Known(t) => t,
                        VarType::Wasm(t) => self.bounds.get(n).cloned().unwrap_or(t),
                        VarType::SiteDependent => match self.bounds.get(n) {
                            Some(b) => b.clone(),
                            None => {
                                self.err(
                                    Diag::error(
                                        format!("the type of `{n}` depends on the probed site"),
                                        span,
                                    )
                                    .with_label("type unknown here")
                                    .with_note(format!(
                                        "add a type bound to the rule, e.g. `{}({n}: i32)`",
                                        m.event.name()
                                    )),
                                );
                                return Some(Type::Error);
                            }
                        },
                    };
                    match &first_site {
                        None => first_site = Some((t.clone(), m.name())),
                        Some((t0, site0)) if *t0 != t && !self.bounds.contains_key(n) => {
                            let (t0, site0) = (t0.clone(), site0.clone());
                            self.err(
                                Diag::error(format!("`{n}` has different types across the matched events"), span)
                                    .with_label(format!("{t0} at `{site0}`, but {t} at `{}`", m.name()))
                                    .with_note(format!("add a type bound to the rule, e.g. `({n}: {t0})`, to match only one of them")),
                            );
                            return Some(Type::Error);
                        }
                        _ => {}
                    }
                    ty = Some(t);
                }
            }
        }
        if !found {
            return None;
        }
        if let Some(site) = missing {
            self.err(
                Diag::error(format!("bound variable `{n}` is not available on every matched event"), span)
                    .with_label(format!("not provided by `{site}`"))
                    .with_note("narrow the probe rule, or add a type bound for it to match only events that provide it"),
            );
            return Some(Type::Error);
        }
        let t = ty.unwrap_or(Type::Error);
        self.used_bound.insert(
            n.to_string(),
            BoundInfo {
                ty: t.clone(),
                is_static,
            },
        );
        Some(t)
    }

    /// A variable: local, bound or global; else an error with a hint.
    pub(super) fn var_type(&mut self, n: &str, span: Span) -> Type {
        if let Some(v) = self.lookup_var(n) {
            return v.ty;
        }
        if let Some(t) = self.bound(n, span) {
            return t;
        }
        if self.globals.contains_key(n) && self.ctx == Ctx::TopLevel {
            let decl = self.globals[n].span;
            self.err(
                Diag::error(format!("global `{n}` is used before its declaration"), span)
                    .with_secondary(decl, "declared here"),
            );
            return Type::Error;
        }
        let mut d = Diag::error(format!("unknown variable `{n}`"), span)
            .with_label("not found in this scope");
        if self.fns.contains_key(n) || BUILTINS.contains(&n) {
            d = d.with_note(format!("`{n}` is a function; call it with `{n}(...)`"));
        } else if self.libs.contains_key(n) {
            d = d.with_note(format!(
                "`{n}` is a library; call its functions with `{n}.f(...)`"
            ));
        } else if self.ctx == Ctx::Func && self.is_any_bound_name(n) {
            d = d.with_note("bound variables are only available in probes; pass it to the function as an argument");
        } else if let Some(note) = self.operand_note(n) {
            d = d.with_note(note);
        } else if let Some(s) = self.similar(n) {
            d = d.with_note(format!("did you mean `{s}`?"));
        }
        self.err(d);
        Type::Error
    }

    pub(super) fn is_any_bound_name(&self, n: &str) -> bool {
        ["fid", "pc", "fname", "opidx", "at_func_end", "opname"].contains(&n)
            || n.starts_with("arg")
            || n.starts_with("imm")
            || n.starts_with("local")
    }

    pub(super) fn similar(&self, n: &str) -> Option<String> {
        let mut names: Vec<&String> = self.globals.keys().collect();
        for s in &self.scopes {
            names.extend(s.keys());
        }
        names
            .into_iter()
            .filter(|c| edit_distance(c, n) <= 2 && c.len() > 2)
            .min_by_key(|c| edit_distance(c, n))
            .cloned()
    }
}

pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 || a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            cur[j] = (prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(prev[j - 1] + usize::from(a[i - 1] != b[j - 1]));
        }
        prev = cur;
    }
    prev[b.len()]
}
