//! The lexer (docs/probe-language.md#lexical-structure), built with `logos`, plus a thin wrapper that handles the
//! two context-sensitive bits of the language:
//!
//! * **Probe rules.** `wasm:opcode:*load*|*store*:before` is not a sequence of
//!   expression tokens (`*load*` would be multiplications). A rule can only
//!   appear at the start of a *top-level* item, so the wrapper tracks brace
//!   depth and, at the start of every top-level item, tries to scan a rule:
//!   glob parts (`[A-Za-z0-9_.*?|]` and `[...]` classes), each optionally
//!   followed by a parenthesised type-bound list, separated by `:` with no
//!   whitespace, and containing at least one `:`. No other top-level item can
//!   start with `NAME:` so this is unambiguous. The whole rule becomes one
//!   `Tok::Rule` token; `rules.rs` parses its inside.
//! * **Predicate slashes.** `RULE / pred / { ... }`: the predicate may itself
//!   contain divisions, so after a rule the wrapper marks the opening `/` and
//!   the *last* `/` before the body's `{` as `PredOpen` / `PredClose`.
//!
//! Other decisions: a leading `-` on a literal is lexed as `Minus` and folded
//! into the literal by the parser (so `x -1` is a subtraction); `t.0.1` is
//! re-split (logos would see the float `0.1`).

use crate::diag::Diag;
use crate::span::Span;
use logos::Logos;

#[derive(Debug, Clone, PartialEq, Default)]
pub enum LexError {
    #[default]
    BadChar,
    IntTooLarge,
    BadFloat,
    BadEscape(String),
    UnterminatedString,
    UnterminatedComment,
}

impl LexError {
    pub fn message(&self, text: &str) -> String {
        match self {
            LexError::BadChar => format!(
                "unexpected character `{}`",
                text.chars().next().unwrap_or(' ').escape_debug()
            ),
            LexError::IntTooLarge => format!("integer literal `{text}` does not fit in 64 bits"),
            LexError::BadFloat => format!("malformed float literal `{text}`"),
            LexError::BadEscape(m) => m.clone(),
            LexError::UnterminatedString => "unterminated string literal".into(),
            LexError::UnterminatedComment => "unterminated block comment".into(),
        }
    }
}

fn parse_int(lex: &mut logos::Lexer<Tok>) -> Result<u64, LexError> {
    let s: String = lex.slice().chars().filter(|c| *c != '_').collect();
    let r = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        u64::from_str_radix(b, 2)
    } else {
        s.parse::<u64>()
    };
    r.map_err(|_| LexError::IntTooLarge)
}

fn parse_float(lex: &mut logos::Lexer<Tok>) -> Result<f64, LexError> {
    let s: String = lex.slice().chars().filter(|c| *c != '_').collect();
    s.parse::<f64>().map_err(|_| LexError::BadFloat)
}

fn block_comment(lex: &mut logos::Lexer<Tok>) -> Result<(), LexError> {
    let rest = lex.remainder().as_bytes();
    let mut depth = 1usize;
    let mut i = 0;
    while i < rest.len() {
        if rest[i] == b'/' && rest.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if rest[i] == b'*' && rest.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                lex.bump(i);
                return Ok(());
            }
        } else {
            i += 1;
        }
    }
    lex.bump(rest.len());
    Err(LexError::UnterminatedComment)
}

fn string_lit(lex: &mut logos::Lexer<Tok>) -> Result<String, LexError> {
    let slice = lex.slice();
    if slice.len() < 2 || !slice.ends_with('"') {
        return Err(LexError::UnterminatedString);
    }
    unescape(&slice[1..slice.len() - 1])
}

