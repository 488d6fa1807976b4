//! The report layout section: where a compiled monitor keeps its per-site
//! `report` variables, so that the engine can read them from the monitor's
//! memory instead of calling `wasm:exit` and parsing the CSV it prints
//! (docs/monitor-abi.md#report-layout).
//!
//! A monitor carries the custom section [`SECTION`] only when its `wasm:exit`
//! does nothing but print the default report of these variables: reading
//! them is then equivalent to calling it and parsing its rows. The whamm
//! compiler writes it when asked (`codegen::Options::report_layout`, set for
//! the engine's built-in monitors).
//!
//! The site records of a probe form a list: a global holds the first
//! record's address, and each record starts with the header of
//! [`RECORD_NEXT`] .. [`RECORD_PROBE_ID`]. Scalars take an 8-byte slot,
//! read as the low 4 bytes for 32-bit types; a map variable's slot holds the
//! map's address (0: empty map), laid out as [`MapHeader`] says.

/// The custom section's name.
pub const SECTION: &str = "wizeng:report-layout";

/// The format version this crate reads and writes.
pub const VERSION: u32 = 1;

/// Offset of a record's `i32` address of the next record (0: the last).
pub const RECORD_NEXT: u32 = 0;
/// Offset of the site's function index (`u32`).
pub const RECORD_FID: u32 = 4;
/// Offset of the site's pc (`u32`).
pub const RECORD_PC: u32 = 8;
/// Offset of the address of the function's name (a string, see [`read_str`]).
pub const RECORD_FNAME: u32 = 12;
/// Offset of the address of the probe id as the CSV report prints it,
/// between separators (`, 0_wasm:opcode:i32.add:before, `).
pub const RECORD_PROBE_ID: u32 = 16;

/// A map's header: `capacity` entries of `entry_size` bytes at `entries`;
/// an entry is used when its first `u32` (a hash) is not 0, and holds its
/// key at offset 8 and its value `key_size` bytes further.
pub struct MapHeader;

impl MapHeader {
    /// Offset of the number of entries (a power of two).
    pub const CAPACITY: u32 = 0;
    /// Offset of the number of used entries.
    pub const COUNT: u32 = 4;
    /// Offset of the key's size in bytes.
    pub const KEY_SIZE: u32 = 8;
    /// Offset of the address of the entries.
    pub const ENTRIES: u32 = 16;
    /// Offset of an entry's size in bytes.
    pub const ENTRY_SIZE: u32 = 20;
    /// Offset of the key in an entry.
    pub const ENTRY_KEY: u32 = 8;
}

/// A scalar's type, as the report prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// Unsigned 32-bit, printed in decimal.
    U32,
    /// Signed 32-bit.
    I32,
    /// Unsigned 64-bit.
    U64,
    /// Signed 64-bit.
    I64,
    /// `true` or `false` (a 32-bit 0 or not).
    Bool,
}

/// A report variable's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    /// A scalar in the record's slot.
    Scalar(Scalar),
    /// A map whose address is in the slot; printed with its entries sorted
    /// by key, `k->v` separated by `;`, or `empty map`.
    Map(Scalar, Scalar),
}

/// One per-site `report` variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    /// The variable's name (the report's `name` column).
    pub name: String,
    /// Its type.
    pub ty: VarType,
    /// Its slot's offset in the record.
    pub offset: u32,
}

/// The site records of one probe that has per-site `report` variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeRecords {
    /// The index of the global holding the first record's address.
    pub head_global: u32,
    /// The variables, in the order the report prints them.
    pub vars: Vec<Var>,
}

/// The report layout of a monitor: its probes in the order the report
/// visits them. The report prints the scalar variables of every probe's
/// sites first (probe by probe, each list from its head), then their maps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportLayout {
    /// The probes with per-site `report` variables.
    pub probes: Vec<ProbeRecords>,
}

/// Why a section could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("report layout section: {0}")]
pub struct LayoutError(pub String);

impl Scalar {
    fn code(self) -> u8 {
        match self {
            Scalar::U32 => 0,
            Scalar::I32 => 1,
            Scalar::U64 => 2,
            Scalar::I64 => 3,
            Scalar::Bool => 4,
        }
    }

    fn from_code(c: u8) -> Option<Scalar> {
        Some(match c {
            0 => Scalar::U32,
            1 => Scalar::I32,
            2 => Scalar::U64,
            3 => Scalar::I64,
            4 => Scalar::Bool,
            _ => return None,
        })
    }

    /// Whether the value takes 8 bytes (else the low 4 of its slot).
    pub fn is_64(self) -> bool {
        matches!(self, Scalar::U64 | Scalar::I64)
    }
}

/// Type codes: a scalar's, or `MAP` followed by the key's and the value's.
const MAP: u8 = 0x10;

