//! Reading a whamm CSV report (docs/probe-language.md#report-format) back
//! into sites: the session renders built-in monitors' reports from it.
//!
//! A report of a per-instruction monitor has a row per instruction (10k rows
//! for a PolyBench kernel), so this is a single pass that borrows everything
//! from the captured text: no allocation per row beyond the site list, the
//! site index and each site's variable list.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::site::{Site, Val};

/// The line that starts whamm's report (the rows follow its header line).
const FLUSH_MARKER: &str = "REPORT CSV FLUSH";

/// Parse a whamm CSV report: the per-site rows, in order of first appearance,
/// and every other line of the output (the script's own prints), verbatim.
pub fn parse(csv: &str) -> (Vec<Site<'_>>, String) {
    // a row is about 90 bytes
    let rows = csv.len() / 64;
    let mut sites: Vec<Site> = Vec::with_capacity(rows);
    let mut index = SiteIndex::with_capacity(rows);
    let mut other = String::new();
    let mut in_report = false;
    let mut markers = Markers::new(csv);
    for line in Lines(csv) {
        if markers.in_line(csv, line) {
            // The report's header starts with an empty line.
            if other.ends_with("\n\n") || other == "\n" {
                other.pop();
            }
            in_report = true;
            continue;
        }
        if in_report && line.starts_with("id, id_type,") {
            continue;
        }
        let row = in_report.then(|| parse_row(line)).flatten();
        let Some((name, fid, pc, probe, value)) = row else {
            if !(in_report && line.is_empty()) {
                other.push_str(line);
                other.push('\n');
            }
            continue;
        };
        // Rows of one site usually come together: try the last site first.
        let same = sites
            .last()
            .is_some_and(|s| (s.fid, s.pc, s.probe) == (fid, pc, probe));
        if !same {
            if let Some(i) = index.find_or_add(fid, pc, probe, sites.len()) {
                sites[i].set(name, Val::Text(value));
                continue;
            }
            sites.push(Site::new(fid, pc, probe));
        }
        let last = sites.last_mut().expect("a site was pushed");
        last.set(name, Val::Text(value));
    }
    (sites, other)
}

/// The lines of a text as [`str::lines`] splits them (`\n` or `\r\n`),
/// found with `memchr`.
struct Lines<'a>(&'a str);

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        if self.0.is_empty() {
            return None;
        }
        let (line, rest) = match memchr::memchr(b'\n', self.0.as_bytes()) {
            Some(i) => (&self.0[..i], &self.0[i + 1..]),
            None => (self.0, ""),
        };
        self.0 = rest;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }
}

/// The sites seen so far by `(fid, pc, probe)`. Probe ids are interned
/// (a report names a few hundred, its rows come in site order) and the
/// index is keyed by numbers.
struct SiteIndex<'a> {
    probes: rustc_hash::FxHashMap<&'a str, u32>,
    last: Option<(&'a str, u32)>,
    sites: HashMap<(u64, u32), usize, BuildHasherDefault<SiteHasher>>,
}

impl<'a> SiteIndex<'a> {
    fn with_capacity(n: usize) -> Self {
        SiteIndex {
            probes: Default::default(),
            last: None,
            sites: HashMap::with_capacity_and_hasher(n, Default::default()),
        }
    }

    /// The index of site `(fid, pc, probe)` if it was seen; else it is
    /// recorded as `new` (the caller adds it there).
    fn find_or_add(&mut self, fid: u32, pc: u32, probe: &'a str, new: usize) -> Option<usize> {
        let pid = match self.last {
            Some((p, id)) if p == probe => id,
            _ => {
                let n = self.probes.len() as u32;
                let id = *self.probes.entry(probe).or_insert(n);
                self.last = Some((probe, id));
                id
            }
        };
        let key = (u64::from(fid) << 32 | u64::from(pc), pid);
        match self.sites.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(new);
                None
            }
        }
    }
}

/// Where [`FLUSH_MARKER`] occurs in the text, found in one pass, so that each
/// line's test is a comparison of offsets instead of a substring search.
struct Markers {
    at: std::vec::IntoIter<usize>,
    next: Option<usize>,
}

impl Markers {
    fn new(text: &str) -> Markers {
        let at: Vec<usize> = text.match_indices(FLUSH_MARKER).map(|(i, _)| i).collect();
        let mut at = at.into_iter();
        let next = at.next();
        Markers { at, next }
    }

    /// Whether `line` (a slice of `text`, lines visited in order) contains
    /// the marker.
    fn in_line(&mut self, text: &str, line: &str) -> bool {
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + line.len();
        let mut found = false;
        while let Some(p) = self.next.filter(|&p| p < end) {
            found |= p >= start && p + FLUSH_MARKER.len() <= end;
            self.next = self.at.next();
        }
        found
    }
}

