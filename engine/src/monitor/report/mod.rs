//! Reports people read: the built-in monitors' reports (the sites and values
//! of whamm's CSV report, docs/probe-language.md#report-format) turned into
//! aligned tables, with function names from the app's name section.
//!
//! The session reads a built-in monitor's sites from its memory
//! ([`read_sites`], docs/monitor-abi.md#report-layout) and hands them to
//! [`render_sites`] with the monitor's name, the app's function names and the
//! report options ([`render_from_memory`] does both; the tables that only
//! sum or rank, `coverage` and `hotness`, it makes while reading). Without a layout, the monitor prints the CSV at
//! `wasm:exit`; the session captures it and hands it to [`render`], which
//! parses it ([`parse`]: one row per site and report variable; a site is
//! `(fid, pc, probe)`, and its variables are collected into one [`Site`]).

mod csv;
mod memory;
mod site;
mod summaries;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::monitor::builtin::{Format, ReportOptions};
pub use csv::parse;
pub use memory::{read_sites, visit_sites, ReadError};
pub use site::{Num, Site, Val};
pub use summaries::render_from_memory;

/// Function names and source locations for reports.
pub struct Names<'a> {
    /// The app's name section.
    pub names: &'a HashMap<u32, String>,
    /// The app's DWARF line table, if it has one.
    pub lines: Option<&'a super::dwarf::LineTable>,
}

impl Names<'_> {
    pub fn get(&self, fid: u32) -> String {
        self.name(fid).into_owned()
    }

    /// The name of function `fid` (`func[N]` if it has none), borrowed
    /// when it can be.
    pub fn name(&self, fid: u32) -> Cow<'_, str> {
        match self.names.get(&fid) {
            Some(n) => Cow::Borrowed(n),
            None => Cow::Owned(format!("func[{fid}]")),
        }
    }

    /// `file:line` of a site, when the app has line information for it.
    pub fn source(&self, fid: u32, pc: u32) -> Option<String> {
        let (file, line) = self.lines?.location(fid, pc)?;
        Some(format!("{file}:{line}"))
    }

    /// A site's pc column: `+pc`, followed by its source location if known.
    fn pc(&self, fid: u32, pc: u32) -> String {
        match self.source(fid, pc) {
            Some(at) => format!("+{pc} {at}"),
            None => format!("+{pc}"),
        }
    }
}

/// Render the report of built-in monitor `monitor` from its captured output,
/// in `format` (`Csv`: the output as it is, not copied).
pub fn render<'a>(
    monitor: &str,
    output: &'a str,
    names: &Names,
    o: &ReportOptions,
    format: Format,
) -> Cow<'a, str> {
    if monitor == "profile" {
        return Cow::Owned(super::profile::render(output, names, o, format));
    }
    if matches!(format, Format::Csv | Format::Folded | Format::Flamegraph) {
        return Cow::Borrowed(output);
    }
    let (sites, other) = parse(output);
    match render_sites(monitor, sites, other, names, o, format) {
        Some(text) => Cow::Owned(text),
        None => Cow::Borrowed(output),
    }
}

/// Render the report of built-in monitor `monitor` from its sites (parsed
/// from its output, or read from its memory) and the other lines it printed,
/// in `format` (not `Csv`); `None` for a monitor without a report of sites.
pub fn render_sites(
    monitor: &str,
    mut sites: Vec<Site>,
    other: String,
    names: &Names,
    o: &ReportOptions,
    format: Format,
) -> Option<String> {
    if o.filter.is_some() {
        sites.retain(|s| o.wants(&names.name(s.fid)));
    }
    match format {
        Format::Json => return Some(json(monitor, &sites, names)),
        Format::Dot => return Some(calls_dot(&sites, names)),
        Format::Lcov => return Some(lcov(&sites, names)),
        _ => {}
    }
    let mut out = other;
    let body = match monitor {
        "coverage" => coverage(&sites, names),
        "hotness" => hotness(&sites, names, o),
        "branches" => branches(&sites, names, o),
        "calls" => calls(&sites, names, o),
        "loops" => loops(&sites, names, o),
        "memory" => memory(&sites, names, o),
        "imix" => imix(&sites),
        _ => return None,
    };
    let _ = writeln!(out, "--- {monitor} ---");
    out.push_str(&body);
    Some(out)
}

