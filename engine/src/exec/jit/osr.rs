//! On-stack replacement for the `dyn` tier: enter compiled code at a hot loop
//! of a function that is still running in the interpreter.
//!
//! Wasm's structured control flow has no way to jump into the middle of a
//! function, so the entry is made by rewriting the function body (at the Wasm
//! level, then compiling it like any other function):
//!
//! - one extra i32 local, the *OSR flag*, starts at 1 (the JIT prologue sets it
//!   and loads every other local from the interpreter's frame, see
//!   `env::OsrPrologue`);
//! - on the path of constructs that enclose the target loop, the instructions
//!   that precede the next construct on the path are wrapped in
//!   `block; local.get $flag; br_if 0; ...; end`, so they are skipped on entry
//!   (an `if` on the path gets its condition from the guard: 1 to enter the
//!   then-arm, 0 for the else-arm);
//! - `i32.const 0; local.set $flag` right before the target `loop`, so that
//!   every later pass through the enclosing code runs it normally.
//!
//! The rewrite needs the operand stack to be empty at the loop and no
//! construct on the path to take parameters (the interpreter only counts such
//! loops). Every original instruction keeps its bytes except branches out of a
//! guard, whose depths grow by one; `OsrBody::map` takes each new offset back
//! to the original pc, so traps and profiles name original sites.

use wasmparser::{BinaryReader, BlockType, FunctionBody, Operator};

/// A rewritten function body that enters at one loop.
#[derive(Debug)]
pub struct OsrBody {
    /// The new body (local declarations and code), same function type.
    pub bytes: Vec<u8>,
    /// (offset in `bytes`, original pc), sorted by the first.
    pub map: Vec<(u32, u32)>,
    /// Index of the OSR flag local.
    pub flag: u32,
}

impl OsrBody {
    /// The original pc of offset `off` in the new body.
    pub fn original_pc(&self, off: u32) -> u32 {
        match self.map.binary_search_by_key(&off, |e| e.0) {
            Ok(i) => self.map[i].1,
            Err(0) => 0,
            Err(i) => self.map[i - 1].1,
        }
    }
}

struct Op {
    off: usize,
    end: usize,
    kind: Kind,
}

enum Kind {
    Open { is_if: bool, params: bool },
    Else,
    End,
    Br(u32),
    BrIf(u32),
    BrTable(Vec<u32>, u32),
    Other,
}

/// One level on the path to the target: the instructions `[from, to)` precede
/// the next construct on the path (at index `to`).
struct Level {
    from: usize,
    to: usize,
    /// The construct at `to` is an `if`, entered in its then-arm (`Some(1)`)
    /// or else-arm (`Some(0)`).
    if_arm: Option<i32>,
}

/// `v` as unsigned LEB128 (wasm-encoder's encoding of a `u32`).
fn leb(out: &mut Vec<u8>, v: u32) {
    wasm_encoder::Encode::encode(&v, out);
}

