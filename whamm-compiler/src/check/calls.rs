//! Calls: script functions, the built-in `print`/clock functions, library
//! functions and methods, and format strings.

use super::*;

impl Checker<'_> {
    pub(super) fn call(&mut self, func: &Ident, args: &[Expr], span: Span) -> Type {
        if func.name == "rdtsc" && !self.fns.contains_key(&func.name) {
            return self.clock_call(func, args, span);
        }
        if memory::MEMORY_FNS.contains(&func.name.as_str()) && !self.fns.contains_key(&func.name) {
            return self.memory_call(func, args, span);
        }
        if BUILTINS.contains(&func.name.as_str()) && !self.fns.contains_key(&func.name) {
            self.print_call(func, args);
            return Type::Unit;
        }
        let Some(sig) = self.fns.get(&func.name).cloned() else {
            for a in args {
                self.expr(a, None);
            }
            let mut d = Diag::error(format!("unknown function `{}`", func.name), func.span)
                .with_label("not defined in this script");
            if self.libs.is_empty() {
                d = d.with_note("library functions are called as `lib.f(...)` after `use lib;`");
            } else {
                let l = self.libs.keys().next().cloned().unwrap_or_default();
                d = d.with_note(format!(
                    "to call a library function write `{l}.{}(...)`",
                    func.name
                ));
            }
            self.err(d);
            return Type::Error;
        };
        if sig.params.len() != args.len() {
            let d = arity_error(&func.name, sig.params.len(), args.len(), span);
            self.err(d.with_secondary(sig.span, "defined here"));
        }
        for (i, a) in args.iter().enumerate() {
            match sig.params.get(i) {
                Some(p) => {
                    self.expect(a, p, &format!("argument {} of `{}`", i + 1, func.name));
                }
                None => {
                    self.expr(a, None);
                }
            }
        }
        sig.ret
    }

    /// `rdtsc()`: the engine's clock, `u64` nanoseconds.
    pub(super) fn clock_call(&mut self, func: &Ident, args: &[Expr], span: Span) -> Type {
        if !args.is_empty() {
            self.err(arity_error(&func.name, 0, args.len(), span));
            for a in args {
                self.expr(a, None);
            }
        }
        self.uses_rdtsc = true;
        Type::U64
    }

    pub(super) fn print_call(&mut self, func: &Ident, args: &[Expr]) {
        let Some(first) = args.first() else {
            if func.name == "print" {
                self.err(
                    Diag::error("`print` needs at least one argument", func.span)
                        .with_note("`print(\"x = {}\", x);`"),
                );
            }
            return;
        };
        if let ExprKind::Str(fmt) = &first.kind {
            match count_placeholders(fmt) {
                Ok(n) if n != args.len() - 1 => {
                    self.err(
                        Diag::error(format!("format string has {n} placeholder(s) but {} argument(s) were given", args.len() - 1), first.span)
                            .with_label(format!("{n} `{{}}` here")),
                    );
                }
                Ok(_) => {}
                Err(m) => self.err(
                    Diag::error(format!("invalid format string: {m}"), first.span)
                        .with_note("use `{}` for a value, `{{` and `}}` for literal braces"),
                ),
            }
            for a in &args[1..] {
                let t = self.expr(a, None);
                if t == Type::Unit {
                    self.err(Diag::error("this expression has no value to print", a.span));
                }
            }
        } else {
            let t = self.expr(first, None);
            if args.len() > 1 {
                self.err(Diag::error(format!("the first argument of `{}` must be a format string literal when there are several arguments", func.name), first.span).with_label(format!("found {t}")));
                for a in &args[1..] {
                    self.expr(a, None);
                }
            } else if t == Type::Unit {
                self.err(Diag::error(
                    "this expression has no value to print",
                    first.span,
                ));
            }
        }
    }

    /// A call `lib.f(args)` of a library.
    pub(super) fn lib_call(&mut self, lib: &str, name: &Ident, args: &[Expr], span: Span) -> Type {
        let Some(sigs) = self.lib_sigs.get(lib) else {
            // Without `--lib` the signature is unknown: arguments keep their
            // own types and the call has no value (a statement only).
            if self.discarded != Some(span) {
                self.err(
                    Diag::error(
                        format!("the result type of `{lib}.{}` is unknown", name.name),
                        span,
                    )
                    .with_label("its value is used here")
                    .with_note(format!(
                        "name the library module: `whamm build --lib {lib}=path.wasm ...`"
                    )),
                );
            }
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        };
        let Some(sig) = sigs.get(&name.name) else {
            let mut known: Vec<&String> = sigs.keys().collect();
            known.sort();
            let list = known
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            self.err(
                Diag::error(
                    format!("library `{lib}` exports no function `{}`", name.name),
                    name.span,
                )
                .with_note(format!("its functions: {list}")),
            );
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        };
        if sig.params.len() != args.len() {
            let params: Vec<String> = sig.params.iter().map(|t| t.to_string()).collect();
            let what = format!("{lib}.{}", name.name);
            let d = arity_error(&what, sig.params.len(), args.len(), span);
            self.err(d.with_label(format!("expected ({})", params.join(", "))));
        }
        for (i, a) in args.iter().enumerate() {
            let want = sig.params.get(i);
            let t = self.expr(a, want);
            if let Some(w) = want {
                if !t.is_error() && wasm_repr(&t) != wasm_repr(w) {
                    self.err(
                        Diag::error(
                            format!(
                                "argument {} of `{lib}.{}` is a Wasm {w}, found {t}",
                                i + 1,
                                name.name
                            ),
                            a.span,
                        )
                        .with_label(format!("expected a value whose Wasm type is {w}"))
                        .with_note("library parameters take any language type with that Wasm representation (u8..u32, i8..i32, bool as i32; u64/i64 as i64); cast others"),
                    );
                }
            }
        }
        sig.result_type()
    }

    pub(super) fn method(&mut self, rt: &Type, recv: &Expr, name: &Ident, args: &[Expr]) -> Type {
        if rt.is_error() {
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        }
        if let ExprKind::Var(n) = &recv.kind {
            let _ = n;
        }
        if *rt != Type::Str {
            self.err(Diag::error(format!("no method `{}` on type {rt}", name.name), name.span).with_note("methods exist only on str: len, starts_with, ends_with, contains; libraries need `use lib;`"));
            for a in args {
                self.expr(a, None);
            }
            return Type::Error;
        }
        let (params, ret): (&[Type], Type) = match name.name.as_str() {
            "len" | "addr" => (&[], Type::U32),
            "starts_with" | "ends_with" | "contains" => (&[Type::Str], Type::Bool),
            _ => {
                self.err(
                    Diag::error(format!("no method `{}` on str", name.name), name.span).with_note(
                        "str methods: len(), addr(), starts_with(s), ends_with(s), contains(s)",
                    ),
                );
                for a in args {
                    self.expr(a, None);
                }
                return Type::Error;
            }
        };
        if params.len() != args.len() {
            self.err(Diag::error(
                format!(
                    "`{}` takes {} argument(s) but {} were given",
                    name.name,
                    params.len(),
                    args.len()
                ),
                name.span,
            ));
        }
        for (i, a) in args.iter().enumerate() {
            match params.get(i) {
                Some(p) => {
                    self.expect(a, p, &format!("the argument of `{}`", name.name));
                }
                None => {
                    self.expr(a, None);
                }
            }
        }
        ret
    }
}

/// Count `{}` placeholders; `{{` and `}}` are literal braces.
pub fn count_placeholders(fmt: &str) -> Result<usize, String> {
    let b: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let mut n = 0;
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            ('{', Some('{')) | ('}', Some('}')) => i += 2,
            ('{', Some('}')) => {
                n += 1;
                i += 2
            }
            ('{', _) => return Err("`{` must be followed by `}` (or written `{{`)".into()),
            ('}', _) => return Err("unmatched `}` (write `}}` for a literal brace)".into()),
            _ => i += 1,
        }
    }
    Ok(n)
}
