//! The `profile` monitor's report (monitors/profile.mm): the calling
//! contexts it prints at exit (`ctx,ID,PARENT,FID,CALLS,TOTAL_NS,SELF_NS`,
//! and `lost,NS`, the monitor's own time it subtracted) rendered as a table
//! of the top contexts by self time, as folded stacks (`main;f;g SELF`, the
//! input of flame-graph tools) or as a flame-graph SVG (inferno), or as JSON.
//! With `counts`, call counts take the place of times everywhere, so the
//! output is deterministic.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::monitor::builtin::{Format, ReportOptions};
use crate::monitor::report::Names;

/// One calling context.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Context {
    parent: u32,
    fid: u32,
    calls: u64,
    total: u64,
    own: u64,
}

/// The contexts by id (0, the root, is not one) and the subtracted time.
#[derive(Debug, Default)]
struct Profile {
    contexts: HashMap<u32, Context>,
    lost: u64,
}

fn parse(output: &str) -> Profile {
    let mut p = Profile::default();
    for line in output.lines() {
        let f: Vec<&str> = line.split(',').collect();
        let n = |i: usize| f.get(i).and_then(|s| s.trim().parse::<u64>().ok());
        match (f[0], f.len()) {
            ("lost", 2) => p.lost = n(1).unwrap_or(0),
            ("ctx", 7) => {
                let (Some(id), Some(parent), Some(fid)) = (n(1), n(2), n(3)) else {
                    continue;
                };
                let c = Context {
                    parent: parent as u32,
                    fid: fid as u32,
                    calls: n(4).unwrap_or(0),
                    total: n(5).unwrap_or(0),
                    own: n(6).unwrap_or(0),
                };
                p.contexts.insert(id as u32, c);
            }
            _ => {}
        }
    }
    p
}

impl Profile {
    /// The function chain of context `id`, from the entry (at most as deep
    /// as there are contexts: a malformed parent cycle cannot loop).
    fn chain(&self, id: u32) -> Vec<u32> {
        let mut v = Vec::new();
        let mut c = id;
        while let Some(ctx) = self.contexts.get(&c) {
            v.push(ctx.fid);
            if v.len() > self.contexts.len() {
                break;
            }
            c = ctx.parent;
        }
        v.reverse();
        v
    }

    /// `(id, chain of names)` of every context whose leaf passes the filter,
    /// with its weight (self time, or calls with `counts`).
    fn rows(&self, names: &Names, o: &ReportOptions) -> Vec<(u32, Vec<String>, u64)> {
        let mut rows: Vec<_> = self
            .contexts
            .iter()
            .filter(|(_, c)| o.wants(&names.get(c.fid)))
            .map(|(&id, c)| {
                let chain: Vec<String> = self.chain(id).into_iter().map(|f| names.get(f)).collect();
                (id, chain, if o.counts { c.calls } else { c.own })
            })
            .collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
        rows
    }
}

/// Render the `profile` report in `format` (`Csv`: the output as it is).
pub fn render(output: &str, names: &Names, o: &ReportOptions, format: Format) -> String {
    let p = parse(output);
    match format {
        Format::Folded => folded(&p, names, o),
        Format::Flamegraph => flamegraph(&p, names, o),
        Format::Table => table(&p, names, o),
        Format::Json => json(&p, names, o),
        _ => output.to_string(),
    }
}

