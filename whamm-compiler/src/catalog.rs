//! The interface through which the front end sees the event catalogue
//! (which events exist, their modes, and their bound variables with types and
//! static-ness, docs/probe-language.md#bound-variables). The catalogue itself lives in the `monitor-abi` crate;
//! this module only defines the small trait the checker and `whamm info` call
//! through, so that the compiler never carries its own copy of it.
//!
//! [`AbiCatalog`] adapts `monitor_abi::catalogue()` to this trait.

use crate::types::Type;

/// An event as the catalogue names it, e.g. parts `["wasm","opcode","call"]`
/// with modes `["before","after","alt"]`, or `["wasm","begin"]` without modes.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub parts: std::sync::Arc<[String]>,
    pub modes: std::sync::Arc<[String]>,
    /// Catalogue-private identity (e.g. an opcode index).
    pub key: usize,
    pub doc: String,
}

impl Event {
    pub fn name(&self) -> String {
        self.parts.join(":")
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum VarType {
    Known(Type),
    /// The type depends on the site (e.g. `arg0` of `call`, `localN`): a probe
    /// that uses it must state it with a rule type bound `(arg0: i32)`.
    SiteDependent,
    /// An operand/result whose Wasm type is fixed by the instruction
    /// (`arg0` of `i64.add`): the natural language type (`i32`, `i64`, `f32`,
    /// `f64`, `v128`); a type bound may pick another type of the same Wasm
    /// representation (`(arg0: u32)`, `(arg1: bool)`).
    Wasm(Type),
}

impl VarType {
    /// Whether a type bound `(name: bound)` accepts a variable of this type.
    pub fn accepts_bound(&self, bound: &Type) -> bool {
        match self {
            VarType::Known(t) => t == bound,
            VarType::SiteDependent => true,
            VarType::Wasm(t) => same_repr(t, bound),
        }
    }
}

/// Same Wasm value type for a fixed-type operand (`i32` ~ `u32`/`u8`/`bool`...).
fn same_repr(natural: &Type, bound: &Type) -> bool {
    match natural {
        Type::I32 => matches!(
            bound,
            Type::U8 | Type::I8 | Type::U16 | Type::I16 | Type::U32 | Type::I32 | Type::Bool
        ),
        Type::I64 => matches!(bound, Type::U64 | Type::I64),
        t => t == bound,
    }
}

/// The context-free stack effect of an opcode (`i32.add: [i32 i32] -> [i32]`),
/// from `monitor_abi::stack_effect` without context; `None` for instructions
/// whose operand types depend on the site (calls, locals, `drop`, branches...).
pub fn context_free_effect(op: monitor_abi::Opcode) -> Option<monitor_abi::StackEffect> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    thread_local! {
        static CACHE: RefCell<HashMap<u16, Option<monitor_abi::StackEffect>>> = RefCell::new(HashMap::new());
    }
    if let Some(e) = CACHE.with(|c| c.borrow().get(&op.index()).cloned()) {
        return e;
    }
    // Decode one instance of the instruction (with zero immediates where it
    // needs them) and ask the ABI crate for its stack effect.
    // (`v128.const` needs a shape and lanes, `i8x16.shuffle` 16 lane indices)
    let m = op.mnemonic();
    let bodies = [
        m.to_string(),
        format!("{m} 0"),
        format!("{m} i64x2 0 0"),
        format!("{m}{}", " 0".repeat(16)),
    ];
    let effect = bodies.iter().find_map(|body| {
        let bytes = wat::parse_str(format!(
            "(module (memory 1) (table 1 funcref) (func {body}))"
        ))
        .ok()?;
        for payload in monitor_abi::wasmparser::Parser::new(0).parse_all(&bytes) {
            if let Ok(monitor_abi::wasmparser::Payload::CodeSectionEntry(b)) = payload {
                let mut r = b.get_operators_reader().ok()?;
                let o = r.read().ok()?;
                if monitor_abi::opcode_of(&o) != op {
                    return None;
                }
                return monitor_abi::stack_effect(&o, &monitor_abi::stack::NoContext);
            }
        }
        None
    });
    CACHE.with(|c| c.borrow_mut().insert(op.index(), effect.clone()));
    effect
}

fn wasm_lang_type(t: monitor_abi::wasmparser::ValType) -> Option<Type> {
    use monitor_abi::wasmparser::ValType as W;
    match t {
        W::I32 => Some(Type::I32),
        W::I64 => Some(Type::I64),
        W::F32 => Some(Type::F32),
        W::F64 => Some(Type::F64),
        W::V128 => Some(Type::V128),
        _ => None,
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BoundVar {
    /// Name, or a family like `argN` in listings.
    pub name: String,
    pub ty: VarType,
    /// Known at match time (usable in the static part of a predicate).
    pub is_static: bool,
    pub doc: String,
}

/// `Sync`: the compiler runs on a thread of its own (see
/// [`crate::on_compiler_stack`]) and borrows the catalogue there.
pub trait EventCatalog: Sync {
    /// Every event the catalogue knows.
    fn events(&self) -> &[Event];
    /// Look up one bound variable (`fid`, `arg0`, `imm1`, `local3`, ...) of
    /// `event` in `mode` (None for mode-less events).
    fn bound_var(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar>;
    /// All bound variables, for listings; families appear once (`argN`).
    fn bound_vars(&self, event: &Event, mode: Option<&str>) -> Vec<BoundVar>;
    /// Whether the compilation target can honour `mode` of `event` (docs/probe-language.md#modes).
    fn mode_supported(&self, event: &Event, mode: Option<&str>) -> bool;
    /// The target's name in diagnostics.
    fn target_name(&self) -> &'static str {
        "engine"
    }
}

/// The catalogue the CLI and the tests use: the monitor-abi one.
pub fn default_catalog() -> Box<dyn EventCatalog> {
    Box::new(AbiCatalog::engine())
}

/// `monitor_abi::catalogue()` seen through [`EventCatalog`], for one target.
pub struct AbiCatalog {
    target: monitor_abi::Target,
    events: Vec<Event>,
}

impl AbiCatalog {
    pub fn engine() -> AbiCatalog {
        AbiCatalog {
            target: monitor_abi::Target::Engine,
            events: abi_events(),
        }
    }
    pub fn portable() -> AbiCatalog {
        AbiCatalog {
            target: monitor_abi::Target::Portable,
            events: abi_events(),
        }
    }
    fn spec(&self, ev: &Event) -> Option<&'static monitor_abi::EventSpec> {
        monitor_abi::catalogue().get(ev.key)
    }
}

/// `arg12` -> 12 (no leading zeros).
fn indexed(name: &str, prefix: &str) -> Option<u32> {
    let d = name.strip_prefix(prefix)?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) || d.len() > 1 && d.starts_with('0') {
        return None;
    }
    d.parse().ok()
}

fn abi_events() -> Vec<Event> {
    monitor_abi::catalogue()
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut parts = vec![e.provider.to_string(), e.package.to_string()];
            if let Some(ev) = e.event {
                parts.push(ev.to_string());
            }
            Event {
                parts: parts.into(),
                modes: e
                    .modes
                    .iter()
                    .map(|m| m.mode.name().to_string())
                    .collect::<Vec<_>>()
                    .into(),
                key: i,
                doc: String::new(),
            }
        })
        .collect()
}

