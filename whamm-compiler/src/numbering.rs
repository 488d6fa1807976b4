//! The probe numbers of the default report's `probe_id` column
//! (`14_wasm:opcode:call:before`), as upstream whamm gives them.
//!
//! Upstream numbers, per provider and in script order, every (package,
//! event, mode) a probe's rule expands to, taking packages, events and modes
//! in the order of its provider definitions (`upstream_events.txt`, written
//! from them by `scripts/whamm_event_order.py`): `wasm:opcode:*:before`
//! alone gives `unreachable` 0, `nop` 1, `block` 2, ... `call` 14. The
//! numbers do not depend on the app, nor on the rule's type bounds.
//!
//! An event or mode upstream does not define (an extension here) is numbered
//! after all of upstream's, in script order, so every number stays unique.
//! The rule after the number is printed as upstream's rewriting target
//! prints it: a mode by upstream's name for it (`wasm:opcode:block:after`
//! is its `semantic_after`, which a rule names `after`), and a mode-less
//! event (`wasm:func:entry`, `wasm:block:end`) with `:<no-mode>`.
//!
//! These numbers are labels in the report only: the bound variable
//! `probe_id` (what `dyninstr.remove_probe` takes) is the engine's.

use crate::check::ProbeInfo;
use crate::rules::Glob;
use std::collections::HashMap;

const UPSTREAM_EVENTS: &str = include_str!("upstream_events.txt");

/// The suffix upstream's rewriting target prints for a mode-less event.
const NO_MODE: &str = ":<no-mode>";

/// One line of `upstream_events.txt`.
struct UpEvent<'a> {
    package: &'a str,
    /// None: a package without events (`wasm:begin`).
    event: Option<&'a str>,
    /// Each mode: (the part of a rule it matches: its alias, else its name;
    /// its name).
    modes: Vec<(&'a str, &'a str)>,
}

fn upstream_events() -> Vec<UpEvent<'static>> {
    UPSTREAM_EVENTS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace();
            let package = words.next().unwrap_or("");
            let event = words.next();
            let modes = words
                .map(|m| {
                    m.split_once('=')
                        .map_or((m, m), |(name, alias)| (alias, name))
                })
                .collect();
            UpEvent {
                package,
                event,
                modes,
            }
        })
        .collect()
}

/// The (package, event, mode) names that upstream expands a rule of these
/// parts to, in its order: (as `Match::name` spells it, as upstream prints
/// it).
fn upstream_expansion(parts: &[String], table: &[UpEvent]) -> Vec<(String, String)> {
    let Ok(globs) = parts
        .iter()
        .map(|p| Glob::compile(p))
        .collect::<Result<Vec<_>, _>>()
    else {
        return vec![];
    };
    if globs.is_empty() || !globs[0].matches("wasm") {
        return vec![];
    }
    let mut out = vec![];
    for ev in table {
        if !globs.get(1).is_some_and(|g| g.matches(ev.package)) {
            continue;
        }
        let Some(event) = ev.event else {
            if globs.len() == 2 {
                let name = format!("wasm:{}", ev.package);
                out.push((name.clone(), name + NO_MODE));
            }
            continue;
        };
        if !globs.get(2).is_some_and(|g| g.matches(event)) {
            continue;
        }
        let name = format!("wasm:{}:{event}", ev.package);
        match globs.get(3) {
            None if ev.modes.is_empty() => out.push((name.clone(), name + NO_MODE)),
            Some(g) if !ev.modes.is_empty() => out.extend(
                ev.modes
                    .iter()
                    .filter(|(part, _)| g.matches(part))
                    .map(|(part, mode)| (format!("{name}:{part}"), format!("{name}:{mode}"))),
            ),
            _ => {}
        }
    }
    out
}

/// Every probe's numbers: match name -> (number, the rule as printed).
#[derive(Clone, Debug, Default)]
pub struct Numbering {
    by_probe: Vec<HashMap<String, (u32, String)>>,
}

