//! Per-function rewriting: the app's instructions of one function with the
//! probes of each site woven in (or a block counter increment at the start of
//! a counted block), and its local declarations grown by the scratch and
//! inlined locals.

use std::collections::HashMap;

use wasm_encoder::reencode::Reencode;
use wasm_encoder::{Encode, Instruction};

use super::body::Body;
use super::rewrite::Rewriter;
use super::{enc_val, err};
use crate::core::error::LoadError;
use crate::core::probe::When;
use crate::core::types::ValType;
use crate::monitor::blockcount::{self, Ev, FuncBlocks};

impl Rewriter<'_> {
    /// Weave defined function `idx`: its body (local declarations and code)
    /// as in the code section; its provenance is recorded.
    pub(super) fn weave_function(&mut self, idx: u32) -> Result<Vec<u8>, LoadError> {
        let m = self.m;
        let fty = m.func_type(idx);
        let fb = m.body(idx);
        let mut b = Body {
            code: Vec::new(),
            locals: fb.locals.clone(),
            num_params: fty.params.len() as u32,
            scratch: HashMap::new(),
            pcs: Vec::new(),
            probe_calls: Vec::new(),
            added: &self.layout.added,
            header_len: 0,
            store: self.store,
            cfg: self.cfg,
            inline_locals: HashMap::new(),
            inlined: Vec::new(),
            site_pc: 0,
            site_fid: idx,
            num_locals: (fty.params.len() + fb.locals.len()) as u32,
            site_height: 0,
            saved: Vec::new(),
            frame_uses: None,
            zero_tested: &mut self.zero_tested,
            specialized: 0,
        };
        let fp = self.plan.funcs.get(&idx);
        let no_blocks = FuncBlocks::default();
        let fblocks = self.func_blocks.get(&idx).unwrap_or(&no_blocks);
        let wrapped = fp.is_some_and(|fp| blockcount::wrapped(m, idx, fp));
        let weaver = &mut self.weaver;
        let mut n = 0usize;
        blockcount::for_each_event(m, idx, wrapped, |ev, pc, op| {
            if let Some(g) = fblocks.starts.get(&n) {
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
                        When::Entry => Some(&f.entry),
                        When::Before => f.before.get(&pc),
                        When::After => f.after.get(&pc),
                    });
                    if let Some(c) = calls {
                        if !fblocks.folded.contains(&blockcount::key(pc, when)) {
                            b.pcs.push((b.code.len() as u32, pc));
                            let stack = fp.and_then(|f| f.stacks.get(&(pc, when == When::After)));
                            b.probes(c, stack)?;
                        }
                    }
                    if when == When::Entry && wrapped {
                        // Probes at the final `end`: wrap the body so
                        // branches to the function's label reach them.
                        let bt = b.block_type(&fty.results);
                        b.ins(&Instruction::Block(bt));
                    }
                }
                Ev::Op => {
                    b.pcs.push((b.code.len() as u32, pc));
                    b.ins(&weaver.instruction(op.clone()).map_err(err)?);
                }
                Ev::WrapEnd => b.ins(&Instruction::End),
                Ev::Split => {}
            }
            Ok(())
        })?;
        let mut body = local_declarations(&b.locals);
        b.header_len = body.len() as u32;
        body.extend_from_slice(&b.code);
        self.prov.push(&b);
        self.specialized += b.specialized;
        Ok(body)
    }
}

/// Local declarations (run-length encoded).
fn local_declarations(locals: &[ValType]) -> Vec<u8> {
    let mut header = Vec::new();
    let mut groups: Vec<(u32, ValType)> = Vec::new();
    for t in locals {
        match groups.last_mut() {
            Some((n, lt)) if lt == t => *n += 1,
            _ => groups.push((1, *t)),
        }
    }
    (groups.len() as u32).encode(&mut header);
    for (n, t) in &groups {
        n.encode(&mut header);
        enc_val(*t).encode(&mut header);
    }
    header
}
