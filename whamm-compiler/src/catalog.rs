//! The interface through which the front end sees the event catalogue
//! (which events exist, their modes, and their bound variables with types and
//! static-ness, L5). The catalogue itself lives in the `monitor-abi` crate;
//! this module only defines the small trait the checker and `whamm info` call
//! through, so that the compiler never carries its own copy of it.
//!
//! [`test_catalog`] is a *test double* with a handful of events, used by the
//! unit/snapshot tests (and by the CLI until the monitor-abi catalogue is
//! wired in; see `default_catalog`).

use crate::types::Type;

/// An event as the catalogue names it, e.g. parts `["wasm","opcode","call"]`
/// with modes `["before","after","alt"]`, or `["wasm","begin"]` without modes.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub parts: Vec<String>,
    pub modes: Vec<String>,
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
    fn events(&self) -> Vec<Event>;
    /// Look up one bound variable (`fid`, `arg0`, `imm1`, `local3`, ...) of
    /// `event` in `mode` (None for mode-less events).
    fn bound_var(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar>;
    /// All bound variables, for listings; families appear once (`argN`).
    fn bound_vars(&self, event: &Event, mode: Option<&str>) -> Vec<BoundVar>;
}

/// The catalogue the CLI uses.
pub fn default_catalog() -> Box<dyn EventCatalog> {
    Box::new(test_catalog())
}

// ---------------------------------------------------------------------------
// Test double.

/// A tiny catalogue for tests: a few opcodes of each kind plus the
/// non-opcode events. NOT the source of truth (that is monitor-abi).
pub fn test_catalog() -> TestCatalog {
    TestCatalog::new()
}

pub struct TestCatalog {
    ops: Vec<(&'static str, Vec<&'static str>, Vec<Option<Type>>, Vec<Type>, Vec<Option<Type>>)>,
}

const PLAIN: &[&str] = &["before", "after", "alt"];
const BLOCKY: &[&str] = &["before", "after", "alt", "entry", "exit", "semantic_after"];
const BRANCH: &[&str] = &["before", "after", "alt", "at_target"];

impl TestCatalog {
    fn new() -> Self {
        use Type::*;
        let p = |m: &[&'static str]| m.to_vec();
        // (mnemonic, modes, operand types from top (None = site-dependent), immediates, results)
        let ops = vec![
            ("call", p(BRANCH), vec![None, None, None, None], vec![U32], vec![None, None]),
            ("return_call", p(PLAIN), vec![None, None, None, None], vec![U32], vec![]),
            ("call_indirect", p(PLAIN), vec![Some(I32), None, None, None], vec![U32, U32], vec![None]),
            ("br", p(BRANCH), vec![], vec![U32], vec![]),
            ("br_if", p(BRANCH), vec![Some(I32)], vec![U32], vec![]),
            ("br_table", p(BRANCH), vec![Some(I32)], vec![U32], vec![]),
            ("i32.load", p(PLAIN), vec![Some(I32)], vec![U32, U32, U64], vec![Some(I32)]),
            ("i64.load", p(PLAIN), vec![Some(I32)], vec![U32, U32, U64], vec![Some(I64)]),
            ("i32.store", p(PLAIN), vec![Some(I32), Some(I32)], vec![U32, U32, U64], vec![]),
            ("i64.store", p(PLAIN), vec![Some(I64), Some(I32)], vec![U32, U32, U64], vec![]),
            ("i32.add", p(PLAIN), vec![Some(I32), Some(I32)], vec![], vec![Some(I32)]),
            ("i64.add", p(PLAIN), vec![Some(I64), Some(I64)], vec![], vec![Some(I64)]),
            ("i32.const", p(PLAIN), vec![], vec![I32], vec![Some(I32)]),
            ("f64.mul", p(PLAIN), vec![Some(F64), Some(F64)], vec![], vec![Some(F64)]),
            ("block", p(BLOCKY), vec![], vec![I32], vec![]),
            ("loop", p(BLOCKY), vec![], vec![I32], vec![]),
            ("if", p(BLOCKY), vec![Some(I32)], vec![I32], vec![]),
            ("nop", p(PLAIN), vec![], vec![], vec![]),
            ("drop", p(PLAIN), vec![None], vec![], vec![]),
            ("memory.grow", p(PLAIN), vec![Some(I32)], vec![U32], vec![Some(I32)]),
            ("local.get", p(PLAIN), vec![], vec![U32], vec![None]),
        ];
        TestCatalog { ops }
    }
}

fn bv(name: &str, ty: Type, is_static: bool) -> BoundVar {
    BoundVar { name: name.into(), ty: VarType::Known(ty), is_static, doc: String::new() }
}

fn numbered(name: &str, prefix: &str) -> Option<usize> {
    let rest = name.strip_prefix(prefix)?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || (rest.len() > 1 && rest.starts_with('0')) {
        return None;
    }
    rest.parse().ok()
}

impl EventCatalog for TestCatalog {
    fn events(&self) -> Vec<Event> {
        let mut v: Vec<Event> = self
            .ops
            .iter()
            .enumerate()
            .map(|(i, o)| Event { parts: vec!["wasm".into(), "opcode".into(), o.0.into()], modes: o.1.iter().map(|s| s.to_string()).collect(), key: i, doc: String::new() })
            .collect();
        let n = v.len();
        for (j, parts) in [&["wasm", "func", "entry"][..], &["wasm", "func", "exit"], &["wasm", "block", "start"], &["wasm", "block", "end"], &["wasm", "begin"], &["wasm", "end"], &["wasm", "report"]]
            .iter()
            .enumerate()
        {
            v.push(Event { parts: parts.iter().map(|s| s.to_string()).collect(), modes: vec![], key: n + j, doc: String::new() });
        }
        v
    }

