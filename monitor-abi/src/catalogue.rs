//! The event catalogue of the probe language (`.mm` scripts,
//! `docs/probe-language.md#probe-rules` and `#bound-variables`): providers, packages, events, modes and bound variables, with which
//! modes each compilation target supports.
//!
//! It is data ([`catalogue`]) plus small query helpers; rule globbing is left
//! to the compiler. Every rule of the `wasm` provider is
//! `wasm:PACKAGE[:EVENT[:MODE]]`:
//!
//! | package | events | modes |
//! |---|---|---|
//! | `opcode` | every opcode ([`Opcode::all`], named by [`Opcode::event_name`]) | `before`, `after`, `alt`; block-structured also `entry`, `exit`, `semantic_after`; branches also `at_target` |
//! | `func` | `entry`, `exit` | none |
//! | `block` | `start`, `end` | none |
//! | `begin`, `end`, `report`, `exit` | none | none |
//!
//! Target support: on the [`Target::Engine`] target (wizeng, ABI Parts A+B)
//! `before` and `after` opcode modes, `func:*`, `block:*`, `begin`, `end`,
//! `report`, `exit` work; on [`Target::Portable`] (Part A only) everything but
//! `after` and `begin`. `alt`, `entry`, `exit` (mode), `semantic_after`,
//! `at_target` are in the language but no target supports them yet: a
//! compiler must report them as errors. `exit` (package) is an alias of `end`:
//! both compile to the ABI's `wasm:exit` export; `report` also runs there.

use std::sync::OnceLock;

use crate::opcode::{Category, Opcode};
use crate::params::Timing;
use crate::pattern::{Event, Mode, OpcodeMatch};

/// A type of the probe language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LangType {
    /// `u8`
    U8,
    /// `i8`
    I8,
    /// `u16`
    U16,
    /// `i16`
    I16,
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `u64`
    U64,
    /// `i64`
    I64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `bool`
    Bool,
    /// `str`
    Str,
    /// `map<K, V>`
    Map(&'static LangType, &'static LangType),
}

impl std::fmt::Display for LangType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            LangType::U8 => "u8",
            LangType::I8 => "i8",
            LangType::U16 => "u16",
            LangType::I16 => "i16",
            LangType::U32 => "u32",
            LangType::I32 => "i32",
            LangType::U64 => "u64",
            LangType::I64 => "i64",
            LangType::F32 => "f32",
            LangType::F64 => "f64",
            LangType::Bool => "bool",
            LangType::Str => "str",
            LangType::Map(k, v) => return write!(f, "map<{k}, {v}>"),
        };
        f.write_str(s)
    }
}

/// The type of a bound variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VarType {
    /// A fixed language type.
    Lang(LangType),
    /// `argN`: the type of operand N (see [`crate::stack::stack_effect`]).
    Operand,
    /// `resN`: the type of result N.
    Result,
    /// `immN`: the type of immediate N (see [`crate::opcode::flatten_immediates`]).
    Immediate,
    /// `localN`: the declared type of local N.
    Local,
}

/// A variable a probe body / predicate can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoundVar {
    /// Name, or the prefix of an indexed family (`arg` for `arg0`, `arg1`...).
    pub name: &'static str,
    /// True for `argN`, `immN`, `localN`, `resN`.
    pub indexed: bool,
    /// Its type.
    pub ty: VarType,
    /// Static (decided at match time) or dynamic.
    pub timing: Timing,
    /// Only meaningful in this mode (e.g. `resN`, `failed` in `after`).
    pub only_mode: Option<ProbeMode>,
}

/// A probe mode of the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProbeMode {
    /// `before`
    Before,
    /// `after`
    After,
    /// `alt` (replace the instruction)
    Alt,
    /// `entry` (block-structured: entering the block body)
    Entry,
    /// `exit` (block-structured: leaving the block)
    Exit,
    /// `semantic_after`
    SemanticAfter,
    /// `at_target` (branches: at the branch target)
    AtTarget,
}

