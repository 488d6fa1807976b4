//! The reports that only sum or rank their sites, `coverage` and `hotness`,
//! made one site at a time: from a list of sites, or while reading them from
//! the monitor's memory ([`render_from_memory`]), where a per-instruction
//! monitor on a large app has millions of sites (boa: 1.87M, 240 MB as a
//! list) and the table shows twenty.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt::Write as _;

use monitor_abi::report::ReportLayout;

use super::{memory, pct, table, Names, ReadError, Site};
use crate::core::types::InstanceId;
use crate::monitor::builtin::{Format, ReportOptions};
use crate::runtime::store::Store;

/// The report of built-in monitor `monitor` read from the memory of its
/// instance `inst` (whose module carries `layout`), in `format`: what
/// [`super::render_sites`] makes of [`memory::read_sites`], with the tables
/// of `coverage` and `hotness` made while reading.
pub fn render_from_memory(
    monitor: &str,
    store: &Store,
    inst: InstanceId,
    layout: &ReportLayout,
    names: &Names,
    o: &ReportOptions,
    format: Format,
) -> Result<Option<String>, ReadError> {
    let wanted = |s: &Site| o.filter.is_none() || o.wants(&names.name(s.fid));
    let body = match (monitor, format) {
        ("coverage", Format::Table) => {
            let mut c = Coverage::default();
            let mut wanted_fid = (u32::MAX, true);
            let mut wants = |fid: u32| {
                if o.filter.is_none() {
                    return true;
                }
                if wanted_fid.0 != fid {
                    wanted_fid = (fid, o.wants(&names.name(fid)));
                }
                wanted_fid.1
            };
            let quick = memory::visit_one_scalar(
                store,
                inst,
                layout,
                ["count", "block"],
                |event| usize::from(event == BLOCK),
                |fid, event, n| {
                    if wants(fid) {
                        c.add_count(fid, event == BLOCK, n)
                    }
                },
            )?;
            if !quick {
                memory::visit_sites(store, inst, layout, |s| {
                    if wanted(&s) {
                        c.add(&s)
                    }
                })?;
            }
            c.render(names)
        }
        ("hotness", Format::Table) => {
            let mut h = Hottest::new(o);
            memory::visit_sites(store, inst, layout, |s| {
                if wanted(&s) {
                    h.add(s)
                }
            })?;
            h.render(names)
        }
        _ => {
            let sites = memory::read_sites(store, inst, layout)?;
            return Ok(super::render_sites(
                monitor,
                sites,
                String::new(),
                names,
                o,
                format,
            ));
        }
    };
    Ok(Some(format!("--- {monitor} ---\n{body}")))
}

/// The event of a basic block's site.
const BLOCK: &str = "block:start";

/// Per function: instructions covered, instructions, blocks covered, blocks
/// (and the function the last sites were of: sites come function by
/// function, so most need no search of the map).
#[derive(Default)]
pub(super) struct Coverage {
    funcs: BTreeMap<u32, [u64; 4]>,
    last: Option<(u32, [u64; 4])>,
}

impl Coverage {
    pub(super) fn add(&mut self, s: &Site) {
        if s.event == BLOCK {
            self.add_count(s.fid, true, s.num("block"));
        } else {
            self.add_count(s.fid, false, s.num("count"));
        }
    }

    /// A site of function `fid`, a block's or an instruction's, that ran `n`
    /// times.
    pub(super) fn add_count(&mut self, fid: u32, block: bool, n: u64) {
        let e = match &mut self.last {
            Some((f, e)) if *f == fid => e,
            last => {
                if let Some((f, e)) = last.take() {
                    self.funcs.insert(f, e);
                }
                let e = self.funcs.remove(&fid).unwrap_or_default();
                &mut last.insert((fid, e)).1
            }
        };
        let i = if block { 2 } else { 0 };
        e[i + 1] += 1;
        e[i] += (n > 0) as u64;
    }

    pub(super) fn render(mut self, names: &Names) -> String {
        if let Some((f, e)) = self.last.take() {
            self.funcs.insert(f, e);
        }
        let mut rows = Vec::new();
        let mut t = [0u64; 4];
        for (fid, c) in &self.funcs {
            for i in 0..4 {
                t[i] += c[i];
            }
            rows.push(vec![
                names.get(*fid),
                format!("{}/{}", c[0], c[1]),
                pct(c[0], c[1]),
                format!("{}/{}", c[2], c[3]),
                pct(c[2], c[3]),
            ]);
        }
        let mut out = table(&["function", ">instructions", ">", ">blocks", ">"], &rows);
        let _ = writeln!(
            out,
            "instruction coverage: {} / {} ({})",
            t[0],
            t[1],
            pct(t[0], t[1])
        );
        let _ = writeln!(
            out,
            "block coverage: {} / {} ({})",
            t[2],
            t[3],
            pct(t[2], t[3])
        );
        out
    }
}

/// A site ranked by its count: more first, then in code order, then in the
/// order the sites came (the ranking of `super::ranked`).
struct Ranked<'a> {
    key: (Reverse<u64>, u32, u32, usize),
    site: Site<'a>,
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Ranked<'_> {}
impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// The most executed instruction sites, kept while the sites come: at most
/// the table's limit of them, in a heap whose top is the one to drop next.
pub(super) struct Hottest<'a> {
    limit: usize,
    zero: bool,
    top: BinaryHeap<Ranked<'a>>,
    /// Sites seen, those that never ran, and instructions executed.
    sites: usize,
    never: usize,
    total: u64,
}

impl<'a> Hottest<'a> {
    pub(super) fn new(o: &ReportOptions) -> Hottest<'a> {
        Hottest {
            limit: o.limit(),
            zero: o.zero,
            top: BinaryHeap::new(),
            sites: 0,
            never: 0,
            total: 0,
        }
    }

    pub(super) fn add(&mut self, site: Site<'a>) {
        let n = site.num("count");
        let pos = self.sites;
        self.sites += 1;
        self.total += n;
        if n == 0 {
            self.never += 1;
            if !self.zero {
                return;
            }
        }
        if self.limit == 0 {
            return;
        }
        let r = Ranked {
            key: (Reverse(n), site.fid, site.pc, pos),
            site,
        };
        if self.top.len() < self.limit {
            self.top.push(r);
        } else if self.top.peek().is_some_and(|worst| r < *worst) {
            self.top.pop();
            self.top.push(r);
        }
    }

    pub(super) fn render(self, names: &Names) -> String {
        let listed = self.sites - if self.zero { 0 } else { self.never };
        let mut note = format!("{} instruction sites", self.sites);
        if self.never > 0 && !self.zero {
            let _ = write!(note, ", {} never ran", self.never);
        }
        let shown = self.top.len();
        if shown < listed {
            let _ = write!(note, "; top {shown} shown (top=N for more, top=0 for all)");
        }
        let rows: Vec<Vec<String>> = self
            .top
            .into_sorted_vec()
            .iter()
            .map(|r| {
                let (s, n) = (&r.site, r.key.0 .0);
                vec![
                    n.to_string(),
                    pct(n, self.total),
                    names.get(s.fid),
                    names.pc(s.fid, s.pc),
                    s.event.to_string(),
                ]
            })
            .collect();
        let mut out = table(
            &[">count", ">share", "function", ">pc", "instruction"],
            &rows,
        );
        let _ = writeln!(out, "{} instructions executed; {note}", self.total);
        out
    }
}