/// Decode the escapes (docs/probe-language.md#lexical-structure) inside a string literal body.
pub fn unescape(body: &str) -> Result<String, LexError> {
    let mut out = String::new();
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('\\') => out.push('\\'),
            Some('0') => out.push('\0'),
            Some('x') => {
                let h: String = it.by_ref().take(2).collect();
                match (h.len(), u8::from_str_radix(&h, 16)) {
                    (2, Ok(v)) if v < 0x80 => out.push(v as char),
                    (2, Ok(_)) => return Err(LexError::BadEscape(format!("`\\x{h}` is out of range: \\xHH escapes must be at most \\x7F (use \\u{{...}})"))),
                    _ => return Err(LexError::BadEscape(format!("`\\x{h}` is not a valid escape: expected two hex digits"))),
                }
            }
            Some('u') => {
                if it.next() != Some('{') {
                    return Err(LexError::BadEscape("`\\u` must be followed by `{HEX}`".into()));
                }
                let mut h = String::new();
                loop {
                    match it.next() {
                        Some('}') => break,
                        Some(c) if c.is_ascii_hexdigit() && h.len() < 6 => h.push(c),
                        _ => return Err(LexError::BadEscape("malformed `\\u{...}` escape: expected 1-6 hex digits and `}`".into())),
                    }
                }
                match u32::from_str_radix(&h, 16).ok().and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => return Err(LexError::BadEscape(format!("`\\u{{{h}}}` is not a Unicode scalar value"))),
                }
            }
            Some(c) => return Err(LexError::BadEscape(format!("unknown escape `\\{}` (expected one of \\n \\r \\t \\\" \\' \\\\ \\0 \\xHH \\u{{...}})", c.escape_debug()))),
            None => return Err(LexError::BadEscape("string ends in a lone `\\`".into())),
        }
    }
    Ok(out)
}

#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub enum Tok {
    #[token("/*", block_comment)]
    BlockComment,

    // ---- literals ----
    #[regex(r"[0-9][0-9_]*", parse_int)]
    #[regex(r"0[xX][0-9a-fA-F_]+", parse_int)]
    #[regex(r"0[bB][01_]+", parse_int)]
    Int(u64),
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?", parse_float)]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9]+", parse_float)]
    Float(f64),
    #[regex(r#""([^"\\\n]|\\[^\n])*"?"#, string_lit)]
    Str(String),
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("inf")]
    Inf,
    #[token("NaN")]
    NaN,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    Ident(String),

    // ---- keywords ----
    #[token("use")]
    Use,
    #[token("fn")]
    Fn,
    #[token("var")]
    Var,
    #[token("report")]
    Report,
    #[token("unshared")]
    Unshared,
    #[token("return")]
    Return,
    #[token("if")]
    If,
    #[token("elif")]
    Elif,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("for")]
    For,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("as")]
    As,
    #[token("map")]
    Map,
    /// `@static`, and whamm's `@init` (a call at probe initialization,
    /// which is when `@static` calls run here)
    #[token("@static")]
    #[token("@init")]
    AtStatic,
    #[token("u8")]
    U8,
    #[token("i8")]
    I8,
    #[token("u16")]
    U16,
    #[token("i16")]
    I16,
    #[token("u32")]
    U32,
    #[token("i32")]
    I32,
    #[token("u64")]
    U64,
    #[token("i64")]
    I64,
    #[token("f32")]
    F32,
    #[token("f64")]
    F64,
    #[token("v128")]
    V128,
    #[token("bool")]
    Bool,
    #[token("str")]
    StrTy,

    // ---- punctuation / operators ----
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("->")]
    Arrow,
    #[token("=")]
    Assign,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
    #[token("~")]
    Tilde,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
    #[token("?")]
    Question,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,

    // ---- produced by the wrapper, never by logos directly ----
    /// A whole probe rule, e.g. `wasm:opcode:call(arg0: i32):before`.
    Rule(String),
    /// The `/` opening a probe predicate.
    PredOpen,
    /// The `/` closing a probe predicate.
    PredClose,
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Int(v) => write!(f, "integer `{v}`"),
            Tok::Float(v) => write!(f, "float `{v}`"),
            Tok::Str(s) => write!(f, "string {s:?}"),
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Rule(s) => write!(f, "probe rule `{s}`"),
            other => f.write_str(&crate::parser::describe_terminal_tok(other)),
        }
    }
}

pub type Spanned = (usize, Tok, usize);

fn is_rule_part_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'*' | b'?' | b'|' | b'$')
}