impl ProbeMode {
    /// The mode's name in a rule.
    pub fn name(self) -> &'static str {
        match self {
            ProbeMode::Before => "before",
            ProbeMode::After => "after",
            ProbeMode::Alt => "alt",
            ProbeMode::Entry => "entry",
            ProbeMode::Exit => "exit",
            ProbeMode::SemanticAfter => "semantic_after",
            ProbeMode::AtTarget => "at_target",
        }
    }

    /// Parses a mode name (ASCII case-insensitive).
    pub fn from_name(s: &str) -> Option<ProbeMode> {
        let all = [
            ProbeMode::Before,
            ProbeMode::After,
            ProbeMode::Alt,
            ProbeMode::Entry,
            ProbeMode::Exit,
            ProbeMode::SemanticAfter,
            ProbeMode::AtTarget,
        ];
        all.into_iter().find(|m| m.name().eq_ignore_ascii_case(s))
    }
}

/// A compilation target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// wizeng: monitor ABI Parts A and B.
    Engine,
    /// Any Part A engine (`--portable`).
    Portable,
}

/// A mode of an event and which targets support it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModeSpec {
    /// The mode.
    pub mode: ProbeMode,
    /// Supported on the engine target.
    pub engine: bool,
    /// Supported on the portable target.
    pub portable: bool,
}

impl ModeSpec {
    /// Whether `target` supports this mode.
    pub fn supported(&self, target: Target) -> bool {
        match target {
            Target::Engine => self.engine,
            Target::Portable => self.portable,
        }
    }
}

/// What an event compiles to in the monitor ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AbiHook {
    /// A probe export with this event.
    Probe(Event),
    /// The `wasm:exit` export.
    Exit,
    /// The `wasm:begin` export.
    Begin,
}

/// One event of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSpec {
    /// Always `wasm`.
    pub provider: &'static str,
    /// `opcode`, `func`, `block`, `begin`, `end`, `report`, `exit`.
    pub package: &'static str,
    /// The event (mnemonic, `entry`, ...), `None` for two-part rules.
    pub event: Option<&'static str>,
    /// The opcode, for `opcode` events.
    pub opcode: Option<Opcode>,
    /// Modes; empty for events without a mode part.
    pub modes: Vec<ModeSpec>,
    /// For events without modes: supported on the engine target.
    pub engine: bool,
    /// For events without modes: supported on the portable target.
    pub portable: bool,
    /// Bound variables.
    pub vars: Vec<BoundVar>,
}

impl EventSpec {
    /// The rule text `wasm:package[:event][:mode]`.
    pub fn rule(&self, mode: Option<ProbeMode>) -> String {
        let mut s = format!("{}:{}", self.provider, self.package);
        if let Some(e) = self.event {
            s.push(':');
            s.push_str(e);
        }
        if let Some(m) = mode {
            s.push(':');
            s.push_str(m.name());
        }
        s
    }

    /// The spec of `mode`, if the event has it.
    pub fn mode(&self, mode: ProbeMode) -> Option<&ModeSpec> {
        self.modes.iter().find(|m| m.mode == mode)
    }

    /// Whether `target` supports this event in `mode` (`None` for modeless
    /// events; for events with modes `None` means `before`).
    pub fn supported(&self, mode: Option<ProbeMode>, target: Target) -> bool {
        if self.modes.is_empty() {
            return mode.is_none()
                && match target {
                    Target::Engine => self.engine,
                    Target::Portable => self.portable,
                };
        }
        self.mode(mode.unwrap_or(ProbeMode::Before))
            .is_some_and(|m| m.supported(target))
    }

    /// Looks up a bound variable by name; `arg3` finds the `arg` family.
    pub fn var(&self, name: &str) -> Option<&BoundVar> {
        self.vars.iter().find(|v| {
            if v.indexed {
                name.strip_prefix(v.name)
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            } else {
                v.name == name
            }
        })
    }

    /// What the event compiles to in the ABI for `mode` on the engine target,
    /// `None` if no ABI hook exists (unsupported mode).
    pub fn abi_hook(&self, mode: Option<ProbeMode>) -> Option<AbiHook> {
        match (self.package, self.event) {
            ("opcode", _) => {
                let op = self.opcode?;
                let m = match mode.unwrap_or(ProbeMode::Before) {
                    ProbeMode::Before => Mode::Before,
                    ProbeMode::After => Mode::After,
                    _ => return None,
                };
                Some(AbiHook::Probe(Event::Opcode {
                    matches: OpcodeMatch::One(op),
                    mode: m,
                }))
            }
            ("func", Some("entry")) => Some(AbiHook::Probe(Event::FuncEntry)),
            ("func", Some("exit")) => Some(AbiHook::Probe(Event::FuncExit)),
            ("block", Some("start")) => Some(AbiHook::Probe(Event::BlockStart)),
            ("block", Some("end")) => Some(AbiHook::Probe(Event::BlockEnd)),
            ("begin", None) => Some(AbiHook::Begin),
            ("end" | "exit" | "report", None) => Some(AbiHook::Exit),
            _ => None,
        }
    }
}

