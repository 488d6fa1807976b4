//! The probe export-name grammar (`docs/monitor-abi.md#export-names`).
//!
//! ```text
//! pattern := "wasm:" event ws [ "/" ws call ws "/" ] ws [ "(" [ param { "," param } ] ")" ]
//! event   := "opcode:*" [mode] | "opcode:" MNEMONIC [mode] | "func:entry" | "func:exit"
//!          | "block:start" | "block:end"
//! mode    := ":after" | ":before"                       (":after" is Part B; ":before" is the default)
//! call    := IDENT "(" [ param { "," param } ] ")"        IDENT := [A-Za-z0-9_$]+
//! param   := ws ( "pc" | "fid" | "frame" | "probe_id" | "opname" | "fname"
//!          | "num_targets" | "offset" | "instr_count" | "at_func_end"
//!          | "arg" N | "imm" N | "local" N | call
//!          | "opidx" | "default_target" | "targets" | "target_fn_name"
//!          | "target_fn_type" | "target_imp_module" | "ref_func_before" | "opcode"
//!          | "argty" N | "localty" N ) ws
//! ```
//!
//! The params of the last two lines are this project's Part B additions
//! (see [`crate::params`] for what they bind).
//!
//! plus the special names `wasm:exit` and `wasm:begin` (Part B).
//!
//! Decisions where the ABI is silent (also in the crate docs):
//! * `ws` is any run of ASCII space, tab, CR or LF. Whitespace is also accepted
//!   inside an empty list (`( )`) and between a call's name and its `(`.
//! * `MNEMONIC` is `[A-Za-z0-9._]+`; it is looked up case-sensitively.
//! * `wasm:exit` / `wasm:begin` may be followed by whitespace and an empty
//!   `()`; a predicate or parameters on them are a syntax error.
//! * A `:MODE` other than `before`/`after` (e.g. `:alt`), a mode on a
//!   non-opcode event, and any other event name are *unknown events*
//!   (ignored silently, so monitors for newer engines still load) — but only
//!   when the rest of the name is syntactically valid.
//! * A call's name keeps its `$` (the export is looked up by exactly IDENT).
//! * `argN`/`immN`/`localN`: N is decimal, fits in u32; leading zeros allowed.
//! * Nested calls and misplaced params parse fine; they are rejected by
//!   [`crate::params::validate_pattern`].

use std::fmt;

use thiserror::Error;

use crate::opcode::Opcode;

/// Whether an opcode probe fires before the instruction or after it
/// completed normally (`:after`, Part B).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Before the instruction executes (the default).
    Before,
    /// After the instruction completed normally; `argN` are its results.
    After,
}

/// Which instructions an opcode event matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpcodeMatch {
    /// `opcode:*`: every instruction.
    Any,
    /// `opcode:MNEMONIC`.
    One(Opcode),
}

/// The event of a probe pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    /// `opcode:*` / `opcode:MNEMONIC`, optionally `:after`.
    Opcode {
        /// Which instructions.
        matches: OpcodeMatch,
        /// Before or after.
        mode: Mode,
    },
    /// `func:entry`
    FuncEntry,
    /// `func:exit`
    FuncExit,
    /// `block:start`
    BlockStart,
    /// `block:end`
    BlockEnd,
}

/// A static call `IDENT(params)`, evaluated at match time
/// (`docs/monitor-abi.md#static-calls`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StaticCall {
    /// The export name of the called monitor function (verbatim, incl. `$`).
    pub name: String,
    /// Its parameters.
    pub params: Vec<Param>,
}

