//! The interface through which the front end sees the event catalogue
//! (which events exist, their modes, and their bound variables with types and
//! static-ness, L5). The catalogue itself lives in the `monitor-abi` crate;
//! this module only defines the small trait the checker and `whamm info` call
//! through, so that the compiler never carries its own copy of it.
//!
//! [`AbiCatalog`] adapts `monitor_abi::catalogue()` to this trait.

use crate::types::Type;

/// An event as the catalogue names it, e.g. parts `["wasm","opcode","call"]`
/// with modes `["before","after","alt"]`, or `["wasm","begin"]` without modes.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub parts: std::rc::Rc<[String]>,
    pub modes: std::rc::Rc<[String]>,
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

pub trait EventCatalog {
    /// Every event the catalogue knows.
    fn events(&self) -> &[Event];
    /// Look up one bound variable (`fid`, `arg0`, `imm1`, `local3`, ...) of
    /// `event` in `mode` (None for mode-less events).
    fn bound_var(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar>;
    /// All bound variables, for listings; families appear once (`argN`).
    fn bound_vars(&self, event: &Event, mode: Option<&str>) -> Vec<BoundVar>;
    /// Whether the compilation target can honour `mode` of `event` (X7).
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
        AbiCatalog { target: monitor_abi::Target::Engine, events: abi_events() }
    }
    pub fn portable() -> AbiCatalog {
        AbiCatalog { target: monitor_abi::Target::Portable, events: abi_events() }
    }
    fn spec(&self, ev: &Event) -> Option<&'static monitor_abi::EventSpec> {
        monitor_abi::catalogue().get(ev.key)
    }
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
            Event { parts: parts.into(), modes: e.modes.iter().map(|m| m.mode.name().to_string()).collect::<Vec<_>>().into(), key: i, doc: String::new() }
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

fn convert_var(spec: &monitor_abi::EventSpec, v: &monitor_abi::catalogue::BoundVar, name: String) -> BoundVar {
    use monitor_abi::catalogue::VarType as V;
    let ty = match &v.ty {
        V::Lang(t) => VarType::Known(lang_type(t)),
        // ABI A4: immediates are i32, except the value of a typed constant.
        V::Immediate => match spec.event {
            Some("i64.const") => VarType::Known(Type::I64),
            Some("f32.const") => VarType::Known(Type::F32),
            Some("f64.const") => VarType::Known(Type::F64),
            Some("i32.const") => VarType::Known(Type::I32),
            _ => VarType::Known(Type::U32),
        },
        // Operand/result/local types need the site (or a context-free stack
        // effect per opcode, which monitor-abi does not expose yet).
        V::Operand | V::Result | V::Local => VarType::SiteDependent,
    };
    BoundVar { name, ty, is_static: v.timing == monitor_abi::Timing::Static, doc: String::new() }
}

impl EventCatalog for AbiCatalog {
    fn target_name(&self) -> &'static str {
        match self.target {
            monitor_abi::Target::Engine => "engine",
            monitor_abi::Target::Portable => "portable (ABI Part A)",
        }
    }

    fn events(&self) -> &[Event] {
        &self.events
    }

    fn bound_var(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar> {
        let spec = self.spec(event)?;
        let v = spec.var(name)?;
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
        let Some(spec) = self.spec(event) else { return vec![] };
        spec.vars
            .iter()
            .filter(|v| v.only_mode.is_none_or(|m| Some(m.name()) == mode))
            .map(|v| convert_var(spec, v, if v.indexed { format!("{}N", v.name) } else { v.name.to_string() }))
            .collect()
    }

    fn mode_supported(&self, event: &Event, mode: Option<&str>) -> bool {
        let Some(spec) = self.spec(event) else { return false };
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