    fn bound_var(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar> {
        self.lookup(event, mode, name)
    }

    fn bound_vars(&self, event: &Event, mode: Option<&str>) -> Vec<BoundVar> {
        let mut names: Vec<String> = ["fid", "pc", "fname", "opidx", "at_func_end", "opname", "category_name", "category_id", "target_fn_name", "target_fn_type", "target_imp_module", "table_entry_idx", "resolved_fid", "addr", "offset", "align", "memory", "data_size", "is_write", "effective_addr", "num_targets", "default_target", "targets", "target", "instr_count", "failed"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        names.extend(["arg0", "imm0", "res0", "local0"].iter().map(|s| s.to_string()));
        names
            .iter()
            .filter_map(|n| {
                let mut b = self.lookup(event, mode, n)?;
                for f in ["arg", "imm", "res", "local"] {
                    if n == &format!("{f}0") {
                        b.name = format!("{f}N");
                    }
                }
                Some(b)
            })
            .collect()
    }
}

impl TestCatalog {
    fn lookup(&self, event: &Event, mode: Option<&str>, name: &str) -> Option<BoundVar> {
        use Type::*;
        match name {
            "fid" | "pc" | "opidx" => return Some(bv(name, U32, true)),
            "fname" => return Some(bv(name, Str, true)),
            "at_func_end" => return Some(bv(name, Bool, true)),
            _ => {}
        }
        if numbered(name, "local").is_some() {
            return Some(BoundVar { name: name.into(), ty: VarType::SiteDependent, is_static: false, doc: String::new() });
        }
        if event.parts.len() == 3 && event.parts[1] == "block" && event.parts[2] == "end" && name == "instr_count" {
            return Some(bv(name, U32, true));
        }
        let op = self.ops.get(event.key).filter(|_| event.parts.get(1).map(|s| s.as_str()) == Some("opcode"))?;
        let m = op.0;
        match name {
            "opname" | "category_name" => return Some(bv(name, Str, true)),
            "category_id" => return Some(bv(name, U32, true)),
            _ => {}
        }
        if let Some(i) = numbered(name, "arg") {
            let t = op.2.get(i)?;
            return Some(BoundVar { name: name.into(), ty: t.clone().map(VarType::Known).unwrap_or(VarType::SiteDependent), is_static: false, doc: String::new() });
        }
        if let Some(i) = numbered(name, "imm") {
            return op.3.get(i).map(|t| bv(name, t.clone(), true));
        }
        if let Some(i) = numbered(name, "res") {
            if mode != Some("after") {
                return None;
            }
            let t = op.4.get(i)?;
            return Some(BoundVar { name: name.into(), ty: t.clone().map(VarType::Known).unwrap_or(VarType::SiteDependent), is_static: false, doc: String::new() });
        }
        let mem = m.contains("load") || m.contains("store");
        let r = match name {
            "target_fn_name" | "target_fn_type" | "target_imp_module" if m == "call" || m == "return_call" => bv(name, Str, true),
            "table_entry_idx" if m == "call_indirect" => bv(name, U32, false),
            "resolved_fid" if m == "call_indirect" => bv(name, I32, false),
            "addr" if mem => bv(name, U32, false),
            "effective_addr" if mem => bv(name, U64, false),
            "offset" if mem => bv(name, U64, true),
            "align" | "memory" | "data_size" if mem => bv(name, U32, true),
            "is_write" if mem => bv(name, Bool, true),
            "num_targets" | "default_target" if m == "br_table" => bv(name, U32, true),
            "targets" if m == "br_table" => bv(name, Map(Box::new(U32), Box::new(U32)), true),
            "target" if m == "br_table" => bv(name, U32, false),
            "failed" if m == "memory.grow" && mode == Some("after") => bv(name, Bool, false),
            _ => return None,
        };
        Some(r)
    }
}