const fn var(name: &'static str, ty: LangType, timing: Timing) -> BoundVar {
    BoundVar {
        name,
        indexed: false,
        ty: VarType::Lang(ty),
        timing,
        only_mode: None,
    }
}
const fn family(name: &'static str, ty: VarType, timing: Timing) -> BoundVar {
    BoundVar {
        name,
        indexed: true,
        ty,
        timing,
        only_mode: None,
    }
}

const S: Timing = Timing::Static;
const D: Timing = Timing::Dynamic;

/// Variables bound in every probe.
pub const COMMON_VARS: &[BoundVar] = &[
    var("fid", LangType::U32, S),
    var("pc", LangType::U32, S),
    var("fname", LangType::Str, S),
    var("opidx", LangType::U32, S),
    var("at_func_end", LangType::Bool, S),
    var("probe_id", LangType::U32, S),
    family("local", VarType::Local, D),
];

/// Variables bound in every opcode probe.
pub const OPCODE_VARS: &[BoundVar] = &[
    var("opname", LangType::Str, S),
    var("category_name", LangType::Str, S),
    var("category_id", LangType::U32, S),
    var("bytecode", LangType::U16, S),
    family("arg", VarType::Operand, D),
    family("imm", VarType::Immediate, S),
];

/// The number of bytes a load/store accesses, from its mnemonic
/// (`i64.load32_u` → 4, `v128.load8x8_s` → 8, `v128.load16_lane` → 2).
/// `None` for instructions without a memarg.
pub fn data_size(op: Opcode) -> Option<u32> {
    if !op.has_memarg() {
        return None;
    }
    let m = op.mnemonic();
    let (ty, rest) = m.split_once('.')?;
    let rest = rest.strip_prefix("atomic.").unwrap_or(rest);
    let natural = match ty {
        "i64" | "f64" => 8,
        "v128" => 16,
        _ => 4, // i32, f32, memory.atomic.notify
    };
    // The first word of the operation (`load8`, `rmw16`, `load8x8`, `wait64`)
    // minus its letters is the access width in bits, if any.
    let word = rest.split(['_', '.']).next().unwrap_or("");
    let width = word.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if width.is_empty() {
        return Some(natural);
    }
    match width.split_once('x') {
        Some((a, b)) => Some(a.parse::<u32>().ok()? * b.parse::<u32>().ok()? / 8),
        None => Some(width.parse::<u32>().ok()? / 8),
    }
}