/// An aligned table: a header row, then rows; columns whose header starts
/// with `>` are right-aligned (the `>` is not printed).
/// A JSON string literal.
pub(super) fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_str(&mut out, s);
    out
}

/// Append `s` to `out` as a JSON string literal.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    // Runs of characters that need no escape are copied whole.
    let mut from = 0;
    for (i, c) in s.char_indices() {
        let esc = matches!(c, '"' | '\\') || (c as u32) < 0x20;
        if !esc {
            continue;
        }
        out.push_str(&s[from..i]);
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
        from = i + c.len_utf8();
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// `{"monitor": .., "sites": [{"function", "fid", "pc", "event", "vars": {..}}]}`;
/// a variable is a JSON number when it is one, else a string. Written in
/// place (a per-instruction report has 10k sites or more).
fn json(monitor: &str, sites: &[Site], names: &Names) -> String {
    let mut out = String::with_capacity(64 + sites.len() * 128);
    out.push_str("{\"monitor\": ");
    push_json_str(&mut out, monitor);
    out.push_str(", \"sites\": [");
    // consecutive sites are mostly in one function: its name is escaped once
    let mut name: Option<(u32, String)> = None;
    for (i, s) in sites.iter().enumerate() {
        if name.as_ref().map(|n| n.0) != Some(s.fid) {
            name = Some((s.fid, json_str(&names.name(s.fid))));
        }
        let fname = name.as_ref().map_or("", |n| n.1.as_str());
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        let _ = write!(
            out,
            "{{\"function\": {fname}, \"fid\": {}, \"pc\": {}",
            s.fid, s.pc
        );
        if let Some(at) = names.source(s.fid, s.pc) {
            out.push_str(", \"source\": ");
            push_json_str(&mut out, &at);
        }
        out.push_str(", \"event\": ");
        push_json_str(&mut out, s.event);
        out.push_str(", \"vars\": {");
        let mut sorted = s.vars.clone();
        sorted.sort_unstable_by_key(|(k, _)| *k);
        for (j, (k, v)) in sorted.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            push_json_str(&mut out, k);
            out.push_str(": ");
            json_value(&mut out, v);
        }
        out.push_str("}}");
    }
    out.push_str("\n]}\n");
    out
}

/// A variable's value: a JSON number when its text is one, else a string.
fn json_value(out: &mut String, v: &Val) {
    let n = match v {
        Val::Text(t) => t.parse::<i64>().ok(),
        Val::Num(n) => n.as_i64(),
        Val::Map(_) => None,
    };
    match (n, v) {
        (Some(n), _) => {
            let _ = write!(out, "{n}");
        }
        (None, Val::Text(t)) => push_json_str(out, t),
        (None, v) => push_json_str(out, &v.to_string()),
    }
}

/// The `calls` monitor's call graph in Graphviz DOT: an edge per
/// caller-callee pair with its call count (dashed: indirect).
fn calls_dot(sites: &[Site], names: &Names) -> String {
    let mut edges: BTreeMap<(u32, i64, bool), u64> = BTreeMap::new();
    for s in sites {
        if s.var("callees").is_some() {
            for (callee, n) in s.map("callees") {
                *edges.entry((s.fid, callee, true)).or_default() += n;
            }
        } else {
            *edges
                .entry((s.fid, s.num("callee") as i64, false))
                .or_default() += s.num("count");
        }
    }
    let node = |f: i64| match f {
        -1 => json_str("(null or foreign)"),
        f => json_str(&names.get(f as u32)),
    };
    let mut out = String::from("digraph calls {\n  node [shape=box];\n");
    for ((caller, callee, indirect), n) in edges.into_iter().filter(|e| e.1 > 0) {
        let style = if indirect { ", style=dashed" } else { "" };
        let _ = writeln!(
            out,
            "  {} -> {} [label=\"{n}\"{style}];",
            node(caller as i64),
            node(callee)
        );
    }
    out.push_str("}\n");
    out
}

