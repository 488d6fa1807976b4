//! Built-in monitors: `--monitors=NAME[{OPTIONS}]`.
//!
//! Each is a probe script in the repository's `monitors/` folder, compiled by
//! our whamm compiler when the engine is built (`engine/build.rs` writes the
//! modules into `OUT_DIR`; they are embedded here), with the report layout
//! section (docs/monitor-abi.md#report-layout). A built-in monitor runs like
//! any other monitor; at the end the session reads its report from its
//! memory, without running its `wasm:exit`, and renders it as a table for a
//! terminal ([`crate::monitor::report`]), unless the `csv` option asks for
//! the CSV: then `wasm:exit` prints whamm's CSV report.
//!
//! Options follow Wizard's `NAME{option,...}` convention: `top=N` (how many
//! rows; 0 for all), `filter=GLOB` (only functions whose name matches; `*`
//! and `?`), `zero` (also rows whose count is zero), a format (`table`,
//! `csv` for whamm's CSV report, `json`; `dot` for `calls`, `lcov` for
//! `coverage`, `folded` and `flamegraph` for `profile`) and `file=PATH`
//! (where the report goes). `profile{counts}` shows call counts only (no
//! times: deterministic). `trace` and `trace-instrs` are not reports: their
//! lines are written while the app runs, to stdout or `file=PATH`;
//! `trace{instrs}` is `trace-instrs`.

/// `(name, one-line help, the script's source, the compiled module)`.
const TABLE: &[(&str, &str, &str, &[u8])] =
    include!(concat!(env!("OUT_DIR"), "/builtin_monitors.rs"));

/// A built-in monitor.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    pub name: &'static str,
    /// What it reports (the script's first comment line).
    pub help: &'static str,
    /// The probe script (`monitors/NAME.mm`).
    pub source: &'static str,
    /// The module our compiler made of it.
    pub wasm: &'static [u8],
}

/// Every built-in monitor, by name.
pub fn all() -> impl Iterator<Item = Builtin> {
    TABLE.iter().map(|&(name, help, source, wasm)| Builtin {
        name,
        help,
        source,
        wasm,
    })
}

/// The built-in monitor called `name`.
pub fn find(name: &str) -> Option<Builtin> {
    all().find(|b| b.name == name)
}

/// The names of the built-in monitors, comma-separated (for messages).
pub fn names() -> String {
    all().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

/// How a built-in monitor's report is shown (`NAME{...}`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportOptions {
    /// At most this many rows in ranked tables; `None`: the default (20),
    /// `Some(0)`: all.
    pub top: Option<usize>,
    /// Only functions whose name matches this glob.
    pub filter: Option<String>,
    /// Rows whose count is zero are shown too.
    pub zero: bool,
    /// The report's format; `None`: the session's (`--report`, default table).
    pub format: Option<Format>,
    /// Write the report to this file instead of the session's report output.
    pub file: Option<std::path::PathBuf>,
    /// `profile`: call counts only, no times (deterministic output).
    pub counts: bool,
}

/// How a built-in monitor's report is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Aligned tables for a terminal.
    #[default]
    Table,
    /// whamm's CSV report, as the script prints it.
    Csv,
    /// One JSON object per site.
    Json,
    /// `calls`: the call graph in Graphviz DOT.
    Dot,
    /// `coverage`: an lcov tracefile.
    Lcov,
    /// `profile`: folded stacks (`main;f;g SELF`), flame-graph tools' input.
    Folded,
    /// `profile`: a flame-graph SVG (inferno).
    Flamegraph,
}

impl Format {
    /// `table`, `csv` or `json` (the `--report` values).
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "table" => Some(Format::Table),
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// The options the built-in monitors accept, for messages.
pub const OPTIONS: &str = "top=N, filter=GLOB, zero, table, csv, json, dot (calls), \
    lcov (coverage), folded, flamegraph, counts (profile), instrs (trace), file=PATH";

impl ReportOptions {
    /// Parse the text between `{` and `}`: options separated by `,` or `;`.
    pub fn parse(monitor: &str, text: &str) -> Result<ReportOptions, String> {
        let mut o = ReportOptions::default();
        for opt in text
            .split([',', ';'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (key, value) = match opt.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (opt, None),
            };
            match (key, value) {
                ("top", Some(v)) => {
                    o.top = Some(v.parse().map_err(|_| {
                        format!("monitor {monitor}: option `{opt}`: expected top=N with N a number")
                    })?)
                }
                ("filter", Some(v)) if !v.is_empty() => o.filter = Some(v.to_string()),
                ("zero" | "z", None) => o.zero = true,
                ("file", Some(v)) if !v.is_empty() => o.file = Some(v.into()),
                ("dot", None) if monitor == "calls" => o.format = Some(Format::Dot),
                ("lcov", None) if monitor == "coverage" => o.format = Some(Format::Lcov),
                ("folded", None) if monitor == "profile" => o.format = Some(Format::Folded),
                ("flamegraph", None) if monitor == "profile" => o.format = Some(Format::Flamegraph),
                ("counts", None) if monitor == "profile" => o.counts = true,
                (f, None) if Format::parse(f).is_some() => o.format = Format::parse(f),
                _ => {
                    return Err(format!(
                        "monitor {monitor}: unknown option `{opt}` (options: {OPTIONS})"
                    ))
                }
            }
        }
        Ok(o)
    }

    /// The row limit of ranked tables.
    pub fn limit(&self) -> usize {
        match self.top {
            None => 20,
            Some(0) => usize::MAX,
            Some(n) => n,
        }
    }

