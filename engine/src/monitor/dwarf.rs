//! Source locations of an application's instructions, from the DWARF line
//! tables a compiler left in its custom sections (`clang -g`, `rustc -g`),
//! for reports.
//!
//! Wasm DWARF addresses are byte offsets from the start of the code section's
//! contents; a report site is (function, pc) with pc the offset from the
//! start of the function body's local declarations, so the address of a site
//! is the body's offset in the code section plus its pc.

use gimli::{EndianSlice, LittleEndian};

type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// One row of the merged line tables: from `addr` up to the next row's
/// address, instructions come from `line` of file `file` (none for a row that
/// ends a sequence or has line 0).
#[derive(Clone, Copy, Debug)]
struct Row {
    addr: u64,
    file: u32,
    line: u32,
}

/// The line table of a module.
#[derive(Debug, Default)]
pub struct LineTable {
    rows: Vec<Row>,
    files: Vec<String>,
    /// Code-section offset of each defined function's body, by defined index.
    bodies: Vec<u64>,
    num_imported: u32,
}

impl LineTable {
    /// The module's line table; `None` if it has no `.debug_line` section or
    /// it cannot be read (a report then falls back to pcs).
    pub fn from_wasm(bytes: &[u8]) -> Option<LineTable> {
        let mut sections: Vec<(&str, &[u8])> = Vec::new();
        let mut table = LineTable::default();
        let mut code_start = 0u64;
        for payload in wasmparser::Parser::new(0).parse_all(bytes) {
            match payload.ok()? {
                wasmparser::Payload::ImportSection(r) => {
                    for imp in r.into_iter() {
                        let imp = imp.ok()?;
                        if matches!(imp.ty, wasmparser::TypeRef::Func(_)) {
                            table.num_imported += 1;
                        }
                    }
                }
                wasmparser::Payload::CodeSectionStart { range, .. } => {
                    code_start = range.start as u64;
                }
                wasmparser::Payload::CodeSectionEntry(body) => {
                    table.bodies.push(body.range().start as u64 - code_start);
                }
                wasmparser::Payload::CustomSection(c) if c.name().starts_with(".debug_") => {
                    sections.push((c.name(), c.data()));
                }
                _ => {}
            }
        }
        sections.iter().find(|s| s.0 == ".debug_line")?;
        let load = |id: gimli::SectionId| -> Result<Slice<'_>, gimli::Error> {
            let data = sections
                .iter()
                .find(|s| s.0 == id.name())
                .map_or(&[][..], |s| s.1);
            Ok(EndianSlice::new(data, LittleEndian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        table.read_units(&dwarf).ok()?;
        // At an address shared by a sequence's end and the next one's start,
        // the start is looked up.
        table.rows.sort_by_key(|r| (r.addr, r.line != 0));
        Some(table)
    }

    fn read_units(&mut self, dwarf: &gimli::Dwarf<Slice<'_>>) -> gimli::Result<()> {
        let mut units = dwarf.units();
        while let Some(header) = units.next()? {
            let unit = dwarf.unit(header)?;
            let Some(program) = unit.line_program.clone() else {
                continue;
            };
            let mut rows = program.rows();
            // File index of this unit -> index in `self.files`.
            let mut file_ids: Vec<Option<u32>> = Vec::new();
            while let Some((header, row)) = rows.next_row()? {
                let line = row.line().map_or(0, |l| l.get() as u32);
                if row.end_sequence() || line == 0 {
                    self.rows.push(Row {
                        addr: row.address(),
                        file: 0,
                        line: 0,
                    });
                    continue;
                }
                let fi = row.file_index() as usize;
                if file_ids.len() <= fi {
                    file_ids.resize(fi + 1, None);
                }
                let file = match file_ids[fi] {
                    Some(f) => f,
                    None => {
                        let name = file_name(dwarf, &unit, header, row.file_index());
                        let f = self.intern(name);
                        file_ids[fi] = Some(f);
                        f
                    }
                };
                self.rows.push(Row {
                    addr: row.address(),
                    file,
                    line,
                });
            }
        }
        Ok(())
    }

    fn intern(&mut self, name: String) -> u32 {
        match self.files.iter().position(|f| *f == name) {
            Some(i) => i as u32,
            None => {
                self.files.push(name);
                (self.files.len() - 1) as u32
            }
        }
    }

    /// The source file and line of the instruction at `pc` of function `fid`.
    pub fn location(&self, fid: u32, pc: u32) -> Option<(&str, u32)> {
        let body = *self
            .bodies
            .get(fid.checked_sub(self.num_imported)? as usize)?;
        let addr = body + pc as u64;
        let i = self
            .rows
            .partition_point(|r| r.addr <= addr)
            .checked_sub(1)?;
        let r = self.rows[i];
        (r.line != 0).then(|| (self.files[r.file as usize].as_str(), r.line))
    }
}

/// The path of file `index` of a line program: its directory joined with its
/// name, unless the directory is the compilation directory (index 0, as
/// compilers write the main source) or the name is absolute.
fn file_name(
    dwarf: &gimli::Dwarf<Slice<'_>>,
    unit: &gimli::Unit<Slice<'_>>,
    header: &gimli::LineProgramHeader<Slice<'_>>,
    index: u64,
) -> String {
    let Some(file) = header.file(index) else {
        return "?".into();
    };
    let text = |v: gimli::AttributeValue<Slice<'_>>| {
        dwarf
            .attr_string(unit, v)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let name = text(file.path_name());
    let dir = match file.directory(header) {
        Some(d) if file.directory_index() != 0 => text(d),
        _ => String::new(),
    };
    if dir.is_empty() || name.starts_with('/') {
        name
    } else {
        format!("{}/{name}", dir.trim_end_matches('/'))
    }
}
