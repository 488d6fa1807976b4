//! Per-function rewriting: the app's instructions of one function with the
//! probes of each site woven in (or a block counter increment at the start of
//! a counted block), and its local declarations grown by the scratch and
//! inlined locals. Each function is woven on its own ([`weave_function`]),
//! from what is decided for the whole module first, so a lazily woven
//! module makes the same body whenever it is asked for it.

use rustc_hash::FxHashMap as HashMap;

use wasm_encoder::reencode::Reencode;
use wasm_encoder::{Encode, Instruction};

use super::body::Body;
use super::collect::Added;
use super::imports::Weaver;
use super::monitors::MonView;
use super::plan::Plan;
use super::provenance::func_origin;
use super::{enc_val, err};
use crate::core::error::LoadError;
use crate::core::module::ModuleInfo;
use crate::core::probe::When;
use crate::core::provenance::FuncOrigin;
use crate::core::types::ValType;
use crate::monitor::blockcount::{self, Ev, FuncBlocks};
use crate::monitor::inline::{InlineConfig, ZeroTested};

/// What weaving a function reads, decided for the whole module.
pub(super) struct FuncCx<'a> {
    /// The original module.
    pub(super) m: &'a ModuleInfo,
    pub(super) plan: &'a Plan,
    pub(super) mons: &'a MonView,
    pub(super) cfg: &'a InlineConfig,
    pub(super) added: &'a Added,
    pub(super) func_blocks: &'a HashMap<u32, FuncBlocks>,
}

/// Weave defined function `idx`: its body (local declarations and code) as
/// in the code section, and its provenance. `zero_tested` memoises probe
/// functions' analysis across the functions of a module.
pub(super) fn weave_function(
    cx: &FuncCx<'_>,
    weaver: &mut Weaver,
    zero_tested: &mut ZeroTested,
    idx: u32,
) -> Result<(Vec<u8>, FuncOrigin), LoadError> {
    let m = cx.m;
    let fty = m.func_type(idx);
    let fb = m.body(idx);
    let mut b = Body {
        code: Vec::new(),
        locals: fb.locals.clone(),
        num_params: fty.params.len() as u32,
        scratch: HashMap::default(),
        typed: HashMap::default(),
        pcs: Vec::new(),
        probe_calls: Vec::new(),
        added: cx.added,
        header_len: 0,
        mons: cx.mons,
        cfg: cx.cfg,
        inline_locals: HashMap::default(),
        inlined: Vec::new(),
        site_pc: 0,
        site_fid: idx,
        num_locals: (fty.params.len() + fb.locals.len()) as u32,
        site_height: 0,
        saved: Vec::new(),
        frame_uses: None,
        zero_tested,
        inline_memo: Default::default(),
    };
    let fp = cx.plan.funcs.get(&idx);
    let no_blocks = FuncBlocks::default();
    let fblocks = cx.func_blocks.get(&idx).unwrap_or(&no_blocks);
    if fp.is_none() && fblocks.starts.is_empty() {
        plain_code(weaver, m, idx, &mut b)?;
        return finish_function(weaver, m, idx, b);
    }
    let wrapped = fp.is_some_and(|fp| blockcount::wrapped(m, idx, fp));
    let mut n = 0usize;
    // Events come in order, and so do sites, counted sites and block starts:
    // each is found by a cursor, not a search per event.
    let mut starts = fblocks.starts.iter().peekable();
    let mut folded = fblocks.folded.iter().peekable();
    let (mut before, mut after) = match fp {
        Some(f) => (f.before.cursor(), f.after.cursor()),
        None => Default::default(),
    };
    blockcount::for_each_event(m, idx, wrapped, |ev, pc, op, bytes| {
        while starts.next_if(|(e, _)| *e < n).is_some() {}
        if let Some((_, g)) = starts.next_if(|(e, _)| *e == n) {
            // A counted block starts: one increment for all its probes.
            b.ins(&Instruction::GlobalGet(*g));
            b.ins(&Instruction::I64Const(1));
            b.ins(&Instruction::I64Add);
            b.ins(&Instruction::GlobalSet(*g));
        }
        n += 1;
        b.site_pc = pc;
        match ev {
            Ev::Site(_, when) => {
                let calls = fp.and_then(|f| match when {
                    When::Entry => Some(&f.entry[..]),
                    When::Before => before.get(pc),
                    When::After => after.get(pc),
                });
                if let Some(c) = calls {
                    let k = blockcount::key(pc, when);
                    while folded.next_if(|f| **f < k).is_some() {}
                    if folded.next_if(|f| **f == k).is_none() {
                        b.pcs.push((b.code.len() as u32, pc));
                        let stack = fp.and_then(|f| f.stacks.get(&(pc, when == When::After)));
                        b.probes(c, stack)?;
                    }
                }
                if when == When::Entry && wrapped {
                    // Probes at the final `end`: wrap the body so
                    // branches to the function's label reach them.
                    let bt = match declared_result(weaver, m, idx)? {
                        Some(t) => wasm_encoder::BlockType::Result(t),
                        None => b.block_type(&fty.results),
                    };
                    b.ins(&Instruction::Block(bt));
                }
            }
            Ev::Op => {
                b.pcs.push((b.code.len() as u32, pc));
                if weaver.unchanged(op) {
                    // (as `plain_code` copies it)
                    b.code.extend_from_slice(bytes);
                } else {
                    b.ins(&weaver.instruction(op.clone()).map_err(err)?);
                }
            }
            Ev::WrapEnd => b.ins(&Instruction::End),
            Ev::Split => {}
        }
        Ok(())
    })?;
    finish_function(weaver, m, idx, b)
}