/// Try to scan a probe rule starting at byte `start` of `src`; returns its
/// length. See the module comment for the shape.
pub fn scan_rule(src: &str, start: usize) -> Option<usize> {
    let b = src.as_bytes();
    let mut pos = start;
    let mut colons = 0;
    loop {
        loop {
            match b.get(pos) {
                Some(&c) if is_rule_part_char(c) => pos += 1,
                Some(b'[') => {
                    // a character class: up to the closing `]`; an unclosed
                    // one still belongs to the rule (the glob parser reports it)
                    match b[pos..]
                        .iter()
                        .position(|&c| c == b']' || c.is_ascii_whitespace() || c == b'{')
                    {
                        Some(close) if b[pos + close] == b']' => pos += close + 1,
                        Some(close) => pos += close,
                        None => pos = b.len(),
                    }
                }
                _ => break,
            }
        }
        if b.get(pos) == Some(&b'(') {
            // type bounds: `(arg0: i32, ...)`; no nested parens, may span spaces
            let close = b[pos..]
                .iter()
                .position(|&c| c == b')' || c == b'{' || c == b';')?;
            if b[pos + close] != b')' {
                return None;
            }
            pos += close + 1;
        }
        if b.get(pos) == Some(&b':') {
            colons += 1;
            pos += 1;
        } else {
            break;
        }
    }
    if colons == 0 || pos == start {
        None
    } else {
        Some(pos - start)
    }
}

/// Lex a whole file. Lexical errors are reported as diagnostics and the
/// offending text is skipped, so the parser still sees the rest.
pub fn lex(src: &str, diags: &mut Vec<Diag>) -> Vec<Spanned> {
    let mut out: Vec<Spanned> = Vec::new();
    let mut lex = Tok::lexer(src);
    let mut depth: i64 = 0; // brace depth
    let mut item_start = true;
    while let Some(res) = lex.next() {
        let span = lex.span();
        match res {
            Ok(Tok::BlockComment) => continue,
            Ok(tok) => {
                let mut tok = tok;
                let mut end = span.end;
                if depth == 0 && !matches!(tok, Tok::Str(_) | Tok::BlockComment) {
                    if let Some(len) = scan_rule(src, span.start) {
                        // Not at an item start (e.g. after a missing `;`):
                        // only take an unmistakable rule, so the parser can
                        // recover at it.
                        let confident = item_start || {
                            let text = &src[span.start..span.start + len];
                            let after = src[span.start + len..].trim_start();
                            text.matches(':').count() >= 2
                                && text.as_bytes()[0].is_ascii_alphabetic()
                                && (after.starts_with('{') || after.starts_with('/'))
                        };
                        if confident && len >= span.end - span.start {
                            lex.bump(len - (span.end - span.start));
                            end = span.start + len;
                            tok = Tok::Rule(src[span.start..end].to_string());
                        }
                    }
                }
                item_start = false;
                match tok {
                    Tok::LBrace => depth += 1,
                    Tok::RBrace => {
                        depth = (depth - 1).max(0);
                        if depth == 0 {
                            item_start = true;
                        }
                    }
                    Tok::Semi if depth == 0 => item_start = true,
                    _ => {}
                }
                // `t.0.1`: logos lexes `0.1` as a float after the dot.
                if let (Tok::Float(_), Some((_, Tok::Dot, _))) = (&tok, out.last()) {
                    let text = &src[span.start..end];
                    if let Some((a, b)) = text.split_once('.') {
                        if a.bytes().all(|c| c.is_ascii_digit())
                            && b.bytes().all(|c| c.is_ascii_digit())
                            && !b.is_empty()
                        {
                            let s = span.start;
                            out.push((s, Tok::Int(a.parse().unwrap_or(u64::MAX)), s + a.len()));
                            out.push((s + a.len(), Tok::Dot, s + a.len() + 1));
                            out.push((
                                s + a.len() + 1,
                                Tok::Int(b.parse().unwrap_or(u64::MAX)),
                                end,
                            ));
                            continue;
                        }
                    }
                }
                out.push((span.start, tok, end));
            }
            Err(e) => {
                let text = &src[span.clone()];
                diags.push(
                    Diag::error(
                        e.message(text),
                        Span::new(
                            span.start,
                            span.end.max(span.start + 1).min(src.len().max(span.start)),
                        ),
                    )
                    .with_label("lexical error"),
                );
                // Keep a placeholder token so the parser does not report a
                // second, consequential error.
                let placeholder = match e {
                    LexError::BadEscape(_) | LexError::UnterminatedString => {
                        Some(Tok::Str(String::new()))
                    }
                    LexError::IntTooLarge => Some(Tok::Int(0)),
                    LexError::BadFloat => Some(Tok::Float(0.0)),
                    _ => None,
                };
                if let Some(t) = placeholder {
                    item_start = false;
                    out.push((span.start, t, span.end));
                }
            }
        }
    }
    mark_predicates(&mut out);
    out
}

