//! Reading a monitor's report from its memory: the sites and per-site
//! `report` variables that its `wasm:exit` would print as CSV rows
//! (docs/monitor-abi.md#report-layout), without running it, and without
//! printing and parsing 10k rows for a per-instruction monitor.
//!
//! The sites come out as [`super::csv::parse`] gives them from the printed
//! report: in the order of their first row (every probe's sites with scalar
//! variables, then those with only maps), each with its variables in the
//! order of their rows; `engine/tests/builtin_monitors.rs` checks both agree
//! on every built-in monitor.

use monitor_abi::report::{self as abi, ReportLayout, Scalar, VarType};
use rustc_hash::FxHashMap;

use super::site::{event_of, Num, Site, Val};
use crate::core::types::{InstanceId, Value};
use crate::runtime::store::Store;

/// Why the report could not be read (the layout does not fit the memory).
#[derive(Debug, thiserror::Error)]
#[error("monitor report in memory: {0}")]
pub struct ReadError(String);

/// The sites of the report of the monitor instance `inst`, whose module
/// carries `layout`.
pub fn read_sites<'a>(
    store: &'a Store,
    inst: InstanceId,
    layout: &'a ReportLayout,
) -> Result<Vec<Site<'a>>, ReadError> {
    // A site is large: counting first beats growing.
    let mut sites = Vec::with_capacity(count_sites(store, inst, layout)?);
    visit_sites(store, inst, layout, |s| sites.push(s))?;
    Ok(sites)
}