/// The `coverage` monitor's counts as an lcov tracefile. Without source line
/// information, each function is a record of its own (`SF:` the function's
/// name) whose "lines" are the byte offsets (pcs) of its instructions.
fn lcov(sites: &[Site], names: &Names) -> String {
    if names.lines.is_some() {
        return lcov_lines(sites, names);
    }
    let mut per: BTreeMap<u32, Vec<(u32, u64)>> = BTreeMap::new();
    for s in sites.iter().filter(|s| s.event != "block:start") {
        per.entry(s.fid).or_default().push((s.pc, s.num("count")));
    }
    let mut out = String::from("TN:wizeng\n");
    for (fid, mut lines) in per {
        lines.sort_unstable();
        let name = names.get(fid);
        let first = lines.first().map_or(0, |l| l.0);
        let entries = lines.first().map_or(0, |l| l.1);
        let _ = writeln!(out, "SF:{name}");
        let _ = writeln!(out, "FN:{first},{name}\nFNDA:{entries},{name}\nFNF:1");
        let _ = writeln!(out, "FNH:{}", (entries > 0) as u32);
        for (pc, n) in &lines {
            let _ = writeln!(out, "DA:{pc},{n}");
        }
        let hit = lines.iter().filter(|l| l.1 > 0).count();
        let _ = writeln!(out, "LF:{}\nLH:{hit}\nend_of_record", lines.len());
    }
    out
}

/// The lcov tracefile of an app with line information: a record per source
/// file; a line's count is the largest count of its instructions (each
/// function's first instruction counts its entries); instructions without a
/// line are left out.
fn lcov_lines(sites: &[Site], names: &Names) -> String {
    // file -> (line -> count), (function -> (first line, entries))
    type Lines = BTreeMap<u32, u64>;
    type Funcs = BTreeMap<String, (u32, u64)>;
    let mut files: BTreeMap<String, (Lines, Funcs)> = BTreeMap::new();
    let mut first: BTreeMap<u32, u32> = BTreeMap::new();
    for s in sites.iter().filter(|s| s.event != "block:start") {
        let f = first.entry(s.fid).or_insert(s.pc);
        *f = (*f).min(s.pc);
    }
    for s in sites.iter().filter(|s| s.event != "block:start") {
        let Some((file, line)) = names.lines.and_then(|l| l.location(s.fid, s.pc)) else {
            continue;
        };
        let (lines, funcs) = files.entry(file.to_string()).or_default();
        let n = s.num("count");
        let c = lines.entry(line).or_default();
        *c = (*c).max(n);
        if first.get(&s.fid) == Some(&s.pc) {
            funcs.insert(names.get(s.fid), (line, n));
        }
    }
    let mut out = String::from("TN:wizeng\n");
    for (file, (lines, funcs)) in files {
        let _ = writeln!(out, "SF:{file}");
        for (name, (line, _)) in &funcs {
            let _ = writeln!(out, "FN:{line},{name}");
        }
        for (name, (_, n)) in &funcs {
            let _ = writeln!(out, "FNDA:{n},{name}");
        }
        let fnh = funcs.values().filter(|f| f.1 > 0).count();
        let _ = writeln!(out, "FNF:{}\nFNH:{fnh}", funcs.len());
        for (line, n) in &lines {
            let _ = writeln!(out, "DA:{line},{n}");
        }
        let hit = lines.values().filter(|n| **n > 0).count();
        let _ = writeln!(out, "LF:{}\nLH:{hit}\nend_of_record", lines.len());
    }
    out
}