/// `(name, fid, pc, probe_id, value)` of a per-site row:
/// `id, memaddr, name, whamm_type, wasm_type, script_id, fname, fid, pc,
/// probe_id, value`. The function name may hold `, `, so the last four
/// fields are taken from the right.
fn parse_row(line: &str) -> Option<(&str, u32, u32, &str, &str)> {
    let mut rest = line;
    let _id = field(&mut rest)?;
    if field(&mut rest)? != "memaddr" {
        return None;
    }
    let name = field(&mut rest)?;
    for _ in 0..3 {
        field(&mut rest)?; // whamm_type, wasm_type, script_id
    }
    let value = field_back(&mut rest)?;
    let probe = field_back(&mut rest)?;
    let pc = field_back(&mut rest)?.parse().ok()?;
    let fid = field_back(&mut rest).unwrap_or(rest).parse().ok()?;
    Some((name, fid, pc, probe, value))
}

/// The text before the first `, ` of `s`; `s` keeps what follows it.
fn field<'a>(s: &mut &'a str) -> Option<&'a str> {
    let b = s.as_bytes();
    let mut from = 0;
    loop {
        // (fields are short: a byte loop beats memchr's setup)
        let comma = from + b[from..].iter().position(|&c| c == b',')?;
        if b.get(comma + 1) == Some(&b' ') {
            let f = &s[..comma];
            *s = &s[comma + 2..];
            return Some(f);
        }
        from = comma + 1;
    }
}

/// The text after the last `, ` of `s`; `s` keeps what precedes it.
fn field_back<'a>(s: &mut &'a str) -> Option<&'a str> {
    let b = s.as_bytes();
    let mut to = b.len();
    loop {
        let comma = b[..to].iter().rposition(|&c| c == b',')?;
        if b.get(comma + 1) == Some(&b' ') {
            let f = &s[comma + 2..];
            *s = &s[..comma];
            return Some(f);
        }
        to = comma;
    }
}

/// A cheap hasher for the site index (keys are the monitor's own report,
/// read once; no need for a keyed hash).
#[derive(Default)]
struct SiteHasher(u64);

impl SiteHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for SiteHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "hello\n\n==== REPORT CSV FLUSH ====\n\
        id, id_type, name, whamm_type, wasm_type, script_id, fname, fid, pc, probe_id, value(s)\n\
        1, memaddr, count, u64, i64, script0, a, b, 5, 3, 0_wasm:opcode:i32.add:before, 7\n\
        2, memaddr, index, map<u32,u64>, i32, script0, , 5, 9, 0_wasm:opcode:br_table:before, 0->2;3->1\n\
        3, memaddr, taken, u64, i64, script0, , 5, 9, 0_wasm:opcode:br_table:before, 4\n\
        4, memaddr, count, u64, i64, script0, a, b, 5, 3, 0_wasm:opcode:i32.add:before, 8\n\
        5, memaddr, count, u64, i64, script0, a, b, 5, 3, 1_wasm:opcode:i32.add:after, 9\n\
        after the report\n";

    #[test]
    fn sites_in_order_of_first_row() {
        let (sites, other) = parse(CSV);
        assert_eq!(other, "hello\nafter the report\n");
        let keys: Vec<_> = sites.iter().map(|s| (s.fid, s.pc, s.event)).collect();
        assert_eq!(
            keys,
            [
                (5, 3, "i32.add"),
                (5, 9, "br_table"),
                (5, 3, "i32.add:after")
            ]
        );
        // a later row of the same site and variable replaces the value
        assert_eq!(sites[0].num("count"), 8);
        assert_eq!(sites[1].map("index"), vec![(0, 2), (3, 1)]);
        let vars: Vec<_> = sites[1]
            .vars
            .iter()
            .map(|(k, v)| (*k, v.to_string()))
            .collect();
        assert_eq!(vars, [("index", "0->2;3->1".into()), ("taken", "4".into())]);
        assert_eq!(sites[2].num("count"), 9);
        assert_eq!(sites[0].num("missing"), 0);
    }

    #[test]
    fn rows_split_at_comma_space_only() {
        // a function name with `, ` in it; a map value with `,` but no space
        let row =
            "7, memaddr, n, map<u32,u64>, i32, script0, f, g, 3, 4, 0_wasm:opcode:nop:before, 1->2";
        assert_eq!(
            parse_row(row),
            Some(("n", 3, 4, "0_wasm:opcode:nop:before", "1->2"))
        );
        // no function name column at all
        let row = "7, memaddr, n, u32, i32, script0, 3, 4, 0_x, 5";
        assert_eq!(parse_row(row), Some(("n", 3, 4, "0_x", "5")));
        for bad in [
            "7, global_id, n, u32, i32, script0, f, 3, 4, 0_x, 5",
            "7, memaddr, n, u32, i32, script0, f, x, 4, 0_x, 5",
            "7, memaddr, n, u32, i32, script0",
            "",
        ] {
            assert_eq!(parse_row(bad), None, "{bad}");
        }
    }

    #[test]
    fn rows_before_the_marker_are_other_lines() {
        let text = "1, memaddr, count, u64, i64, script0, a, 0, 1, 0_x, 2\nREPORT CSV FLUSH x\n";
        let (sites, other) = parse(text);
        assert!(sites.is_empty());
        assert_eq!(
            other,
            "1, memaddr, count, u64, i64, script0, a, 0, 1, 0_x, 2\n"
        );
    }
}