    /// Whether a function name passes the filter.
    pub fn wants(&self, func: &str) -> bool {
        self.filter
            .as_deref()
            .map_or(true, |g| glob(g.as_bytes(), func.as_bytes()))
    }
}

/// `*` any run, `?` one byte, everything else itself.
fn glob(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob(&p[1..], s) || (!s.is_empty() && glob(p, &s[1..])),
        (Some(b'?'), Some(_)) => glob(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => glob(&p[1..], &s[1..]),
        _ => false,
    }
}

/// One item of a `--monitors` list after name and option parsing.
#[derive(Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// A built-in monitor and its report options.
    Builtin(Builtin, ReportOptions),
    /// A probe script, compiled in-process, with its libraries.
    Script { path: &'a str, libs: Vec<&'a str> },
    /// A monitor module file (with libraries): `matcher::parse_monitor_list`'s.
    File(&'a str),
}

impl PartialEq for Builtin {
    fn eq(&self, other: &Builtin) -> bool {
        self.name == other.name
    }
}
impl Eq for Builtin {}

/// Split a `--monitors` list at the commas outside `{...}` and classify
/// each item: `NAME[{OPTIONS}]` for a built-in monitor (a name without `.`
/// or `/` that is not an existing file), `tool.mm[+lib...]` for a script,
/// anything else a module file. An unknown name is an error listing the
/// built-in monitors.
pub fn parse_list(list: &str) -> Result<Vec<Item<'_>>, String> {
    let mut items = Vec::new();
    let mut depth = 0u32;
    let mut start = 0;
    for (i, c) in list
        .char_indices()
        .chain(std::iter::once((list.len(), ',')))
    {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                let item = &list[start..i];
                start = i + 1;
                if !item.is_empty() {
                    items.push(classify(item)?);
                }
            }
            _ => {}
        }
    }
    Ok(items)
}

fn classify(item: &str) -> Result<Item<'_>, String> {
    if let Some((name, rest)) = item.split_once('{') {
        let Some(opts) = rest.strip_suffix('}') else {
            return Err(format!("monitor `{item}`: expected NAME{{OPTIONS}}"));
        };
        let b = find(name).ok_or_else(|| unknown(name))?;
        if is_trace(name) {
            return trace_item(b, opts);
        }
        return Ok(Item::Builtin(b, ReportOptions::parse(name, opts)?));
    }
    let mut parts = item.split('+');
    let first = parts.next().unwrap_or_default();
    if first.ends_with(".mm") {
        return Ok(Item::Script {
            path: first,
            libs: parts.collect(),
        });
    }
    let bare = !first.contains(['.', '/']) && !std::path::Path::new(first).exists();
    if bare && first == item {
        return find(first)
            .map(|b| Item::Builtin(b, ReportOptions::default()))
            .ok_or_else(|| unknown(first));
    }
    Ok(Item::File(item))
}

/// `trace` and `trace-instrs` write while the app runs (not reports).
pub fn is_trace(name: &str) -> bool {
    name == "trace" || name == "trace-instrs"
}

/// A trace's options: `file=PATH`, and `instrs` (`trace` becomes
/// `trace-instrs`).
fn trace_item<'a>(mut b: Builtin, text: &str) -> Result<Item<'a>, String> {
    let mut o = ReportOptions::default();
    for opt in text
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match opt.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("file", v)) if !v.is_empty() => o.file = Some(v.into()),
            None if opt == "instrs" => b = find("trace-instrs").unwrap_or(b),
            _ => {
                return Err(format!(
                    "monitor {}: unknown option `{opt}` (options: instrs, file=PATH)",
                    b.name
                ))
            }
        }
    }
    Ok(Item::Builtin(b, o))
}

fn unknown(name: &str) -> String {
    format!(
        "unknown monitor `{name}`: built-in monitors are {}; else give a .wasm, .wat or .mm file",
        names()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        let items = parse_list("hotness{top=5,filter=f*},x.wasm+l.wasm,t.mm+a.wasm").unwrap();
        assert_eq!(items.len(), 3);
        match &items[0] {
            Item::Builtin(b, o) => {
                assert_eq!(b.name, "hotness");
                assert_eq!(o.top, Some(5));
                assert!(o.wants("foo") && !o.wants("bar"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(items[1], Item::File("x.wasm+l.wasm"));
        match &parse_list("calls{dot,file=g.dot}").unwrap()[0] {
            Item::Builtin(_, o) => {
                assert_eq!(o.format, Some(Format::Dot));
                assert_eq!(o.file.as_deref(), Some(std::path::Path::new("g.dot")));
            }
            other => panic!("{other:?}"),
        }
        assert!(parse_list("hotness{lcov}").is_err());
        match &parse_list("profile{folded,counts}").unwrap()[0] {
            Item::Builtin(_, o) => assert!(o.format == Some(Format::Folded) && o.counts),
            other => panic!("{other:?}"),
        }
        match &parse_list("trace{instrs,file=t.txt}").unwrap()[0] {
            Item::Builtin(b, o) => assert!(b.name == "trace-instrs" && o.file.is_some()),
            other => panic!("{other:?}"),
        }
        assert!(parse_list("trace{top=3}").is_err());
        assert!(parse_list("calls{folded}").is_err());
        assert_eq!(
            items[2],
            Item::Script {
                path: "t.mm",
                libs: vec!["a.wasm"]
            }
        );
        let e = parse_list("nosuch").unwrap_err();
        assert!(e.contains("coverage") && e.contains("hotness"), "{e}");
        assert!(parse_list("hotness{bogus}")
            .unwrap_err()
            .contains("unknown option"));
    }

    #[test]
    fn every_builtin_has_help() {
        for b in all() {
            assert!(!b.help.is_empty() && !b.wasm.is_empty(), "{}", b.name);
        }
    }
}