fn lang_type(t: &monitor_abi::LangType) -> Type {
    use monitor_abi::LangType as L;
    match t {
        L::U8 => Type::U8,
        L::I8 => Type::I8,
        L::U16 => Type::U16,
        L::I16 => Type::I16,
        L::U32 => Type::U32,
        L::I32 => Type::I32,
        L::U64 => Type::U64,
        L::I64 => Type::I64,
        L::F32 => Type::F32,
        L::F64 => Type::F64,
        L::Bool => Type::Bool,
        L::Str => Type::Str,
        L::Map(k, v) => Type::Map(Box::new(lang_type(k)), Box::new(lang_type(v))),
    }
}

fn convert_var(
    spec: &monitor_abi::EventSpec,
    v: &monitor_abi::catalogue::BoundVar,
    name: String,
) -> BoundVar {
    use monitor_abi::catalogue::VarType as V;
    let ty = match &v.ty {
        V::Lang(t) => VarType::Known(lang_type(t)),
        // docs/monitor-abi.md#parameters: immediates are i32, except the value of a typed constant.
        V::Immediate => match spec.event {
            Some("i64.const") => VarType::Known(Type::I64),
            Some("f32.const") => VarType::Known(Type::F32),
            Some("f64.const") => VarType::Known(Type::F64),
            Some("i32.const") => VarType::Known(Type::I32),
            _ => VarType::Known(Type::U32),
        },
        // Operand/result types: fixed by the instruction where its stack
        // effect is context-free; local types always need the site.
        V::Operand | V::Result => VarType::SiteDependent,
        V::Local => VarType::SiteDependent,
    };
    BoundVar {
        name,
        ty,
        is_static: v.timing == monitor_abi::Timing::Static,
        doc: String::new(),
    }
}