/// Rewrite `body` (a function body from its local declarations; pcs are
/// offsets in it) to start executing at the `loop` at `loop_pc`, with the
/// function's `num_params` params and declared locals loaded by the caller.
/// `has_params(type index)` tells whether a block type index takes params.
/// `None` if the loop cannot be entered this way.
pub fn rewrite(
    body: &[u8],
    num_params: u32,
    loop_pc: u32,
    has_params: &dyn Fn(u32) -> bool,
) -> Option<OsrBody> {
    let fb = FunctionBody::new(BinaryReader::new(body, 0));
    let mut locals = fb.get_locals_reader().ok()?;
    let mut decls = Vec::new();
    let mut num_locals = num_params;
    for _ in 0..locals.get_count() {
        let (n, t) = locals.read().ok()?;
        num_locals = num_locals.checked_add(n)?;
        decls.push((n, t));
    }
    let mut ops_reader = fb.get_operators_reader().ok()?;
    let code_start = ops_reader.original_position();
    let mut ops = Vec::new();
    while !ops_reader.eof() {
        let (op, off) = ops_reader.read_with_offset().ok()?;
        let end = ops_reader.original_position();
        let params = |bt: BlockType| matches!(bt, BlockType::FuncType(i) if has_params(i));
        let kind = match op {
            Operator::Block { blockty } | Operator::Loop { blockty } => Kind::Open {
                is_if: false,
                params: params(blockty),
            },
            Operator::If { blockty } => Kind::Open {
                is_if: true,
                params: params(blockty),
            },
            Operator::Else => Kind::Else,
            Operator::End => Kind::End,
            Operator::Br { relative_depth } => Kind::Br(relative_depth),
            Operator::BrIf { relative_depth } => Kind::BrIf(relative_depth),
            Operator::BrTable { targets } => {
                let t: Result<Vec<u32>, _> = targets.targets().collect();
                Kind::BrTable(t.ok()?, targets.default())
            }
            Operator::Try { .. }
            | Operator::TryTable { .. }
            | Operator::Delegate { .. }
            | Operator::Catch { .. }
            | Operator::CatchAll => return None,
            _ => Kind::Other,
        };
        ops.push(Op { off, end, kind });
    }
    let target = ops
        .iter()
        .position(|o| o.off == loop_pc as usize && body.get(o.off) == Some(&0x03))?;
    if matches!(ops[target].kind, Kind::Open { params: true, .. }) {
        return None;
    }

    // The constructs open at the target: (index of the opening op, arm start,
    // in else-arm).
    let mut open: Vec<(usize, usize, bool)> = Vec::new();
    for (i, o) in ops[..target].iter().enumerate() {
        match o.kind {
            Kind::Open { .. } => open.push((i, i + 1, false)),
            Kind::Else => {
                let top = open.last_mut()?;
                top.1 = i + 1;
                top.2 = true;
            }
            Kind::End => {
                open.pop()?;
            }
            _ => {}
        }
    }
    let mut levels = Vec::new();
    let mut from = 0usize;
    for &(i, arm, in_else) in open.iter().chain(std::iter::once(&(target, 0, false))) {
        let if_arm = match ops[i].kind {
            Kind::Open { params: true, .. } => return None,
            Kind::Open { is_if: true, .. } => Some(if in_else { 0 } else { 1 }),
            _ => None,
        };
        levels.push(Level {
            from,
            to: i,
            if_arm,
        });
        from = arm;
    }

    let flag = num_locals;
    let mut out = Vec::with_capacity(body.len() + 16 * levels.len() + 8);
    let mut map = Vec::with_capacity(ops.len() + 1);
    leb(&mut out, decls.len() as u32 + 1);
    // The original declarations, unchanged, then the flag.
    let decl_bytes = {
        let mut r = BinaryReader::new(body, 0);
        r.read_var_u32().ok()?;
        let start = r.original_position();
        &body[start..code_start]
    };
    out.extend_from_slice(decl_bytes);
    out.extend_from_slice(&[1, 0x7f]);

    // Per op: guard opens before it, guard closes before it.
    let mut guard_open: Vec<Option<Option<i32>>> = vec![None; ops.len() + 1];
    let mut guard_close = vec![false; ops.len() + 1];
    for l in &levels {
        if l.from == l.to && l.if_arm.is_some() {
            return None;
        }
        if l.from < l.to || l.if_arm.is_some() {
            guard_open[l.from] = Some(l.if_arm);
            guard_close[l.to] = true;
        }
    }
    // Nesting inside the current guard (branches leaving it get one deeper).
    let mut in_guard: Option<u32> = None;
    let flag_get = |out: &mut Vec<u8>| {
        out.push(0x20);
        leb(out, flag);
    };
    for (i, o) in ops.iter().enumerate() {
        let pc = o.off as u32;
        if guard_close[i] {
            map.push((out.len() as u32, pc));
            out.push(0x0b);
            in_guard = None;
        }
        if i == target {
            map.push((out.len() as u32, pc));
            out.extend_from_slice(&[0x41, 0x00, 0x21]);
            leb(&mut out, flag);
        }
        if let Some(arm) = guard_open[i] {
            map.push((out.len() as u32, pc));
            match arm {
                None => {
                    out.extend_from_slice(&[0x02, 0x40]);
                    flag_get(&mut out);
                    out.extend_from_slice(&[0x0d, 0x00]);
                }
                Some(v) => {
                    out.extend_from_slice(&[0x02, 0x7f, 0x41, v as u8]);
                    flag_get(&mut out);
                    out.extend_from_slice(&[0x0d, 0x00, 0x1a]);
                }
            }
            in_guard = Some(0);
        }
        map.push((out.len() as u32, pc));
        let deeper = |d: u32| match in_guard {
            Some(k) if d >= k => d + 1,
            _ => d,
        };
        match &o.kind {
            Kind::Br(d) if in_guard.is_some() => {
                out.push(0x0c);
                leb(&mut out, deeper(*d));
            }
            Kind::BrIf(d) if in_guard.is_some() => {
                out.push(0x0d);
                leb(&mut out, deeper(*d));
            }
            Kind::BrTable(ts, def) if in_guard.is_some() => {
                out.push(0x0e);
                leb(&mut out, ts.len() as u32);
                for t in ts {
                    leb(&mut out, deeper(*t));
                }
                leb(&mut out, deeper(*def));
            }
            _ => out.extend_from_slice(&body[o.off..o.end]),
        }
        if let Some(k) = in_guard.as_mut() {
            match o.kind {
                Kind::Open { .. } => *k += 1,
                Kind::End => *k = k.checked_sub(1)?,
                _ => {}
            }
        }
    }
    if guard_close[ops.len()] {
        return None;
    }
    Some(OsrBody {
        bytes: out,
        map,
        flag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the first function of a `.wat` module, and its loops' pcs.
    fn body_of(wat: &str) -> (Vec<u8>, Vec<u32>) {
        let bin = wat::parse_str(wat).unwrap();
        for p in wasmparser::Parser::new(0).parse_all(&bin) {
            if let wasmparser::Payload::CodeSectionEntry(b) = p.unwrap() {
                let r = b.range();
                let body = bin[r.clone()].to_vec();
                let mut loops = Vec::new();
                let mut ops = b.get_operators_reader().unwrap();
                while !ops.eof() {
                    let (op, off) = ops.read_with_offset().unwrap();
                    if matches!(op, Operator::Loop { .. }) {
                        loops.push((off - r.start) as u32);
                    }
                }
                return (body, loops);
            }
        }
        panic!("no code");
    }

    fn validate(wat: &str, body: &[u8]) {
        // Re-assemble the module with the new body and validate it.
        let bin = wat::parse_str(wat).unwrap();
        let mut module = wasm_encoder::Module::new();
        for p in wasmparser::Parser::new(0).parse_all(&bin) {
            match p.unwrap() {
                wasmparser::Payload::CodeSectionStart { .. } => {
                    let mut c = wasm_encoder::CodeSection::new();
                    c.raw(body);
                    module.section(&c);
                }
                wasmparser::Payload::CodeSectionEntry(_) => {}
                p => {
                    if let Some((id, range)) = p.as_section() {
                        module.section(&wasm_encoder::RawSection {
                            id,
                            data: &bin[range],
                        });
                    }
                }
            }
        }
        let bytes = module.finish();
        wasmparser::Validator::new()
            .validate_all(&bytes)
            .unwrap_or_else(|e| panic!("invalid rewrite: {e}"));
    }

    #[test]
    fn nested_loops_in_if_and_else_validate() {
        let wat = r#"(module (func (param i32) (result i32) (local i64)
          (block $out
            (local.set 1 (i64.const 3))
            (br_if $out (i32.eqz (local.get 0)))
            (if (local.get 0)
              (then (loop $a (br_if $a (i32.const 0))))
              (else
                (drop (i32.const 5))
                (br_if $out (local.get 0))
                (loop $b
                  (block $x (br_table $x $b $out (local.get 0)))
                  (loop $c (br_if $c (i32.const 0)))))))
          (i32.const 7)))"#;
        let (body, loops) = body_of(wat);
        assert_eq!(loops.len(), 3);
        for l in loops {
            let r = rewrite(&body, 1, l, &|_| false).expect("rewritable");
            validate(wat, &r.bytes);
            assert_eq!(r.flag, 2);
            assert_eq!(
                r.original_pc(r.bytes.len() as u32 - 1),
                body.len() as u32 - 1
            );
        }
    }

    #[test]
    fn not_a_loop_or_block_params() {
        let wat = r#"(module (type $t (func (param i32)))
          (func (param i32) local.get 0 block (type $t) drop loop br 0 end end))"#;
        let (body, loops) = body_of(wat);
        assert!(rewrite(&body, 1, 0, &|_| true).is_none());
        assert!(rewrite(&body, 1, loops[0], &|_| true).is_none());
    }
}