/// Turn the `/` after a rule, and the last `/` before the probe body's `{`,
/// into `PredOpen` / `PredClose`.
fn mark_predicates(toks: &mut [Spanned]) {
    let mut i = 0;
    while i < toks.len() {
        if matches!(toks[i].1, Tok::Rule(_)) && matches!(toks.get(i + 1), Some((_, Tok::Slash, _)))
        {
            toks[i + 1].1 = Tok::PredOpen;
            let mut last_slash = None;
            let mut j = i + 2;
            while j < toks.len() {
                match toks[j].1 {
                    Tok::LBrace | Tok::Semi | Tok::RBrace | Tok::Rule(_) => break,
                    Tok::Slash => last_slash = Some(j),
                    _ => {}
                }
                j += 1;
            }
            if let Some(k) = last_slash {
                toks[k].1 = Tok::PredClose;
            }
            i = j;
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut d = vec![];
        let t = lex(s, &mut d).into_iter().map(|t| t.1).collect();
        assert!(d.is_empty(), "{:?}", d);
        t
    }

    #[test]
    fn numbers() {
        assert_eq!(
            toks("1_000 0xff 0b101 1.5 1e3 inf NaN"),
            vec![
                Tok::Int(1000),
                Tok::Int(255),
                Tok::Int(5),
                Tok::Float(1.5),
                Tok::Float(1000.0),
                Tok::Inf,
                Tok::NaN
            ]
        );
        assert_eq!(toks("x = -5;")[2], Tok::Minus);
    }

    #[test]
    fn strings() {
        assert_eq!(
            toks(r#""a\n\t\"\\\x41\u{1F600}\0""#),
            vec![Tok::Str("a\n\t\"\\A\u{1F600}\0".into())]
        );
        let mut d = vec![];
        lex(r#""bad \q""#, &mut d);
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn comments_nest() {
        assert_eq!(
            toks("/* a /* b */ c */ x // y\n z"),
            vec![Tok::Ident("x".into()), Tok::Ident("z".into())]
        );
        let mut d = vec![];
        lex("/* /* */", &mut d);
        assert_eq!(d.len(), 1);
    }

    #[test]
    fn rules() {
        let t = toks("wasm:opcode:*load*|*store*:before { x = a ? b : c; }");
        assert_eq!(t[0], Tok::Rule("wasm:opcode:*load*|*store*:before".into()));
        assert!(t.contains(&Tok::Colon));
        let t = toks("x = 1; wasm:opcode:call(arg0: i32):before / arg0 / 2 == 1 / { }");
        assert_eq!(t[4], Tok::Rule("wasm:opcode:call(arg0: i32):before".into()));
        assert_eq!(t[5], Tok::PredOpen);
        assert_eq!(t[11], Tok::PredClose);
        assert_eq!(
            toks("wasm::br:before {}")[0],
            Tok::Rule("wasm::br:before".into())
        );
    }

    #[test]
    fn tuple_index() {
        assert_eq!(
            toks("t.0.1"),
            vec![
                Tok::Ident("t".into()),
                Tok::Dot,
                Tok::Int(0),
                Tok::Dot,
                Tok::Int(1)
            ]
        );
    }
}