fn opcode_spec(op: Opcode) -> EventSpec {
    let mnemonic = op.mnemonic();
    let mut modes = vec![
        ModeSpec {
            mode: ProbeMode::Before,
            engine: true,
            portable: true,
        },
        ModeSpec {
            mode: ProbeMode::After,
            engine: true,
            portable: false,
        },
        ModeSpec {
            mode: ProbeMode::Alt,
            engine: false,
            portable: false,
        },
    ];
    if op.is_block_structured() {
        for mode in [ProbeMode::Entry, ProbeMode::Exit, ProbeMode::SemanticAfter] {
            modes.push(ModeSpec {
                mode,
                engine: false,
                portable: false,
            });
        }
    }
    if op.is_branch() {
        modes.push(ModeSpec {
            mode: ProbeMode::AtTarget,
            engine: false,
            portable: false,
        });
    }
    let mut vars: Vec<BoundVar> = COMMON_VARS.iter().chain(OPCODE_VARS).copied().collect();
    // Part B: an `:after` probe receives the instruction's results.
    vars.push(BoundVar {
        only_mode: Some(ProbeMode::After),
        ..family("res", VarType::Result, D)
    });
    if matches!(mnemonic, "call" | "return_call") {
        vars.push(var("target_fn_name", LangType::Str, S));
        vars.push(var("target_fn_type", LangType::Str, S));
        vars.push(var("target_imp_module", LangType::Str, S));
    }
    if matches!(mnemonic, "call_indirect" | "return_call_indirect") {
        vars.push(var("table_entry_idx", LangType::U32, D));
        vars.push(var("resolved_fid", LangType::I32, D));
    }
    // the function a `ref.func` names (static), the one `table.get` reads
    if mnemonic == "ref.func" {
        vars.push(var("resolved_fid", LangType::I32, S));
    }
    if mnemonic == "table.get" {
        vars.push(var("resolved_fid", LangType::I32, D));
    }
    // a funcref operand: known only when `ref.func N` made it just before
    if matches!(mnemonic, "call_ref" | "return_call_ref" | "table.set") {
        vars.push(var("resolved_fid", LangType::I32, S));
    }
    if op.has_memarg() {
        vars.push(var("addr", LangType::U32, D));
        vars.push(var("offset", LangType::U64, S));
        vars.push(var("align", LangType::U32, S));
        vars.push(var("memory", LangType::U32, S));
        vars.push(var("data_size", LangType::U32, S));
        vars.push(var("is_write", LangType::Bool, S));
        vars.push(var("effective_addr", LangType::U64, D));
    }
    if mnemonic == "br_table" {
        vars.push(var("num_targets", LangType::U32, S));
        vars.push(var("default_target", LangType::U32, S));
        vars.push(var(
            "targets",
            LangType::Map(&LangType::U32, &LangType::U32),
            S,
        ));
        vars.push(var("target", LangType::U32, D));
    }
    if mnemonic == "memory.grow" {
        vars.push(BoundVar {
            only_mode: Some(ProbeMode::After),
            ..var("failed", LangType::Bool, D)
        });
    }
    EventSpec {
        provider: "wasm",
        package: "opcode",
        event: Some(op.event_name()),
        opcode: Some(op),
        modes,
        engine: true,
        portable: true,
        vars,
    }
}

fn simple(
    package: &'static str,
    event: Option<&'static str>,
    engine: bool,
    portable: bool,
    vars: Vec<BoundVar>,
) -> EventSpec {
    EventSpec {
        provider: "wasm",
        package,
        event,
        opcode: None,
        modes: Vec::new(),
        engine,
        portable,
        vars,
    }
}

/// The whole catalogue: every opcode event (in [`Opcode::all`] order), then
/// `func:entry`, `func:exit`, `block:start`, `block:end`, `begin`, `end`,
/// `report`, `exit`.
pub fn catalogue() -> &'static [EventSpec] {
    static CAT: OnceLock<Vec<EventSpec>> = OnceLock::new();
    CAT.get_or_init(|| {
        let mut v: Vec<EventSpec> = Opcode::all().map(opcode_spec).collect();
        let common = COMMON_VARS.to_vec();
        v.push(simple("func", Some("entry"), true, true, common.clone()));
        v.push(simple("func", Some("exit"), true, true, common.clone()));
        v.push(simple("block", Some("start"), true, true, common.clone()));
        let mut end_vars = common;
        end_vars.push(var("instr_count", LangType::U32, S));
        v.push(simple("block", Some("end"), true, true, end_vars));
        v.push(simple("begin", None, true, false, Vec::new()));
        v.push(simple("end", None, true, true, Vec::new()));
        v.push(simple("report", None, true, true, Vec::new()));
        v.push(simple("exit", None, true, true, Vec::new()));
        v
    })
}

/// Finds an event by package and event name (exact; opcode events as in
/// [`Opcode::event_name`]).
pub fn find_event(package: &str, event: Option<&str>) -> Option<&'static EventSpec> {
    catalogue()
        .iter()
        .find(|e| e.package == package && e.event == event)
}

/// The catalogue entry of an opcode event.
pub fn opcode_event(op: Opcode) -> Option<&'static EventSpec> {
    catalogue().iter().find(|e| e.opcode == Some(op))
}

/// All package names of the `wasm` provider.
pub const PACKAGES: &[&str] = &["opcode", "func", "block", "begin", "end", "report", "exit"];

/// The categories bound by `category_name` / `category_id` (re-exported for
/// convenience).
pub fn categories() -> &'static [Category] {
    &Category::ALL
}