/// `a;b;c WEIGHT` per context with a non-zero weight, sorted by stack.
fn folded(p: &Profile, names: &Names, o: &ReportOptions) -> String {
    let mut lines: Vec<String> = p
        .rows(names, o)
        .into_iter()
        .filter(|r| r.2 > 0)
        .map(|(_, chain, w)| {
            let frames: Vec<String> = chain.iter().map(|n| n.replace([';', ' '], "_")).collect();
            format!("{} {w}", frames.join(";"))
        })
        .collect();
    lines.sort();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The folded stacks drawn by inferno as an SVG.
fn flamegraph(p: &Profile, names: &Names, o: &ReportOptions) -> String {
    let folded = folded(p, names, o);
    let mut opts = inferno::flamegraph::Options::default();
    opts.title = "wizeng profile".into();
    opts.count_name = if o.counts { "calls" } else { "ns" }.into();
    opts.deterministic = true;
    let mut svg = Vec::new();
    let lines = folded.lines();
    match inferno::flamegraph::from_lines(&mut opts, lines, &mut svg) {
        Ok(()) => String::from_utf8_lossy(&svg).into_owned(),
        // inferno refuses an empty profile (no stack ran): say so instead.
        Err(e) => format!("<!-- wizeng profile: no flame graph: {e} -->\n"),
    }
}

/// `{"monitor": "profile", "lost_ns": N, "contexts": [{"stack": [..],
/// "calls", "total_ns", "self_ns"}]}`, heaviest first (`counts`: no times).
fn json(p: &Profile, names: &Names, o: &ReportOptions) -> String {
    let mut out = String::from("{\"monitor\": \"profile\"");
    if !o.counts {
        let _ = write!(out, ", \"lost_ns\": {}", p.lost);
    }
    out.push_str(", \"contexts\": [");
    for (i, (id, chain, _)) in p.rows(names, o).iter().enumerate() {
        let c = &p.contexts[id];
        let stack: Vec<String> = chain.iter().map(|n| super::report::json_str(n)).collect();
        let _ = write!(
            out,
            "{}\n  {{\"stack\": [{}], \"calls\": {}",
            if i == 0 { "" } else { "," },
            stack.join(", "),
            c.calls
        );
        if !o.counts {
            let _ = write!(out, ", \"total_ns\": {}, \"self_ns\": {}", c.total, c.own);
        }
        out.push('}');
    }
    out.push_str("\n]}\n");
    out
}

/// `main > f > g`; a chain deeper than six shows its entry, `…` and the
/// last four functions.
fn shorten(chain: &[String]) -> String {
    if chain.len() <= 6 {
        return chain.join(" > ");
    }
    let tail = &chain[chain.len() - 4..];
    format!("{} > … > {}", chain[0], tail.join(" > "))
}

/// Nanoseconds for people: `850 ns`, `12.3 us`, `4.56 ms`, `1.23 s`.
fn time(ns: u64) -> String {
    let f = ns as f64;
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{:.1} us", f / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} ms", f / 1e6),
        _ => format!("{:.2} s", f / 1e9),
    }
}

fn table(p: &Profile, names: &Names, o: &ReportOptions) -> String {
    let rows = p.rows(names, o);
    let calls: u64 = p.contexts.values().map(|c| c.calls).sum();
    // The run's time: the entry contexts' totals.
    let run: u64 = p
        .contexts
        .values()
        .filter(|c| c.parent == 0)
        .map(|c| c.total)
        .sum();
    let shown = rows.len().min(o.limit());
    let cells: Vec<Vec<String>> = rows[..shown]
        .iter()
        .map(|(id, chain, _)| {
            let c = &p.contexts[id];
            let mut r = vec![c.calls.to_string()];
            if !o.counts {
                r.extend([time(c.own), super::report::pct(c.own, run), time(c.total)]);
            }
            r.push(shorten(chain));
            r
        })
        .collect();
    let header: &[&str] = match o.counts {
        true => &[">calls", "context"],
        false => &[">calls", ">self", ">", ">total", "context"],
    };
    let mut out = String::from("--- profile ---\n");
    out.push_str(&super::report::table(header, &cells));
    let _ = write!(out, "{} contexts, {calls} calls", p.contexts.len());
    if !o.counts {
        let _ = write!(
            out,
            "; run {} (monitor time subtracted: {})",
            time(run),
            time(p.lost)
        );
    }
    if shown < rows.len() {
        let _ = write!(out, "; top {shown} shown (top=N for more, top=0 for all)");
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "lost,40\nctx,1,0,3,1,1000,100\nctx,2,1,1,4,600,600\nctx,3,1,2,2,300,250\nctx,4,3,1,2,50,50\n";

    #[test]
    fn folded_stacks_and_chains() {
        let names: HashMap<u32, String> =
            [(1, "f".into()), (2, "g".into()), (3, "main".into())].into();
        let n = Names {
            names: &names,
            lines: None,
        };
        let o = ReportOptions::default();
        let p = parse(OUT);
        assert_eq!(p.lost, 40);
        assert_eq!(p.chain(4), vec![3, 2, 1]);
        let f = folded(&p, &n, &o);
        assert_eq!(f, "main 100\nmain;f 600\nmain;g 250\nmain;g;f 50\n");
        let counts = ReportOptions {
            counts: true,
            ..o.clone()
        };
        let t = table(&p, &n, &counts);
        assert!(t.contains("4  main > f\n"), "{t}");
        let svg = flamegraph(&p, &n, &o);
        assert!(svg.starts_with("<?xml") && svg.contains("main"), "{svg}");
    }

    #[test]
    fn long_chains_are_shortened() {
        let chain: Vec<String> = (0..9).map(|i| format!("f{i}")).collect();
        assert_eq!(shorten(&chain), "f0 > … > f5 > f6 > f7 > f8");
        assert_eq!(time(1_500), "1.5 us");
    }
}