pub(super) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let right: Vec<bool> = header.iter().map(|h| h.starts_with('>')).collect();
    let header: Vec<String> = header
        .iter()
        .map(|h| h.trim_start_matches('>').to_string())
        .collect();
    let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            let pad = width[i] - c.chars().count();
            let last = i + 1 == r.len();
            if i > 0 {
                line.push_str("  ");
            }
            if right[i] {
                line.extend(std::iter::repeat(' ').take(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                if !last {
                    line.extend(std::iter::repeat(' ').take(pad));
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub(super) fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

/// Rows ranked by `key` (descending, then in code order), zero rows dropped
/// unless asked for, at most `limit`; and a line saying what was left out.
/// Only the rows shown are sorted (a report may have 100k rows and show 20).
fn ranked<'s, 'a>(
    mut v: Vec<(&'s Site<'a>, u64)>,
    o: &ReportOptions,
    what: &str,
) -> (Vec<(&'s Site<'a>, u64)>, String) {
    let total = v.len();
    if !o.zero {
        v.retain(|(_, n)| *n > 0);
    }
    let zero = total - v.len();
    let shown = v.len().min(o.limit());
    let mut note = format!("{total} {what}");
    if zero > 0 {
        let _ = write!(note, ", {zero} never ran");
    }
    if shown < v.len() {
        let _ = write!(note, "; top {shown} shown (top=N for more, top=0 for all)");
    }
    // Ties keep the sites' order: the position is the last key.
    let mut keyed: Vec<(usize, (&'s Site<'a>, u64))> = v.into_iter().enumerate().collect();
    let order = |a: &(usize, (&Site, u64)), b: &(usize, (&Site, u64))| {
        let (x, y) = (&a.1, &b.1);
        y.1.cmp(&x.1)
            .then((x.0.fid, x.0.pc).cmp(&(y.0.fid, y.0.pc)))
            .then(a.0.cmp(&b.0))
    };
    if shown == 0 {
        keyed.clear();
    } else if shown < keyed.len() {
        keyed.select_nth_unstable_by(shown - 1, order);
        keyed.truncate(shown);
    }
    keyed.sort_unstable_by(order);
    (keyed.into_iter().map(|(_, r)| r).collect(), note + "\n")
}

fn coverage(sites: &[Site], names: &Names) -> String {
    let mut c = summaries::Coverage::default();
    sites.iter().for_each(|s| c.add(s));
    c.render(names)
}

fn hotness(sites: &[Site], names: &Names, o: &ReportOptions) -> String {
    let mut h = summaries::Hottest::new(o);
    sites.iter().for_each(|s| h.add(s.clone()));
    h.render(names)
}

fn branches(sites: &[Site], names: &Names, o: &ReportOptions) -> String {
    let v = sites
        .iter()
        .map(|s| {
            let n = match s.event {
                "br_table" => s.map("index").iter().map(|(_, n)| n).sum(),
                "select" => s.num("first") + s.num("second"),
                _ => s.num("taken") + s.num("not_taken"),
            };
            (s, n)
        })
        .collect();
    let (v, note) = ranked(v, o, "branch sites");
    let rows: Vec<Vec<String>> = v
        .iter()
        .map(|(s, n)| {
            let outcomes = match s.event {
                "br_table" => s
                    .map("index")
                    .iter()
                    .map(|(k, n)| format!("[{k}]: {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                "select" => format!("first {}, second {}", s.num("first"), s.num("second")),
                _ => format!("taken {}, not taken {}", s.num("taken"), s.num("not_taken")),
            };
            vec![
                names.get(s.fid),
                names.pc(s.fid, s.pc),
                s.event.to_string(),
                n.to_string(),
                outcomes,
            ]
        })
        .collect();
    let mut out = table(
        &["function", ">pc", "instruction", ">executed", "outcomes"],
        &rows,
    );
    out.push_str(&note);
    out
}

fn calls(sites: &[Site], names: &Names, o: &ReportOptions) -> String {
    // (caller, callee or -1, indirect) -> (count, sites)
    let mut edges: BTreeMap<(u32, i64, bool), (u64, u32)> = BTreeMap::new();
    for s in sites {
        if s.var("callees").is_some() {
            let m = s.map("callees");
            for (callee, n) in m {
                let e = edges.entry((s.fid, callee, true)).or_default();
                e.0 += n;
                e.1 += 1;
            }
        } else {
            let e = edges
                .entry((s.fid, s.num("callee") as i64, false))
                .or_default();
            e.0 += s.num("count");
            e.1 += 1;
        }
    }
    let total: u64 = edges.values().map(|e| e.0).sum();
    let mut v: Vec<_> = edges.into_iter().collect();
    let n_edges = v.len();
    if !o.zero {
        v.retain(|(_, (n, _))| *n > 0);
    }
    let never = n_edges - v.len();
    v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    let shown = v.len().min(o.limit());
    let rows: Vec<Vec<String>> = v[..shown]
        .iter()
        .map(|((caller, callee, indirect), (n, sites))| {
            let callee = match *callee {
                -1 => "(null or foreign)".to_string(),
                c => names.get(c as u32),
            };
            vec![
                n.to_string(),
                names.get(*caller),
                callee,
                if *indirect { "indirect" } else { "direct" }.to_string(),
                sites.to_string(),
            ]
        })
        .collect();
    let mut out = table(&[">calls", "caller", "callee", "kind", ">sites"], &rows);
    let _ = write!(out, "{total} calls over {n_edges} caller-callee edges");
    if never > 0 {
        let _ = write!(out, ", {never} never taken");
    }
    if shown < v.len() {
        let _ = write!(out, "; top {shown} shown (top=N for more, top=0 for all)");
    }
    out.push('\n');
    out
}

fn loops(sites: &[Site], names: &Names, o: &ReportOptions) -> String {
    let v = sites.iter().map(|s| (s, s.num("iterations"))).collect();
    let (v, note) = ranked(v, o, "loops");
    let rows: Vec<Vec<String>> = v
        .iter()
        .map(|(s, n)| vec![n.to_string(), names.get(s.fid), names.pc(s.fid, s.pc)])
        .collect();
    let mut out = table(&[">iterations", "function", ">pc"], &rows);
    out.push_str(&note);
    out
}

fn memory(sites: &[Site], names: &Names, o: &ReportOptions) -> String {
    let (mut loads, mut stores, mut lbytes, mut sbytes) = (0u64, 0u64, 0u64, 0u64);
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for s in sites {
        let (n, size) = (s.num("count"), s.num("size"));
        if s.flag("write") {
            stores += n;
            sbytes += n * size;
        } else {
            loads += n;
            lbytes += n * size;
        }
        if n > 0 {
            lo = lo.min(s.num("lo"));
            hi = hi.max(s.num("hi") + size.max(1) - 1);
        }
    }
    let v = sites.iter().map(|s| (s, s.num("count"))).collect();
    let (v, note) = ranked(v, o, "access sites");
    let rows: Vec<Vec<String>> = v
        .iter()
        .map(|(s, n)| {
            let size = s.num("size");
            let range = match n {
                0 => "-".to_string(),
                _ => format!("{:#x}..{:#x}", s.num("lo"), s.num("hi") + size.max(1) - 1),
            };
            vec![
                n.to_string(),
                (n * size).to_string(),
                names.get(s.fid),
                names.pc(s.fid, s.pc),
                s.event.to_string(),
                range,
            ]
        })
        .collect();
    let mut out = table(
        &[
            ">accesses",
            ">bytes",
            "function",
            ">pc",
            "instruction",
            "addresses",
        ],
        &rows,
    );
    out.push_str(&note);
    let _ = writeln!(
        out,
        "loads: {loads} ({lbytes} bytes), stores: {stores} ({sbytes} bytes)"
    );
    if lo <= hi {
        let _ = writeln!(out, "addresses touched: {lo:#x}..{hi:#x}");
    }
    out
}

fn imix(sites: &[Site]) -> String {
    let mut cats: BTreeMap<&'static str, (u64, u64)> = BTreeMap::new();
    let mut ops: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    let mut total = 0;
    for s in sites {
        let n = s.num("count");
        total += n;
        let cat = monitor_abi::opcode::Opcode::from_event_name(s.event)
            .map_or("other", |op| op.category_name());
        let c = cats.entry(cat).or_default();
        c.0 += n;
        c.1 += 1;
        let c = ops.entry(s.event).or_default();
        c.0 += n;
        c.1 += 1;
    }
    let mut cats: Vec<_> = cats.into_iter().collect();
    cats.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    let rows: Vec<Vec<String>> = cats
        .iter()
        .map(|(c, (n, k))| vec![c.to_string(), n.to_string(), pct(*n, total), k.to_string()])
        .collect();
    let mut out = table(&["category", ">executed", ">share", ">sites"], &rows);
    let _ = writeln!(out, "{total} instructions executed");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The top rows are those a full stable sort puts first, ties included.
    #[test]
    fn ranked_top_rows_are_a_stable_sorts_first() {
        let sites: Vec<Site> = (0..200u32)
            .map(|i| {
                let mut s = Site::default();
                (s.fid, s.pc) = (i % 3, (i * 7) % 11);
                s
            })
            .collect();
        let counts = |i: usize| ((i * 37) % 13) as u64;
        for (top, zero) in [
            (Some(5), false),
            (Some(40), true),
            (Some(0), false),
            (None, true),
        ] {
            let o = ReportOptions {
                top,
                zero,
                ..Default::default()
            };
            let v: Vec<_> = sites
                .iter()
                .enumerate()
                .map(|(i, s)| (s, counts(i)))
                .collect();
            let mut want: Vec<_> = v.clone();
            want.retain(|r| zero || r.1 > 0);
            want.sort_by(|a, b| {
                b.1.cmp(&a.1)
                    .then((a.0.fid, a.0.pc).cmp(&(b.0.fid, b.0.pc)))
            });
            want.truncate(o.limit());
            let (got, _) = ranked(v, &o, "sites");
            fn ptrs(r: &[(&Site, u64)]) -> Vec<(usize, u64)> {
                r.iter()
                    .map(|(s, n)| (std::ptr::from_ref(*s).addr(), *n))
                    .collect()
            }
            assert_eq!(ptrs(&got), ptrs(&want), "top {top:?} zero {zero}");
        }
    }

    /// `hotness`, made one site at a time, shows the rows and the note the
    /// ranking of the whole list gives.
    #[test]
    fn hottest_sites_kept_while_reading_are_the_ranked_ones() {
        let sites: Vec<Site> = (0..300u32)
            .map(|i| {
                let mut s = Site::new(i % 5, (i * 7) % 13, "0_wasm:opcode:nop:before");
                s.set("count", Val::Num(Num::U(((i * 37) % 11) as u64)));
                s
            })
            .collect();
        let names = Names {
            names: &HashMap::new(),
            lines: None,
        };
        for (top, zero) in [
            (Some(1), false),
            (Some(7), true),
            (Some(0), false),
            (None, false),
        ] {
            let o = ReportOptions {
                top,
                zero,
                ..Default::default()
            };
            let total: u64 = sites.iter().map(|s| s.num("count")).sum();
            let v = sites.iter().map(|s| (s, s.num("count"))).collect();
            let (rows, note) = ranked(v, &o, "instruction sites");
            let rows: Vec<Vec<String>> = rows
                .iter()
                .map(|(s, n)| {
                    let (f, at) = (names.get(s.fid), names.pc(s.fid, s.pc));
                    vec![n.to_string(), pct(*n, total), f, at, "nop".into()]
                })
                .collect();
            let mut want = table(
                &[">count", ">share", "function", ">pc", "instruction"],
                &rows,
            );
            let _ = write!(want, "{total} instructions executed; {note}");
            assert_eq!(hotness(&sites, &names, &o), want, "top {top:?} zero {zero}");
        }
    }

    #[test]
    fn json_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(json_str(""), "\"\"");
        assert_eq!(json_str("plain é"), "\"plain é\"");
        assert_eq!(
            json_str("a\"b\\c\nd\u{1}"),
            "\"a\\\"b\\\\c\\u000ad\\u0001\""
        );
    }

    #[test]
    fn aligned_tables() {
        let t = table(
            &["a", ">n"],
            &[
                vec!["xyz".into(), "1".into()],
                vec!["q".into(), "100".into()],
            ],
        );
        assert_eq!(t, "a      n\nxyz    1\nq    100\n");
    }
}