impl Numbering {
    pub fn new(probes: &[ProbeInfo]) -> Numbering {
        let table = upstream_events();
        let mut next = 0u32;
        let mut by_probe: Vec<HashMap<String, (u32, String)>> = vec![];
        for p in probes {
            let parts: Vec<String> = p.rule.parts.iter().map(|r| r.text.clone()).collect();
            let mut numbers = HashMap::new();
            for (name, printed) in upstream_expansion(&parts, &table) {
                numbers.entry(name).or_insert_with(|| {
                    next += 1;
                    (next - 1, printed)
                });
            }
            by_probe.push(numbers);
        }
        for (p, numbers) in probes.iter().zip(by_probe.iter_mut()) {
            for m in &p.matches {
                let printed = match m.mode {
                    Some(_) => m.name(),
                    None => m.name() + NO_MODE,
                };
                numbers.entry(m.name()).or_insert_with(|| {
                    next += 1;
                    (next - 1, printed)
                });
            }
        }
        Numbering { by_probe }
    }

    /// The number of probe `pi`'s match `name`, if it has one.
    pub fn number(&self, pi: usize, name: &str) -> Option<u32> {
        Some(self.by_probe.get(pi)?.get(name)?.0)
    }

    /// The smallest number of probe `pi` (for a label no match has).
    pub fn first(&self, pi: usize) -> u32 {
        self.by_probe
            .get(pi)
            .and_then(|m| m.values().map(|(n, _)| *n).min())
            .unwrap_or(0)
    }

    /// The `probe_id` column of probe `pi`'s match `name`:
    /// `14_wasm:opcode:call:before`, `1_wasm:func:entry:<no-mode>`,
    /// `7_wasm:opcode:block:semantic_after` (a rule's `block:after`).
    pub fn label(&self, pi: usize, name: &str) -> String {
        match self.by_probe.get(pi).and_then(|m| m.get(name)) {
            Some((n, printed)) => format!("{n}_{printed}"),
            None => format!("{}_{name}", self.first(pi)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(rule: &str) -> Vec<String> {
        printed(rule).into_iter().map(|(name, _)| name).collect()
    }

    fn printed(rule: &str) -> Vec<(String, String)> {
        let parts: Vec<String> = rule.split(':').map(String::from).collect();
        upstream_expansion(&parts, &upstream_events())
    }

    #[test]
    fn opcodes_are_numbered_in_upstream_definition_order() {
        let all = expand("wasm:opcode:*:before");
        let pos = |n: &str| all.iter().position(|x| x == n);
        assert_eq!(pos("wasm:opcode:unreachable:before"), Some(0));
        assert_eq!(pos("wasm:opcode:block:before"), Some(2));
        assert_eq!(pos("wasm:opcode:end:before"), Some(9));
        assert_eq!(pos("wasm:opcode:call:before"), Some(14));
        assert_eq!(pos("wasm:opcode:local.get:before"), Some(21));
        assert_eq!(pos("wasm:opcode:i32.const:before"), Some(51));
    }

    #[test]
    fn modes_match_by_alias_and_empty_parts_are_stars() {
        assert_eq!(
            expand("wasm:opcode:block:after"),
            ["wasm:opcode:block:after"]
        );
        assert_eq!(
            expand("wasm:opcode:br:at_target"),
            ["wasm:opcode:br:at_target"]
        );
        assert!(expand("wasm:opcode:block:semantic_after").is_empty());
        assert_eq!(
            expand("wasm::*if:before"),
            ["wasm:opcode:if:before", "wasm:opcode:br_if:before"]
        );
        assert_eq!(expand("wasm:func:entry"), ["wasm:func:entry"]);
        let p = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            printed("wasm:opcode:loop:after|alt"),
            [
                p("wasm:opcode:loop:after", "wasm:opcode:loop:semantic_after"),
                p("wasm:opcode:loop:alt", "wasm:opcode:loop:block_alt")
            ]
        );
        assert_eq!(
            printed("wasm:block:end"),
            [p("wasm:block:end", "wasm:block:end:<no-mode>")]
        );
        assert_eq!(expand("wasm:begin"), ["wasm:begin"]);
        assert!(expand("other:opcode:nop:before").is_empty());
    }
}
