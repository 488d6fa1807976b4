//! Parsing: runs the logos lexer and the lalrpop parser, converting every
//! syntax error (including those recovered from) into a [`Diag`] that says
//! what was expected in readable words.

use crate::ast::Script;
use crate::diag::Diag;
use crate::lexer::{self, LexError, Tok};
use crate::span::Span;
use lalrpop_util::{lalrpop_mod, ErrorRecovery, ParseError};

lalrpop_mod!(
    #[allow(clippy::all, unused)]
    grammar
);

/// Readable name of a token, used in "found ..." parts of messages.
pub fn describe_terminal_tok(t: &Tok) -> String {
    let s = match t {
        Tok::Int(_) => "integer literal",
        Tok::Float(_) => "float literal",
        Tok::Str(_) => "string literal",
        Tok::Ident(_) => "identifier",
        Tok::Rule(_) => "probe rule",
        Tok::PredOpen => "`/` (start of predicate)",
        Tok::PredClose => "`/` (end of predicate)",
        Tok::BlockComment => "comment",
        Tok::True => "`true`",
        Tok::False => "`false`",
        Tok::Inf => "`inf`",
        Tok::NaN => "`NaN`",
        Tok::Use => "`use`",
        Tok::Fn => "`fn`",
        Tok::Var => "`var`",
        Tok::Report => "`report`",
        Tok::Unshared => "`unshared`",
        Tok::Return => "`return`",
        Tok::If => "`if`",
        Tok::Elif => "`elif`",
        Tok::Else => "`else`",
        Tok::While => "`while`",
        Tok::For => "`for`",
        Tok::Break => "`break`",
        Tok::Continue => "`continue`",
        Tok::As => "`as`",
        Tok::Map => "`map`",
        Tok::AtStatic => "`@static`",
        Tok::U8 => "`u8`",
        Tok::I8 => "`i8`",
        Tok::U16 => "`u16`",
        Tok::I16 => "`i16`",
        Tok::U32 => "`u32`",
        Tok::I32 => "`i32`",
        Tok::U64 => "`u64`",
        Tok::I64 => "`i64`",
        Tok::F32 => "`f32`",
        Tok::F64 => "`f64`",
        Tok::V128 => "`v128`",
        Tok::Bool => "`bool`",
        Tok::StrTy => "`str`",
        Tok::LParen => "`(`",
        Tok::RParen => "`)`",
        Tok::LBrace => "`{`",
        Tok::RBrace => "`}`",
        Tok::LBracket => "`[`",
        Tok::RBracket => "`]`",
        Tok::Comma => "`,`",
        Tok::Semi => "`;`",
        Tok::Colon => "`:`",
        Tok::Dot => "`.`",
        Tok::Arrow => "`->`",
        Tok::Assign => "`=`",
        Tok::EqEq => "`==`",
        Tok::Ne => "`!=`",
        Tok::Lt => "`<`",
        Tok::Le => "`<=`",
        Tok::Gt => "`>`",
        Tok::Ge => "`>=`",
        Tok::Shl => "`<<`",
        Tok::Shr => "`>>`",
        Tok::Plus => "`+`",
        Tok::Minus => "`-`",
        Tok::Star => "`*`",
        Tok::Slash => "`/`",
        Tok::Percent => "`%`",
        Tok::Bang => "`!`",
        Tok::Tilde => "`~`",
        Tok::Amp => "`&`",
        Tok::Pipe => "`|`",
        Tok::Caret => "`^`",
        Tok::AndAnd => "`&&`",
        Tok::OrOr => "`||`",
        Tok::Question => "`?`",
        Tok::PlusPlus => "`++`",
        Tok::MinusMinus => "`--`",
    };
    s.to_string()
}

/// Tokens that can start an expression: when all of these are expected we
/// say "an expression" instead of listing them.
const EXPR_START: &[&str] = &[
    "int", "float", "string", "ident", "true", "false", "(", "!", "~", "-",
];
const TYPE_START: &[&str] = &[
    "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64", "v128", "bool", "str",
    "map",
];
const OPERATORS: &[&str] = &[
    "&&", "||", "|", "^", "&", "==", "!=", "<", "<=", ">", ">=", "<<", ">>", "+", "-", "*", "/",
    "%", "as", "?", ".",
];