/// One parameter of a probe or static call (`docs/monitor-abi.md#parameters`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Param {
    /// `pc`
    Pc,
    /// `fid`
    Fid,
    /// `frame`
    Frame,
    /// `probe_id`
    ProbeId,
    /// `opname`
    Opname,
    /// `fname`
    Fname,
    /// `num_targets`
    NumTargets,
    /// `offset`
    Offset,
    /// `instr_count`
    InstrCount,
    /// `at_func_end`
    AtFuncEnd,
    /// `opidx` (Part B): index of the instruction in its function.
    Opidx,
    /// `ref_func_before` (Part B): N if the instruction just before this one
    /// is `ref.func N`, else -1.
    RefFuncBefore,
    /// `opcode` (Part B): the instruction's binary opcode
    /// ([`crate::opcode::binary_opcode`]), -1 at `func:entry`.
    Opcode,
    /// `default_target` (Part B): the default label of a `br_table`.
    DefaultTarget,
    /// `targets` (Part B, static calls only): the labels of a `br_table`
    /// (without the default) as little-endian u32s in `whamm_buffer`.
    Targets,
    /// `target_fn_name` (Part B, static calls only): the called function's name.
    TargetFnName,
    /// `target_fn_type` (Part B, static calls only): `local` or `import`.
    TargetFnType,
    /// `target_imp_module` (Part B, static calls only): the import module of
    /// the called function, empty for a local function.
    TargetImpModule,
    /// `argN`
    Arg(u32),
    /// `immN`
    Imm(u32),
    /// `localN`
    Local(u32),
    /// `argtyN` (Part B): the type code of operand N (result N after).
    ArgTy(u32),
    /// `localtyN` (Part B): the type code of local N.
    LocalTy(u32),
    /// A static call whose result is passed.
    Call(StaticCall),
}

/// A parsed probe rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The event.
    pub event: Event,
    /// The `/ pred(...) /` predicate, if any.
    pub predicate: Option<StaticCall>,
    /// The probe function's parameters, in order (empty if no list).
    pub params: Vec<Param>,
}

/// What an export name means to the engine (`docs/monitor-abi.md#export-names`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ExportMeaning {
    /// A probe rule.
    Probe(Pattern),
    /// `wasm:exit`: called once when the application has finished.
    Exit,
    /// `wasm:begin`: called once before the application's entry function.
    Begin,
    /// A name that does not start with `wasm:`: ignored by matching.
    NotProbe,
}

/// The kind of a [`PatternError`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PatternErrorKind {
    /// The name is malformed: warn (or fail with `--fatal`).
    Syntax(String),
    /// Syntactically fine but names an event this ABI does not know: ignore
    /// silently.
    UnknownEvent(String),
    /// Syntactically fine but names an unknown opcode mnemonic: ignore
    /// silently.
    UnknownOpcode(String),
}

/// An export name starting with `wasm:` that is not a usable pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Error)]
#[error("column {column}: {}", kind_message(.kind))]
pub struct PatternError {
    /// 0-based byte offset in the export name of the problem.
    pub column: usize,
    /// What is wrong.
    pub kind: PatternErrorKind,
}

fn kind_message(kind: &PatternErrorKind) -> String {
    match kind {
        PatternErrorKind::Syntax(m) => m.clone(),
        PatternErrorKind::UnknownEvent(e) => format!("unknown event `{e}`"),
        PatternErrorKind::UnknownOpcode(m) => format!("unknown opcode `{m}`"),
    }
}

impl PatternError {
    /// The human-readable message (without the column).
    pub fn message(&self) -> String {
        kind_message(&self.kind)
    }

    /// True for unknown events / opcodes, which the engine ignores silently
    /// (`docs/monitor-abi.md#grammar`); false for syntax errors, which are warnings (or fatal).
    pub fn is_ignorable(&self) -> bool {
        !matches!(self.kind, PatternErrorKind::Syntax(_))
    }

    /// True for syntax errors.
    pub fn is_syntax(&self) -> bool {
        matches!(self.kind, PatternErrorKind::Syntax(_))
    }
}

/// Renders `name` and, on the next line, a caret under the error's column,
/// e.g. for a warning on stderr:
///
/// ```text
/// wasm:opcode:call(pc,,)
///                     ^ expected a parameter
/// ```
///
/// Control characters in the name are shown as `?` so the caret lines up;
/// the caret is placed by characters, not bytes.
pub fn render_caret(name: &str, err: &PatternError) -> String {
    let shown: String = name
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    let col = err.column.min(name.len());
    // Count characters before the byte column (snap to a char boundary).
    let chars_before = name.char_indices().take_while(|(i, _)| *i < col).count();
    let mut out = shown;
    out.push('\n');
    out.extend(std::iter::repeat_n(' ', chars_before));
    out.push('^');
    out.push(' ');
    out.push_str(&err.message());
    out
}

