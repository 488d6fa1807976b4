//! Matching without translating (`Module::new_matched`) must show an
//! instrumenter exactly what the interpreter's translator shows it
//! (`Module::new_instrumented`): the same sites in the same order, with the
//! same validator state and the same `reached` flags (which decide where
//! probes attach). Checked on every module of the official test suite (the
//! versions and proposals the spec test runs), of our `.wast` files and of
//! the `.wat` files under `tests/`.

mod common;

use wizeng::error::LoadError;
use wizeng::module::Module;
use wizeng::probe::{Instrumenter, Probes, Site, When};

/// What one site looks like to an instrumenter.
#[derive(Debug, PartialEq)]
struct Seen {
    func: u32,
    when: u8,
    pc: u32,
    instr_index: u32,
    reached: bool,
    at_func_end: bool,
    height: u32,
    top: Option<Option<wasmparser::ValType>>,
}

#[derive(Default)]
struct Record {
    seen: Vec<Seen>,
    begun: Vec<(u32, usize, usize)>,
}

impl Instrumenter for Record {
    fn begin_function(&mut self, f: u32, body: &[u8], off: usize) -> Result<(), LoadError> {
        self.begun.push((f, body.len(), off));
        Ok(())
    }
    fn probes(&mut self, when: When, site: &Site<'_, '_>) -> Result<Probes, LoadError> {
        let v = site.validator;
        self.seen.push(Seen {
            func: site.func_idx,
            when: when as u8,
            pc: site.pc,
            instr_index: site.instr_index,
            reached: site.reached,
            at_func_end: site.at_func_end,
            height: v.operand_stack_height(),
            top: v.get_operand_type(0),
        });
        Ok(Probes::new())
    }
}

/// Both ways of matching agree on `bytes` (or both reject it). Returns
/// whether the module loaded.
fn check(name: &str, bytes: &[u8]) -> bool {
    let (mut a, mut b) = (Record::default(), Record::default());
    let translated = Module::new_instrumented(bytes, &mut a);
    let walked = Module::new_matched(bytes, &mut b);
    match (&translated, &walked) {
        (Ok(_), Ok(_)) => {}
        (Err(_), Err(_)) => return false,
        _ => panic!(
            "{name}: the translator says {:?}, the walk {:?}",
            translated.as_ref().err(),
            walked.as_ref().err()
        ),
    }
    assert_eq!(a.begun, b.begun, "{name}: functions begun");
    if a.seen != b.seen {
        let i = a.seen.iter().zip(&b.seen).position(|(x, y)| x != y);
        let i = i.unwrap_or(a.seen.len().min(b.seen.len()));
        panic!(
            "{name}: site {i} differs: translator {:?}, walk {:?}",
            a.seen.get(i),
            b.seen.get(i)
        );
    }
    true
}

#[test]
fn walk_sees_what_the_translator_sees() {
    let mut modules = Vec::new();
    for (key, text) in common::suite::upstream_files() {
        common::wast::modules(&key, text, &mut modules);
    }
    common::wast::repo_modules(&mut modules);
    let loaded = modules.iter().filter(|(n, b)| check(n, b)).count();
    // Most of the suite's modules are valid ones: the comparison must have
    // covered them, not only rejections.
    assert!(
        loaded > 2000,
        "only {loaded} of {} modules loaded",
        modules.len()
    );
}