/// Turn lalrpop's list of expected terminals into readable words.
pub fn readable_expected(expected: &[String]) -> String {
    let names: Vec<String> = expected
        .iter()
        .map(|s| s.trim_matches('"').replace("\\\"", "\""))
        .collect();
    let has = |n: &str| names.iter().any(|x| x == n);
    let mut out: Vec<String> = vec![];
    let mut skip: Vec<&str> = vec![];
    let expr = EXPR_START.iter().all(|t| has(t));
    let ty = TYPE_START.iter().all(|t| has(t));
    let ops = OPERATORS.iter().filter(|t| has(t)).count() >= 8;
    if has("rule") && has("fn") && has("use") {
        out.push("a top-level item (probe rule, `fn`, `use`, declaration or statement)".into());
        skip.extend([
            "rule", "fn", "use", "var", "report", "unshared", "if", "while", "for", "return",
            "break", "continue", "@static", "inf", "NaN",
        ]);
        skip.extend(EXPR_START);
        skip.extend(TYPE_START);
    } else if expr && has("var") && has("if") {
        out.push("a statement".into());
        skip.extend([
            "var", "report", "unshared", "if", "while", "for", "return", "break", "continue",
            "@static", "inf", "NaN",
        ]);
        skip.extend(EXPR_START);
        skip.extend(TYPE_START);
    } else if expr {
        out.push("an expression".into());
        skip.extend(EXPR_START);
        skip.extend(["@static", "inf", "NaN"]);
    }
    if ty && out.is_empty() {
        out.push("a type".into());
        skip.extend(TYPE_START);
        skip.push("(");
    } else if ty {
        skip.extend(TYPE_START);
    }
    if ops {
        out.push("an operator".into());
        skip.extend(OPERATORS);
        skip.extend(["[", "(", "++", "--", "="]);
    }
    for n in &names {
        if skip.contains(&n.as_str()) {
            continue;
        }
        let s = match n.as_str() {
            "int" => "integer literal".to_string(),
            "float" => "float literal".to_string(),
            "string" => "string literal".to_string(),
            "ident" => "identifier".to_string(),
            "rule" => "probe rule".to_string(),
            "/pred" => "`/` (start of predicate)".to_string(),
            "pred/" => "`/` (end of predicate)".to_string(),
            other => format!("`{other}`"),
        };
        if !out.contains(&s) {
            out.push(s);
        }
    }
    match out.len() {
        0 => "nothing more".into(),
        1 => out.pop().unwrap(),
        _ => {
            let last = out.pop().unwrap();
            format!("{} or {}", out.join(", "), last)
        }
    }
}

pub(crate) fn parse_error_diag(e: ParseError<usize, Tok, LexError>, src_len: usize) -> Diag {
    match e {
        ParseError::InvalidToken { location } => {
            Diag::error("invalid token", Span::new(location, location + 1))
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let at = location.min(src_len);
            Diag::error(
                format!(
                    "unexpected end of file, expected {}",
                    readable_expected(&expected)
                ),
                Span::new(at, at),
            )
            .with_label(format!("expected {}", readable_expected(&expected)))
        }
        ParseError::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => {
            let exp = readable_expected(&expected);
            let mut d = Diag::error(
                format!("unexpected {}, expected {exp}", describe_terminal_tok(&t)),
                Span::new(l, r),
            )
            .with_label(format!("expected {exp}"));
            if let Tok::Rule(_) = t {
                d = d.with_note("a probe rule can only start a top-level item");
            }
            if matches!(t, Tok::Slash | Tok::PredClose) && expected.iter().any(|x| x.contains("{"))
            {
                d = d.with_note("a probe predicate is written `RULE / expr / { ... }`");
            }
            d
        }
        ParseError::ExtraToken { token: (l, t, r) } => Diag::error(
            format!("unexpected {}", describe_terminal_tok(&t)),
            Span::new(l, r),
        ),
        ParseError::User { error } => Diag::error(error.message(""), Span::new(0, 0)),
    }
}

/// Lex and parse `src`. Always returns a (possibly partial) script, plus all
/// diagnostics found.
pub fn parse(src: &str) -> (Script, Vec<Diag>) {
    let mut diags = vec![];
    let toks = lexer::lex(src, &mut diags);
    let mut recovered: Vec<ErrorRecovery<usize, Tok, LexError>> = vec![];
    let result =
        grammar::ScriptParser::new().parse(&mut recovered, toks.into_iter().map(Ok::<_, LexError>));
    for r in recovered {
        let mut d = parse_error_diag(r.error, src.len());
        // Widen the note to the dropped tokens so the user sees what was skipped.
        if let (Some(first), Some(last)) = (r.dropped_tokens.first(), r.dropped_tokens.last()) {
            let (lo, hi) = (d.span.lo, d.span.hi);
            if last.2 > hi && first.0 <= lo {
                d = d.with_secondary(Span::new(hi, last.2), "skipped while recovering");
            }
        }
        diags.push(d);
    }
    let script = match result {
        Ok(s) => s,
        Err(e) => {
            diags.push(parse_error_diag(e, src.len()));
            Script::default()
        }
    };
    let mut script = script;
    crate::nesting::limit(&mut script, &mut diags);
    crate::desugar::whamm_aliases(&mut script, &mut diags);
    salvage_decls(src, &mut script);
    dedup(&mut diags);
    (script, diags)
}