const PREFIX: &str = "wasm:";

/// Classifies an export name: probe rule, `wasm:exit`, `wasm:begin`, not a
/// `wasm:` name, or an error (syntax vs. unknown event/opcode, see
/// [`PatternError::is_ignorable`]). Never panics.
pub fn parse_export_name(name: &str) -> Result<ExportMeaning, PatternError> {
    if !name.starts_with(PREFIX) {
        return Ok(ExportMeaning::NotProbe);
    }
    let mut p = Parser {
        s: name.as_bytes(),
        pos: PREFIX.len(),
    };
    p.parse()
}

/// Parses a probe pattern (an export name that must be a probe rule).
/// `wasm:exit`/`wasm:begin` and non-`wasm:` names are errors here.
pub fn parse_pattern(name: &str) -> Result<Pattern, PatternError> {
    match parse_export_name(name)? {
        ExportMeaning::Probe(p) => Ok(p),
        ExportMeaning::NotProbe => Err(PatternError {
            column: 0,
            kind: PatternErrorKind::Syntax("expected `wasm:`".into()),
        }),
        ExportMeaning::Exit | ExportMeaning::Begin => Err(PatternError {
            column: PREFIX.len(),
            kind: PatternErrorKind::Syntax("expected a probe event".into()),
        }),
    }
}

impl std::str::FromStr for Pattern {
    type Err = PatternError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_pattern(s)
    }
}

/// The event as scanned, before looking anything up.
enum RawEvent {
    Opcode {
        mnemonic: Option<(usize, String)>,
        mode: Option<(usize, String)>,
    },
    Other {
        start: usize,
        text: String,
    },
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

fn syntax<T>(column: usize, msg: impl Into<String>) -> Result<T, PatternError> {
    Err(PatternError {
        column,
        kind: PatternErrorKind::Syntax(msg.into()),
    })
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
fn is_mnemonic(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(is_ws) {
            self.pos += 1;
        }
    }
    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(&f) {
            self.pos += 1;
        }
        // Only ASCII bytes are accepted by every predicate used here.
        std::str::from_utf8(&self.s[start..self.pos]).unwrap_or_default()
    }
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn describe_here(&self) -> String {
        match self.peek() {
            None => "end of name".to_string(),
            Some(b) if b.is_ascii_graphic() => format!("`{}`", b as char),
            Some(b) if b < 0x80 => format!("byte 0x{b:02x}"),
            Some(_) => "a non-ASCII character".to_string(),
        }
    }

    fn parse(&mut self) -> Result<ExportMeaning, PatternError> {
        let event_start = self.pos;
        let raw = self.event()?;
        let after_event = self.pos;
        self.ws();
        let mut predicate = None;
        let mut pred_pos = None;
        if self.peek() == Some(b'/') {
            pred_pos = Some(self.pos);
            self.pos += 1;
            self.ws();
            if !self.peek().is_some_and(is_ident) {
                return syntax(
                    self.pos,
                    format!("expected a predicate call, found {}", self.describe_here()),
                );
            }
            predicate = Some(self.call()?);
            self.ws();
            if !self.eat(b'/') {
                return syntax(
                    self.pos,
                    format!(
                        "expected `/` to close the predicate, found {}",
                        self.describe_here()
                    ),
                );
            }
            self.ws();
        }
        let mut params = Vec::new();
        let mut params_pos = None;
        if self.peek() == Some(b'(') {
            params_pos = Some(self.pos);
            params = self.param_list()?;
            self.ws();
        }
        if self.pos < self.s.len() {
            let what = if predicate.is_none() && params_pos.is_none() {
                "expected `/`, `(` or end of name"
            } else if params_pos.is_none() {
                "expected `(` or end of name"
            } else {
                "expected end of name"
            };
            return syntax(self.pos, format!("{what}, found {}", self.describe_here()));
        }
        // Syntax is fine; now resolve the event.
        let event = match raw {
            RawEvent::Other { start, text } => match text.as_str() {
                "func:entry" => Event::FuncEntry,
                "func:exit" => Event::FuncExit,
                "block:start" => Event::BlockStart,
                "block:end" => Event::BlockEnd,
                "exit" | "begin" => {
                    if let Some(col) = pred_pos {
                        return syntax(col, format!("`wasm:{text}` takes no predicate"));
                    }
                    if let (Some(col), false) = (params_pos, params.is_empty()) {
                        return syntax(col + 1, format!("`wasm:{text}` takes no parameters"));
                    }
                    return Ok(if text == "exit" {
                        ExportMeaning::Exit
                    } else {
                        ExportMeaning::Begin
                    });
                }
                _ => {
                    return Err(PatternError {
                        column: start,
                        kind: PatternErrorKind::UnknownEvent(text),
                    })
                }
            },
            RawEvent::Opcode { mnemonic, mode } => {
                let mode = match mode {
                    None => Mode::Before,
                    Some((_, m)) if m == "before" => Mode::Before,
                    Some((_, m)) if m == "after" => Mode::After,
                    Some((_, _)) => {
                        let text =
                            String::from_utf8_lossy(&self.s[event_start..after_event]).into_owned();
                        return Err(PatternError {
                            column: event_start,
                            kind: PatternErrorKind::UnknownEvent(text),
                        });
                    }
                };
                let matches = match mnemonic {
                    None => OpcodeMatch::Any,
                    Some((col, m)) => match Opcode::from_mnemonic(&m) {
                        Some(op) => OpcodeMatch::One(op),
                        None => {
                            return Err(PatternError {
                                column: col,
                                kind: PatternErrorKind::UnknownOpcode(m),
                            })
                        }
                    },
                };
                Event::Opcode { matches, mode }
            }
        };
        Ok(ExportMeaning::Probe(Pattern {
            event,
            predicate,
            params,
        }))
    }