/// Function `idx`'s body in the woven module's index spaces without probes
/// or counters (its own local declarations, each instruction copied or
/// re-encoded), and (pc in it, original pc) for each instruction: what the
/// interpreter runs with the probes beside it (`core::module::PlainBody`).
pub(super) fn plain_function(
    weaver: &mut Weaver,
    m: &ModuleInfo,
    idx: u32,
) -> Result<(Vec<u8>, Vec<(u32, u32)>), LoadError> {
    let mut code = Vec::new();
    let mut pcs = Vec::new();
    let body_start = m.body(idx).range.start;
    let mut ops = m.operators(idx);
    while !ops.eof() {
        let start = ops.original_position();
        let op = ops.read().map_err(LoadError::from)?;
        pcs.push((code.len() as u32, (start - body_start) as u32));
        if weaver.unchanged(&op) {
            code.extend_from_slice(&m.bytes[start..ops.original_position()]);
        } else {
            weaver.instruction(op).map_err(err)?.encode(&mut code);
        }
    }
    let mut body = local_declarations(weaver, m, idx, &[])?;
    let header = body.len() as u32;
    body.extend_from_slice(&code);
    for p in &mut pcs {
        p.0 += header;
    }
    Ok((body, pcs))
}

/// Function `idx`'s local declarations (grown by what weaving added) and
/// woven code `b`, as in the code section, and its provenance.
fn finish_function(
    weaver: &mut Weaver,
    m: &ModuleInfo,
    idx: u32,
    mut b: Body<'_>,
) -> Result<(Vec<u8>, FuncOrigin), LoadError> {
    let n = m.body(idx).locals.len();
    let added: Vec<Result<wasmparser::ValType, ValType>> = (n..b.locals.len())
        .map(|i| b.typed.get(&i).copied().ok_or(b.locals[i]))
        .collect();
    let mut body = local_declarations(weaver, m, idx, &added)?;
    b.header_len = body.len() as u32;
    body.extend_from_slice(&b.code);
    Ok((body, func_origin(&mut b)))
}

/// The code of function `idx` without probes or counters: each instruction
/// copied, or re-encoded where an index it names shifts.
fn plain_code(
    weaver: &mut Weaver,
    m: &ModuleInfo,
    idx: u32,
    b: &mut Body<'_>,
) -> Result<(), LoadError> {
    let body_start = m.body(idx).range.start;
    let mut ops = m.operators(idx);
    while !ops.eof() {
        let start = ops.original_position();
        let op = ops.read().map_err(LoadError::from)?;
        b.pcs
            .push((b.code.len() as u32, (start - body_start) as u32));
        if weaver.unchanged(&op) {
            b.code
                .extend_from_slice(&m.bytes[start..ops.original_position()]);
        } else {
            b.ins(&weaver.instruction(op).map_err(err)?);
        }
    }
    Ok(())
}

/// The result type of function `idx` as declared, if it has one result of a
/// reference type (a typed function reference is more precise than
/// `ValType`; a `funcref` block could not end the function).
fn declared_result(
    weaver: &mut impl Reencode<Error = std::convert::Infallible>,
    m: &ModuleInfo,
    idx: u32,
) -> Result<Option<wasm_encoder::ValType>, LoadError> {
    let results = &m.func_type(idx).results;
    if results.len() != 1 || !results[0].is_ref() {
        return Ok(None);
    }
    let want = m.func_types[idx as usize] as usize;
    for p in wasmparser::Parser::new(0).parse_all(&m.bytes) {
        let wasmparser::Payload::TypeSection(r) = p? else {
            continue;
        };
        let types = r.into_iter_err_on_gc_types();
        let Some(ft) = types.skip(want).next().transpose()? else {
            break;
        };
        return Ok(Some(weaver.val_type(ft.results()[0]).map_err(err)?));
    }
    Ok(None)
}

/// Local declarations: function `idx`'s own as declared (a typed function
/// reference keeps its precise type, which `ValType` does not have), then
/// the `added` ones (run-length encoded; `Ok` a typed reference with its
/// declared type, `Err` any other).
fn local_declarations(
    weaver: &mut impl Reencode<Error = std::convert::Infallible>,
    m: &ModuleInfo,
    idx: u32,
    added: &[Result<wasmparser::ValType, ValType>],
) -> Result<Vec<u8>, LoadError> {
    let fb = m.body(idx);
    let reader = wasmparser::BinaryReader::new(&m.bytes[fb.range.clone()], fb.range.start);
    let mut groups: Vec<(u32, wasm_encoder::ValType)> = Vec::new();
    for g in wasmparser::FunctionBody::new(reader).get_locals_reader()? {
        let (n, t) = g?;
        groups.push((n, weaver.val_type(t).map_err(err)?));
    }
    for t in added {
        let t = match t {
            Ok(declared) => weaver.val_type(*declared).map_err(err)?,
            Err(t) => enc_val(*t),
        };
        match groups.last_mut() {
            Some((n, lt)) if *lt == t => *n += 1,
            _ => groups.push((1, t)),
        }
    }
    let mut header = Vec::new();
    (groups.len() as u32).encode(&mut header);
    for (n, t) in &groups {
        n.encode(&mut header);
        t.encode(&mut header);
    }
    Ok(header)
}
