//! A report's sites and their variables' values, as read from the CSV a
//! monitor printed ([`super::csv`]) or from its memory ([`super::memory`]).

use std::fmt;

use smallvec::SmallVec;

/// One matched site of a monitor and its report variables.
#[derive(Clone, Debug, Default)]
pub struct Site<'a> {
    pub fid: u32,
    pub pc: u32,
    /// The matched event: an opcode mnemonic (`i32.add`), or `block:start`.
    pub event: &'a str,
    /// The probe id the rows name (`0_wasm:opcode:i32.add:before`).
    pub(super) probe: &'a str,
    /// `(name, value)` in the order the rows came; a later row of the same
    /// variable replaces the earlier value.
    pub vars: SmallVec<[(&'a str, Val<'a>); 2]>,
}

/// A report variable's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val<'a> {
    /// As the CSV report printed it.
    Text(&'a str),
    /// A scalar read from the monitor's memory.
    Num(Num),
    /// A map read from the monitor's memory: its entries sorted by key.
    Map(Vec<(Num, Num)>),
}

/// A scalar read from memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// `u32` or `u64`.
    U(u64),
    /// `i32` or `i64`.
    I(i64),
    Bool(bool),
}

impl Num {
    /// What parsing its printed text as a `u64` gives.
    pub fn as_u64(self) -> Option<u64> {
        match self {
            Num::U(v) => Some(v),
            Num::I(v) => u64::try_from(v).ok(),
            Num::Bool(_) => None,
        }
    }

    /// What parsing its printed text as an `i64` gives.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Num::U(v) => i64::try_from(v).ok(),
            Num::I(v) => Some(v),
            Num::Bool(_) => None,
        }
    }
}

/// As the report prints it.
impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::U(v) => write!(f, "{v}"),
            Num::I(v) => write!(f, "{v}"),
            Num::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// As the report prints it (a map: `k->v;k->v`, or `empty map`).
impl fmt::Display for Val<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Text(t) => f.write_str(t),
            Val::Num(n) => n.fmt(f),
            Val::Map(es) if es.is_empty() => f.write_str("empty map"),
            Val::Map(es) => {
                for (i, (k, v)) in es.iter().enumerate() {
                    let sep = if i > 0 { ";" } else { "" };
                    write!(f, "{sep}{k}->{v}")?;
                }
                Ok(())
            }
        }
    }
}

impl<'a> Site<'a> {
    /// A site without variables yet; `probe` is its probe id.
    pub fn new(fid: u32, pc: u32, probe: &'a str) -> Site<'a> {
        Site::of_event(fid, pc, probe, event_of(probe))
    }

    /// [`Site::new`] with the probe's event known ([`event_of`]).
    pub(super) fn of_event(fid: u32, pc: u32, probe: &'a str, event: &'a str) -> Site<'a> {
        Site {
            fid,
            pc,
            event,
            probe,
            vars: SmallVec::new(),
        }
    }

    /// The value of report variable `var`.
    pub fn var(&self, var: &str) -> Option<&Val<'a>> {
        self.vars.iter().find(|(k, _)| *k == var).map(|(_, v)| v)
    }

    /// A numeric variable (0 when missing or not a number).
    pub fn num(&self, var: &str) -> u64 {
        match self.var(var) {
            Some(Val::Text(t)) => t.parse().unwrap_or(0),
            Some(Val::Num(n)) => n.as_u64().unwrap_or(0),
            _ => 0,
        }
    }

    /// Whether a `bool` variable is `true`.
    pub fn flag(&self, var: &str) -> bool {
        match self.var(var) {
            Some(Val::Text(t)) => *t == "true",
            Some(Val::Num(n)) => *n == Num::Bool(true),
            _ => false,
        }
    }

    /// A map variable (`k->v;k->v`, or `empty map`) as (key, count) pairs.
    pub fn map(&self, var: &str) -> Vec<(i64, u64)> {
        match self.var(var) {
            Some(Val::Text(v)) => v
                .split(';')
                .filter_map(|kv| {
                    let (k, v) = kv.split_once("->")?;
                    Some((k.trim().parse().ok()?, v.trim().parse().ok()?))
                })
                .collect(),
            Some(Val::Map(es)) => es
                .iter()
                .filter_map(|(k, v)| Some((k.as_i64()?, v.as_u64()?)))
                .collect(),
            _ => vec![],
        }
    }

    pub(super) fn set(&mut self, name: &'a str, value: Val<'a>) {
        match self.vars.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name, value)),
        }
    }
}

/// The event of a probe id: `96_wasm:opcode:i32.add:before` is `i32.add`,
/// `1_wasm:block:start:<no-mode>` (a mode-less event, as whamm prints it)
/// is `block:start`.
pub(super) fn event_of(probe: &str) -> &str {
    let event = probe.split_once('_').map_or(probe, |(_, r)| r);
    let event = event.strip_prefix("wasm:").unwrap_or(event);
    let event = event.strip_prefix("opcode:").unwrap_or(event);
    let event = event.strip_suffix(":<no-mode>").unwrap_or(event);
    event.strip_suffix(":before").unwrap_or(event)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_event_of_a_probe_id_drops_number_provider_package_and_mode() {
        for (probe, event) in [
            ("96_wasm:opcode:i32.add:before", "i32.add"),
            ("0_wasm:opcode:i32.add:after", "i32.add:after"),
            ("1280_wasm:block:start:<no-mode>", "block:start"),
            ("3_wasm:block:start", "block:start"),
        ] {
            assert_eq!(super::event_of(probe), event, "{probe}");
        }
    }
}