    /// Scans the event (syntax only).
    fn event(&mut self) -> Result<RawEvent, PatternError> {
        let start = self.pos;
        let first = self.take_while(is_word);
        if first.is_empty() {
            return syntax(
                self.pos,
                format!("expected an event name, found {}", self.describe_here()),
            );
        }
        if first == "opcode" {
            if !self.eat(b':') {
                return syntax(
                    self.pos,
                    format!(
                        "expected `:` after `opcode`, found {}",
                        self.describe_here()
                    ),
                );
            }
            let mnemonic = if self.eat(b'*') {
                None
            } else {
                let col = self.pos;
                let mut m = self.take_while(is_mnemonic).to_string();
                // Wizard's names of the nullable forms have a space.
                if matches!(m.as_str(), "ref.test" | "ref.cast")
                    && self.s[self.pos..].starts_with(b" null")
                {
                    self.pos += 5;
                    m.push_str(" null");
                }
                if m.is_empty() {
                    return syntax(
                        col,
                        format!(
                            "expected an opcode mnemonic or `*`, found {}",
                            self.describe_here()
                        ),
                    );
                }
                Some((col, m))
            };
            let mode = if self.eat(b':') {
                let col = self.pos;
                let m = self.take_while(is_word);
                if m.is_empty() {
                    return syntax(
                        col,
                        format!("expected a mode (`after`), found {}", self.describe_here()),
                    );
                }
                Some((col, m.to_string()))
            } else {
                None
            };
            return Ok(RawEvent::Opcode { mnemonic, mode });
        }
        let mut text = first.to_string();
        while self.peek() == Some(b':') {
            self.pos += 1;
            let part = self.take_while(is_word);
            if part.is_empty() {
                return syntax(
                    self.pos,
                    format!(
                        "expected an event name after `:`, found {}",
                        self.describe_here()
                    ),
                );
            }
            text.push(':');
            text.push_str(part);
        }
        Ok(RawEvent::Other { start, text })
    }

    /// `IDENT "(" [ param { "," param } ] ")"`, at an IDENT.
    fn call(&mut self) -> Result<StaticCall, PatternError> {
        let name = self.take_while(is_ident).to_string();
        self.ws();
        if self.peek() != Some(b'(') {
            return syntax(
                self.pos,
                format!(
                    "expected `(` after `{name}`, found {}",
                    self.describe_here()
                ),
            );
        }
        let params = self.param_list()?;
        Ok(StaticCall { name, params })
    }