impl EventCatalog for AbiCatalog {
    fn target_name(&self) -> &'static str {
        match self.target {
            monitor_abi::Target::Engine => "engine",
            monitor_abi::Target::Portable => "portable (ABI Part A, docs/monitor-abi.md#part-a)",
        }
    }

    fn events(&self) -> &[Event] {
        &self.events
    }

    fn bound_var(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar> {
        let spec = self.spec(event)?;
        // Operands and results of an instruction with a context-free stack
        // effect have known types, and exist only up to its operand/result
        // count. `resN` (the results, mode `after`) exists for every opcode
        // (the catalogue's, docs/monitor-abi.md#events: `:after` probes receive results).
        if let (Some(op), Some(n)) = (
            spec.opcode,
            indexed(name, "arg").or_else(|| indexed(name, "res")),
        ) {
            let is_res = name.starts_with("res");
            if is_res && mode != Some("after") {
                return None;
            }
            if let Some(eff) = context_free_effect(op) {
                let t = if is_res { eff.result(n) } else { eff.arg(n) };
                let ty = wasm_lang_type(t?)?;
                return Some(BoundVar {
                    name: name.to_string(),
                    ty: VarType::Wasm(ty),
                    is_static: false,
                    doc: String::new(),
                });
            }
            // The top operand of these is an i32 whatever the context (a
            // condition, a branch index, a table32 element index), so
            // existing scripts like `wasm:opcode:br_if:before { arg0 }`
            // need no type bound.
            if !is_res
                && n == 0
                && matches!(
                    op.mnemonic(),
                    "br_if"
                        | "if"
                        | "br_table"
                        | "select"
                        | "call_indirect"
                        | "return_call_indirect"
                )
            {
                return Some(BoundVar {
                    name: name.to_string(),
                    ty: VarType::Wasm(Type::I32),
                    is_static: false,
                    doc: String::new(),
                });
            }
        }
        let v = spec.var(name)?;
        // The engine passes no immediate that is a `v128` (its sites would
        // silently not match, docs/monitor-abi.md#site-rules): the value of
        // `v128.const` is its result, `res0` in mode `after`.
        if spec.event == Some("v128.const") && indexed(name, "imm").is_some() {
            return None;
        }
        if let Some(only) = v.only_mode {
            if mode != Some(only.name()) {
                return None;
            }
        }
        if v.indexed {
            // `arg01` is not `arg1`
            let digits = &name[v.name.len()..];
            if digits.len() > 1 && digits.starts_with('0') {
                return None;
            }
        }
        Some(convert_var(spec, v, name.to_string()))
    }

    fn bound_vars(&self, event: &Event, mode: Option<&str>) -> Vec<BoundVar> {
        let Some(spec) = self.spec(event) else {
            return vec![];
        };
        spec.vars
            .iter()
            .filter(|v| v.only_mode.is_none_or(|m| Some(m.name()) == mode))
            .filter(|v| !(spec.event == Some("v128.const") && v.name == "imm"))
            .map(|v| {
                convert_var(
                    spec,
                    v,
                    if v.indexed {
                        format!("{}N", v.name)
                    } else {
                        v.name.to_string()
                    },
                )
            })
            .collect()
    }

    fn mode_supported(&self, event: &Event, mode: Option<&str>) -> bool {
        let Some(spec) = self.spec(event) else {
            return false;
        };
        let m = match mode {
            None => None,
            Some(m) => match monitor_abi::ProbeMode::from_name(m) {
                Some(m) => Some(m),
                None => return false,
            },
        };
        spec.supported(m, self.target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every SIMD instruction fixes its operand and result types, so its
    /// `argN`/`resN` are typed (`v128` where the instruction says so) without
    /// a type bound.
    #[test]
    fn simd_operands_are_typed() {
        let simd: Vec<monitor_abi::Opcode> = monitor_abi::Opcode::all()
            .filter(|o| matches!(o.proposal(), "simd" | "relaxed_simd"))
            .collect();
        assert!(simd.len() >= 236);
        let untyped: Vec<&str> = simd
            .iter()
            .filter(|o| context_free_effect(**o).is_none())
            .map(|o| o.mnemonic())
            .collect();
        assert!(untyped.is_empty(), "no stack effect: {untyped:?}");
        let cat = AbiCatalog::engine();
        let ev = |name: &str| {
            cat.events()
                .iter()
                .find(|e| e.name() == name)
                .unwrap()
                .clone()
        };
        let ty = |e: &str, mode: &str, v: &str| cat.bound_var(&ev(e), Some(mode), v).map(|b| b.ty);
        let v128 = Some(VarType::Wasm(Type::V128));
        assert_eq!(ty("wasm:opcode:i32x4.add", "before", "arg1"), v128);
        assert_eq!(ty("wasm:opcode:i32x4.add", "before", "arg2"), None);
        assert_eq!(ty("wasm:opcode:v128.const", "after", "res0"), v128);
        assert_eq!(ty("wasm:opcode:i8x16.shuffle", "after", "res0"), v128);
        assert_eq!(ty("wasm:opcode:v128.store", "before", "arg0"), v128);
        assert_eq!(
            ty("wasm:opcode:v128.store", "before", "arg1"),
            Some(VarType::Wasm(Type::I32))
        );
        assert_eq!(
            ty("wasm:opcode:i32x4.extract_lane", "after", "res0"),
            Some(VarType::Wasm(Type::I32))
        );
        assert!(VarType::Wasm(Type::V128).accepts_bound(&Type::V128));
        assert!(!VarType::Wasm(Type::V128).accepts_bound(&Type::U32));
    }
}