impl ReportLayout {
    /// The section's contents (without its name).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![];
        leb(&mut out, VERSION);
        leb(&mut out, self.probes.len() as u32);
        for p in &self.probes {
            leb(&mut out, p.head_global);
            leb(&mut out, p.vars.len() as u32);
            for v in &p.vars {
                leb(&mut out, v.name.len() as u32);
                out.extend_from_slice(v.name.as_bytes());
                match v.ty {
                    VarType::Scalar(s) => out.push(s.code()),
                    VarType::Map(k, val) => out.extend([MAP, k.code(), val.code()]),
                }
                leb(&mut out, v.offset);
            }
        }
        out
    }

    /// Read a section's contents; anything malformed, of another version
    /// or with bytes left over is an error.
    pub fn decode(bytes: &[u8]) -> Result<ReportLayout, LayoutError> {
        let err = |e: wasmparser::BinaryReaderError| LayoutError(e.message().to_string());
        let mut r = wasmparser::BinaryReader::new(bytes, 0);
        let version = r.read_var_u32().map_err(err)?;
        if version != VERSION {
            return Err(LayoutError(format!(
                "version {version}, expected {VERSION}"
            )));
        }
        let n = r.read_var_u32().map_err(err)?;
        let mut probes = Vec::with_capacity(n.min(1024) as usize);
        for _ in 0..n {
            let head_global = r.read_var_u32().map_err(err)?;
            let nv = r.read_var_u32().map_err(err)?;
            let mut vars = Vec::with_capacity(nv.min(64) as usize);
            for _ in 0..nv {
                let name = r.read_string().map_err(err)?.to_string();
                let scalar = |c: u8| {
                    Scalar::from_code(c).ok_or_else(|| LayoutError(format!("type code {c:#x}")))
                };
                let ty = match r.read_u8().map_err(err)? {
                    MAP => {
                        let k = scalar(r.read_u8().map_err(err)?)?;
                        VarType::Map(k, scalar(r.read_u8().map_err(err)?)?)
                    }
                    c => VarType::Scalar(scalar(c)?),
                };
                let offset = r.read_var_u32().map_err(err)?;
                vars.push(Var { name, ty, offset });
            }
            probes.push(ProbeRecords { head_global, vars });
        }
        if !r.eof() {
            return Err(LayoutError(format!(
                "{} bytes after the layout",
                r.bytes_remaining()
            )));
        }
        Ok(ReportLayout { probes })
    }

    /// The layout in a module's custom section [`SECTION`], if it has one
    /// (the code section is skipped, not parsed).
    pub fn of_module(module: &[u8]) -> Result<Option<ReportLayout>, LayoutError> {
        use wasmparser::{Chunk, Payload};
        let err = |e: wasmparser::BinaryReaderError| LayoutError(e.message().to_string());
        let mut parser = wasmparser::Parser::new(0);
        let mut data = module;
        loop {
            let (consumed, payload) = match parser.parse(data, true).map_err(err)? {
                Chunk::Parsed { consumed, payload } => (consumed, payload),
                Chunk::NeedMoreData(_) => return Err(LayoutError("truncated module".into())),
            };
            let mut skip = 0;
            match payload {
                Payload::CustomSection(c) if c.name() == SECTION => {
                    return ReportLayout::decode(c.data()).map(Some);
                }
                Payload::CodeSectionStart { size, .. } => {
                    parser.skip_section();
                    skip = size as usize;
                }
                Payload::End(_) => return Ok(None),
                _ => {}
            }
            data = data
                .get(consumed + skip..)
                .ok_or_else(|| LayoutError("truncated module".into()))?;
        }
    }
}

fn leb(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A string at `addr` of the monitor's memory: its length (`u32`) then its
/// bytes; address 0 is the empty string. `None` when out of bounds.
pub fn read_str(memory: &[u8], addr: u32) -> Option<&[u8]> {
    if addr == 0 {
        return Some(&[]);
    }
    let a = addr as usize;
    let len = u32::from_le_bytes(memory.get(a..a + 4)?.try_into().ok()?) as usize;
    memory.get(a + 4..(a + 4).checked_add(len)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_round_trip() {
        let l = ReportLayout {
            probes: vec![
                ProbeRecords {
                    head_global: 300,
                    vars: vec![
                        Var {
                            name: "count".into(),
                            ty: VarType::Scalar(Scalar::U64),
                            offset: 24,
                        },
                        Var {
                            name: "idx".into(),
                            ty: VarType::Map(Scalar::I32, Scalar::U64),
                            offset: 200,
                        },
                    ],
                },
                ProbeRecords {
                    head_global: 2,
                    vars: vec![],
                },
            ],
        };
        let bytes = l.encode();
        assert_eq!(ReportLayout::decode(&bytes), Ok(l));
        // truncated, extended, wrong version, unknown type
        for n in 0..bytes.len() {
            assert!(ReportLayout::decode(&bytes[..n]).is_err(), "{n}");
        }
        let mut more = bytes.clone();
        more.push(0);
        assert!(ReportLayout::decode(&more).is_err());
        let mut v2 = bytes.clone();
        v2[0] = 2;
        assert!(ReportLayout::decode(&v2).is_err());
        let mut bad = bytes;
        let ty_at = 1 + 1 + 2 + 1 + 1 + 5; // version, n, head 300 (2 bytes), nv, len, "count"
        assert_eq!(bad[ty_at], Scalar::U64.code());
        bad[ty_at] = 9;
        assert!(ReportLayout::decode(&bad).is_err());
    }

    #[test]
    fn strings_in_memory() {
        let mut mem = vec![0u8; 16];
        mem[4..8].copy_from_slice(&3u32.to_le_bytes());
        mem[8..11].copy_from_slice(b"abc");
        assert_eq!(read_str(&mem, 4), Some(&b"abc"[..]));
        assert_eq!(read_str(&mem, 0), Some(&b""[..]));
        assert_eq!(read_str(&mem, 14), None);
        mem[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(read_str(&mem, 4), None);
    }
}