    /// `"(" [ param { "," param } ] ")"`, at the `(`.
    fn param_list(&mut self) -> Result<Vec<Param>, PatternError> {
        self.pos += 1; // '('
        let mut params = Vec::new();
        self.ws();
        if self.eat(b')') {
            return Ok(params);
        }
        loop {
            self.ws();
            params.push(self.param()?);
            self.ws();
            if self.eat(b',') {
                continue;
            }
            if self.eat(b')') {
                return Ok(params);
            }
            return syntax(
                self.pos,
                format!("expected `,` or `)`, found {}", self.describe_here()),
            );
        }
    }

    fn param(&mut self) -> Result<Param, PatternError> {
        let start = self.pos;
        if !self.peek().is_some_and(is_ident) {
            return syntax(
                start,
                format!("expected a parameter, found {}", self.describe_here()),
            );
        }
        let word = self.take_while(is_ident);
        let save = self.pos;
        self.ws();
        if self.peek() == Some(b'(') {
            self.pos = start;
            return Ok(Param::Call(self.call()?));
        }
        self.pos = save;
        let p = match Param::SIMPLE.iter().find(|p| p.keyword() == word) {
            Some(p) => p.clone(),
            None => {
                let indexed = [
                    ("arg", Param::Arg as fn(u32) -> Param),
                    ("imm", Param::Imm),
                    ("local", Param::Local),
                    ("argty", Param::ArgTy),
                    ("localty", Param::LocalTy),
                ];
                let mut found = None;
                for (prefix, ctor) in indexed {
                    if let Some(digits) = word.strip_prefix(prefix) {
                        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                            match digits.parse::<u32>() {
                                Ok(n) => found = Some(ctor(n)),
                                Err(_) => {
                                    return syntax(
                                        start + prefix.len(),
                                        format!("index `{digits}` is too large"),
                                    )
                                }
                            }
                        } else if digits.is_empty() {
                            return syntax(
                                start + prefix.len(),
                                format!("expected an index after `{prefix}`"),
                            );
                        }
                    }
                }
                match found {
                    Some(p) => p,
                    None => return syntax(start, format!("unknown parameter `{word}`")),
                }
            }
        };
        Ok(p)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Before => "before",
            Mode::After => "after",
        })
    }
}

impl fmt::Display for Event {
    /// Canonical form without the `wasm:` prefix; `:before` is omitted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Opcode { matches, mode } => {
                f.write_str("opcode:")?;
                match matches {
                    OpcodeMatch::Any => f.write_str("*")?,
                    OpcodeMatch::One(op) => f.write_str(op.mnemonic())?,
                }
                if *mode == Mode::After {
                    f.write_str(":after")?;
                }
                Ok(())
            }
            Event::FuncEntry => f.write_str("func:entry"),
            Event::FuncExit => f.write_str("func:exit"),
            Event::BlockStart => f.write_str("block:start"),
            Event::BlockEnd => f.write_str("block:end"),
        }
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, params: &[Param]) -> fmt::Result {
    f.write_str("(")?;
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{p}")?;
    }
    f.write_str(")")
}

impl fmt::Display for StaticCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        write_list(f, &self.params)
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Arg(n)
            | Param::Imm(n)
            | Param::Local(n)
            | Param::ArgTy(n)
            | Param::LocalTy(n) => write!(f, "{}{n}", self.keyword()),
            Param::Call(c) => write!(f, "{c}"),
            _ => f.write_str(self.keyword()),
        }
    }
}

impl fmt::Display for Pattern {
    /// Canonical form: `wasm:EVENT[/CALL/][(P,...)]`, no whitespace, the
    /// parameter list omitted when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wasm:{}", self.event)?;
        if let Some(pred) = &self.predicate {
            write!(f, "/{pred}/")?;
        }
        if !self.params.is_empty() {
            write_list(f, &self.params)?;
        }
        Ok(())
    }
}

impl fmt::Display for ExportMeaning {
    /// The canonical export name (empty for [`ExportMeaning::NotProbe`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportMeaning::Probe(p) => write!(f, "{p}"),
            ExportMeaning::Exit => f.write_str("wasm:exit"),
            ExportMeaning::Begin => f.write_str("wasm:begin"),
            ExportMeaning::NotProbe => Ok(()),
        }
    }
}