/// A declaration with a syntax error (`var x: u32 = ;`) becomes an error
/// statement; keep its *name* (with an unknown type) so that later uses of
/// the variable do not produce cascading "unknown variable" errors.
fn salvage_decls(src: &str, script: &mut Script) {
    use crate::ast::*;
    fn fix(src: &str, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Error => {
                let text = src.get(s.span.lo..s.span.hi).unwrap_or("");
                let mut ignore = vec![];
                let toks = lexer::lex(text, &mut ignore);
                let mut i = 0;
                while matches!(toks.get(i), Some((_, Tok::Report | Tok::Unshared, _))) {
                    i += 1;
                }
                let name_at = match toks.get(i) {
                    Some((_, Tok::Var, _)) => i + 1,
                    Some((_, t, _)) if is_type_kw(t) => i + 1,
                    _ => return,
                };
                if let Some((l, Tok::Ident(n), r)) = toks.get(name_at) {
                    let name = Ident {
                        name: n.clone(),
                        span: Span::new(s.span.lo + l, s.span.lo + r),
                    };
                    let ty = TypeExpr {
                        ty: crate::types::Type::Error,
                        span: name.span,
                    };
                    s.kind = StmtKind::Decl {
                        decorators: vec![],
                        name,
                        ty,
                        init: None,
                    };
                }
            }
            StmtKind::If {
                branches,
                else_block,
            } => {
                for (_, b) in branches {
                    b.stmts.iter_mut().for_each(|s| fix(src, s));
                }
                if let Some(b) = else_block {
                    b.stmts.iter_mut().for_each(|s| fix(src, s));
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => {
                body.stmts.iter_mut().for_each(|s| fix(src, s))
            }
            _ => {}
        }
    }
    for item in &mut script.items {
        match item {
            Item::Stmt(s) => fix(src, s),
            Item::Fn(f) => f.body.stmts.iter_mut().for_each(|s| fix(src, s)),
            Item::Probe(p) => p.body.stmts.iter_mut().for_each(|s| fix(src, s)),
            _ => {}
        }
    }
}

fn is_type_kw(t: &Tok) -> bool {
    matches!(
        t,
        Tok::U8
            | Tok::I8
            | Tok::U16
            | Tok::I16
            | Tok::U32
            | Tok::I32
            | Tok::U64
            | Tok::I64
            | Tok::F32
            | Tok::F64
            | Tok::V128
            | Tok::Bool
            | Tok::StrTy
            | Tok::Map
    )
}

fn dedup(diags: &mut Vec<Diag>) {
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| seen.insert((d.span.lo, d.message.clone())));
}

/// Parse a lone expression (used by tests and `whamm info`).
pub fn parse_expr(src: &str) -> Result<crate::ast::Expr, Vec<Diag>> {
    let mut diags = vec![];
    let toks = lexer::lex(src, &mut diags);
    let mut recovered = vec![];
    match grammar::ExprParser::new().parse(&mut recovered, toks.into_iter().map(Ok::<_, LexError>))
    {
        Ok(e) if diags.is_empty() && recovered.is_empty() => Ok(e),
        Ok(_) => Err(diags),
        Err(e) => {
            diags.push(parse_error_diag(e, src.len()));
            Err(diags)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{BinOp, Expr, ExprKind, UnOp};

    fn show(e: &Expr) -> String {
        match &e.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Var(n) => n.clone(),
            ExprKind::Binary(op, a, b) => format!("({} {} {})", show(a), op.symbol(), show(b)),
            ExprKind::Unary(UnOp::Neg, a) => format!("(-{})", show(a)),
            ExprKind::Unary(UnOp::Not, a) => format!("(!{})", show(a)),
            ExprKind::Unary(UnOp::BitNot, a) => format!("(~{})", show(a)),
            ExprKind::Cast(a, t) => format!("({} as {})", show(a), t.ty),
            ExprKind::Ternary(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
            ExprKind::Field(a, i, _) => format!("{}.{i}", show(a)),
            ExprKind::Index(a, i) => format!("{}[{}]", show(a), show(i)),
            other => format!("{other:?}"),
        }
    }

    fn p(s: &str) -> String {
        show(&parse_expr(s).unwrap_or_else(|d| panic!("{s}: {d:?}")))
    }

    #[test]
    fn precedence() {
        assert_eq!(p("a || b && c"), "((a || b) && c)");
        assert_eq!(p("a && b || c"), "((a && b) || c)");
        assert_eq!(p("a | b ^ c & d"), "(a | (b ^ (c & d)))");
        assert_eq!(p("a & b == c"), "(a & (b == c))");
        assert_eq!(p("a < b << 1"), "(a < (b << 1))");
        assert_eq!(p("a << b + c"), "(a << (b + c))");
        assert_eq!(p("a + b * c - d"), "((a + (b * c)) - d)");
        assert_eq!(p("-x as u32"), "(-(x as u32))");
        assert_eq!(p("!~a"), "(!(~a))");
        assert_eq!(p("x - 1"), "(x - 1)");
        assert_eq!(p("-1"), "-1");
        assert_eq!(p("c ? a : b ? d : e"), "(c ? a : (b ? d : e))");
        assert_eq!(p("a || b ? 1 : 2"), "((a || b) ? 1 : 2)");
        assert_eq!(p("m[k].0.1"), "m[k].0.1");
        assert_eq!(p("1 + 2 as u8 * 3"), "(1 + ((2 as u8) * 3))");
        let _ = BinOp::Add;
    }
}