/// Hand `f` the sites [`read_sites`] returns, in the same order, one at a
/// time (a report that only sums or ranks them need not keep them all: a
/// per-instruction monitor on a large app has millions).
pub fn visit_sites<'a>(
    store: &'a Store,
    inst: InstanceId,
    layout: &'a ReportLayout,
    mut f: impl FnMut(Site<'a>),
) -> Result<(), ReadError> {
    let (mut r, heads) = reader(store, inst, layout)?;
    // Every probe's sites with scalar variables (and their maps), then
    // those with maps alone: the order of the printed rows.
    for scalar_sites in [true, false] {
        for (i, p) in layout.probes.iter().enumerate() {
            let has_scalars = p.vars.iter().any(|v| !is_map(v));
            let has_maps = p.vars.iter().any(is_map);
            if has_scalars != scalar_sites || !(has_scalars || has_maps) {
                continue;
            }
            r.walk(heads[i], |r, rec| {
                let mut site = r.site(rec)?;
                for v in p.vars.iter().filter(|v| !is_map(v)) {
                    site.set(&v.name, r.value(rec, v)?);
                }
                for v in p.vars.iter().filter(|v| is_map(v)) {
                    site.set(&v.name, r.value(rec, v)?);
                }
                f(site);
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// One variable a [`visit_one_scalar`] caller reads: for each probe of the
/// layout, the offset and type of the last scalar variable named `name` in
/// its record (the value a site keeps: a later variable of the same name
/// replaces an earlier one), if it has one.
fn scalar_slots(layout: &ReportLayout, name: &str) -> Vec<Option<(u32, Scalar)>> {
    let slot = |p: &abi::ProbeRecords| {
        p.vars.iter().rev().find_map(|v| match v.ty {
            VarType::Scalar(s) if v.name == name => Some((v.offset, s)),
            _ => None,
        })
    };
    layout.probes.iter().map(slot).collect()
}

/// The sites [`visit_sites`] hands out, without building them: `f` gets
/// each site's function, event and the value of its variable `pick(event)`
/// (one of `names`; 0 when the site has no such scalar, or its value is
/// negative or a `bool`, as [`Site::num`] reads it). `false` if some probe
/// has a map variable: the caller must use [`visit_sites`], whose order and
/// checks such a layout needs. A per-instruction `coverage` report of 10k
/// sites read this way costs a tenth of building each [`Site`].
pub(crate) fn visit_one_scalar<'a>(
    store: &'a Store,
    inst: InstanceId,
    layout: &'a ReportLayout,
    names: [&str; 2],
    pick: impl Fn(&str) -> usize,
    mut f: impl FnMut(u32, &'a str, u64),
) -> Result<bool, ReadError> {
    if layout.probes.iter().any(|p| p.vars.iter().any(is_map)) {
        return Ok(false);
    }
    let slots = names.map(|n| scalar_slots(layout, n));
    let (mut r, heads) = reader(store, inst, layout)?;
    for (i, p) in layout.probes.iter().enumerate() {
        if p.vars.is_empty() {
            continue;
        }
        // Consecutive sites mostly have different probe ids (one per
        // opcode): a small direct-mapped cache of (id, event, slot).
        let mut seen: [Option<(u32, &'a str, Option<(u32, Scalar)>)>; 64] = [None; 64];
        r.walk(heads[i], |r, rec| {
            let fid = r.u32(rec, abi::RECORD_FID)?;
            let id = r.u32(rec, abi::RECORD_PROBE_ID)?;
            let way = &mut seen[(id as usize >> 2) % 64];
            let (event, slot) = match *way {
                Some((a, e, s)) if a == id => (e, s),
                _ => {
                    let e = r.event(id)?;
                    let s = slots[pick(e)][i];
                    *way = Some((id, e, s));
                    (e, s)
                }
            };
            let v = match slot {
                Some((off, ty)) => r.scalar(rec, off, ty)?.as_u64().unwrap_or(0),
                None => 0,
            };
            f(fid, event, v);
            Ok(())
        })?;
    }
    Ok(true)
}

/// How many sites [`visit_sites`] hands out.
fn count_sites(store: &Store, inst: InstanceId, layout: &ReportLayout) -> Result<usize, ReadError> {
    let (mut r, heads) = reader(store, inst, layout)?;
    let mut n = 0;
    for (head, p) in heads.iter().zip(&layout.probes) {
        if !p.vars.is_empty() {
            r.walk(*head, |_, _| {
                n += 1;
                Ok(())
            })?;
        }
    }
    Ok(n)
}

/// A reader of instance `inst`'s memory, and the head of each probe's list.
fn reader<'a>(
    store: &'a Store,
    inst: InstanceId,
    layout: &'a ReportLayout,
) -> Result<(Reader<'a>, Vec<u32>), ReadError> {
    let data = store.instance(inst);
    let mem = match data.memories.first() {
        Some(m) => store.memory(*m).data(),
        None => return Err(ReadError("the monitor has no memory".into())),
    };
    let heads = layout
        .probes
        .iter()
        .map(|p| match data.globals.get(p.head_global as usize) {
            Some(g) => match store.global_value(*g) {
                Value::I32(a) => Ok(a as u32),
                v => Err(ReadError(format!("global {} is {v:?}", p.head_global))),
            },
            None => Err(ReadError(format!("no global {}", p.head_global))),
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let r = Reader {
        mem,
        probes: FxHashMap::default(),
        last: None,
    };
    Ok((r, heads))
}

fn is_map(v: &abi::Var) -> bool {
    matches!(v.ty, VarType::Map(..))
}

struct Reader<'a> {
    mem: &'a [u8],
    /// Probe ids and their events by address (a few hundred, shared by
    /// many sites).
    probes: FxHashMap<u32, (&'a str, &'a str)>,
    last: Option<(u32, (&'a str, &'a str))>,
}

impl<'a> Reader<'a> {
    fn u32(&self, addr: u32, off: u32) -> Result<u32, ReadError> {
        let a = addr as usize + off as usize;
        match self.mem.get(a..a + 4) {
            Some(b) => Ok(u32::from_le_bytes(b.try_into().expect("4 bytes"))),
            None => Err(ReadError(format!("address {a:#x} out of bounds"))),
        }
    }

    fn u64(&self, addr: u32, off: u32) -> Result<u64, ReadError> {
        let a = addr as usize + off as usize;
        match self.mem.get(a..a + 8) {
            Some(b) => Ok(u64::from_le_bytes(b.try_into().expect("8 bytes"))),
            None => Err(ReadError(format!("address {a:#x} out of bounds"))),
        }
    }

    /// Call `f` on every record of the list starting at `head`; a list
    /// longer than the memory could hold is an error (a cycle).
    fn walk(
        &mut self,
        head: u32,
        mut f: impl FnMut(&mut Self, u32) -> Result<(), ReadError>,
    ) -> Result<(), ReadError> {
        let mut left = self.mem.len() / 8;
        let mut rec = head;
        while rec != 0 {
            left = left
                .checked_sub(1)
                .ok_or_else(|| ReadError("a probe's list has a cycle".into()))?;
            f(self, rec)?;
            rec = self.u32(rec, abi::RECORD_NEXT)?;
        }
        Ok(())
    }

    /// The site of record `rec` (without its variables).
    fn site(&mut self, rec: u32) -> Result<Site<'a>, ReadError> {
        let fid = self.u32(rec, abi::RECORD_FID)?;
        let pc = self.u32(rec, abi::RECORD_PC)?;
        let id = self.u32(rec, abi::RECORD_PROBE_ID)?;
        let (probe, event) = match self.last {
            Some((a, p)) if a == id => p,
            _ => {
                let p = self.probe_and_event(id)?;
                self.last = Some((id, p));
                p
            }
        };
        Ok(Site::of_event(fid, pc, probe, event))
    }

    /// The probe id at `addr` and its event, read once per address.
    fn probe_and_event(&mut self, addr: u32) -> Result<(&'a str, &'a str), ReadError> {
        if let Some(p) = self.probes.get(&addr) {
            return Ok(*p);
        }
        let p = self.probe_id(addr)?;
        self.probes.insert(addr, (p, event_of(p)));
        Ok((p, event_of(p)))
    }

    /// The event of the probe id at `addr`.
    fn event(&mut self, addr: u32) -> Result<&'a str, ReadError> {
        Ok(self.probe_and_event(addr)?.1)
    }

    /// The probe id at `addr`, without the separators stored around it.
    fn probe_id(&self, addr: u32) -> Result<&'a str, ReadError> {
        let bytes = abi::read_str(self.mem, addr)
            .ok_or_else(|| ReadError(format!("probe id at {addr:#x} out of bounds")))?;
        let s = std::str::from_utf8(bytes)
            .map_err(|_| ReadError(format!("probe id at {addr:#x} is not UTF-8")))?;
        Ok(s.strip_prefix(", ")
            .and_then(|s| s.strip_suffix(", "))
            .unwrap_or(s))
    }

    fn scalar(&self, addr: u32, off: u32, ty: Scalar) -> Result<Num, ReadError> {
        Ok(match ty {
            Scalar::U32 => Num::U(self.u32(addr, off)?.into()),
            Scalar::I32 => Num::I((self.u32(addr, off)? as i32).into()),
            Scalar::U64 => Num::U(self.u64(addr, off)?),
            Scalar::I64 => Num::I(self.u64(addr, off)? as i64),
            Scalar::Bool => Num::Bool(self.u32(addr, off)? != 0),
        })
    }

    fn value(&self, rec: u32, v: &abi::Var) -> Result<Val<'a>, ReadError> {
        match v.ty {
            VarType::Scalar(s) => Ok(Val::Num(self.scalar(rec, v.offset, s)?)),
            VarType::Map(k, val) => self.map(self.u32(rec, v.offset)?, k, val).map(Val::Map),
        }
    }

    /// The entries of the map at `m` (0: empty), sorted by key.
    fn map(&self, m: u32, k: Scalar, v: Scalar) -> Result<Vec<(Num, Num)>, ReadError> {
        use abi::MapHeader as H;
        if m == 0 {
            return Ok(vec![]);
        }
        let cap = self.u32(m, H::CAPACITY)?;
        let key_size = self.u32(m, H::KEY_SIZE)?;
        let ents = self.u32(m, H::ENTRIES)?;
        let size = self.u32(m, H::ENTRY_SIZE)?;
        let in_bounds = (cap as u64) * (size as u64) + ents as u64 <= self.mem.len() as u64;
        if !in_bounds || size == 0 {
            return Err(ReadError(format!("map at {m:#x} out of bounds")));
        }
        let mut out = Vec::with_capacity(self.u32(m, H::COUNT)?.min(cap) as usize);
        for i in 0..cap {
            let e = ents + i * size;
            if self.u32(e, 0)? != 0 {
                let key = self.scalar(e, H::ENTRY_KEY, k)?;
                let val = self.scalar(e, H::ENTRY_KEY + key_size, v)?;
                out.push((key, val));
            }
        }
        out.sort_by_key(|(k, _)| order(*k));
        Ok(out)
    }
}

/// How the monitor orders map keys of one type.
fn order(k: Num) -> i128 {
    match k {
        Num::U(v) => v.into(),
        Num::I(v) => v.into(),
        Num::Bool(b) => b.into(),
    }
}
