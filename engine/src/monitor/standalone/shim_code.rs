//! The bodies of the provided `wizeng` imports (monitor ABI A6) in Wasm, on
//! WASI `fd_write` / `clock_time_get`: bytes to write are staged in the
//! helper memory and handed to WASI through a scratch area of the app's
//! memory 0 (or of the helper memory when the app has none), saved and
//! restored around every call so the app never sees it.

use wasm_encoder::{Instruction as I, MemArg};

use super::builder::{W32, W64};
use super::shims::Provided;

/// Bytes written per `fd_write` (longer strings are written in chunks).
const CHUNK: i32 = 4096;
/// Helper memory layout: the bytes to write, a decimal buffer, the saved scratch area.
const H_BUF: i32 = 0;
const H_NUM_END: i32 = CHUNK + 32;
const H_SAVE: i32 = 2 * CHUNK;
/// Scratch base inside the helper memory, when the app has no memory of its own.
const H_SCRATCH: i32 = 4 * CHUNK;

/// Where the provided imports write: the helper memory and the scratch area.
pub(super) struct Io {
    pub(super) helper_mem: u32,
    pub(super) scratch_mem: u32,
    pub(super) scratch_base: i32,
}

impl Io {
    /// The scratch area is at address 0 of the app's memory 0, else inside
    /// the helper memory.
    pub(super) fn new(helper_mem: Option<u32>, app_has_memory: bool) -> Io {
        Io {
            helper_mem: helper_mem.unwrap_or(0),
            scratch_mem: if app_has_memory {
                0
            } else {
                helper_mem.unwrap_or(0)
            },
            scratch_base: if app_has_memory { 0 } else { H_SCRATCH },
        }
    }
    fn h(&self, offset: u64, align: u32) -> MemArg {
        MemArg {
            offset,
            align,
            memory_index: self.helper_mem,
        }
    }
    fn s(&self, offset: u64, align: u32) -> MemArg {
        MemArg {
            offset,
            align,
            memory_index: self.scratch_mem,
        }
    }
}

/// `$emit(fd, len)`: write `len` (<= CHUNK) bytes at the helper memory's
/// buffer to `fd`, through the scratch area (saved and restored).
pub(super) fn gen_emit(io: &Io, fd_write: u32) -> wasm_encoder::Function {
    let (h, s, sb) = (io.helper_mem, io.scratch_mem, io.scratch_base);
    let mut f = wasm_encoder::Function::new([(2, W32)]);
    let (fd, len, off, n) = (0, 1, 2, 3);
    // save the scratch area: H[SAVE..] <- S[sb..sb+16+len]
    f.instruction(&I::I32Const(H_SAVE))
        .instruction(&I::I32Const(sb))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Const(16))
        .instruction(&I::I32Add)
        .instruction(&I::MemoryCopy {
            src_mem: s,
            dst_mem: h,
        });
    // the bytes: S[sb+16..] <- H[BUF..BUF+len]
    f.instruction(&I::I32Const(sb + 16))
        .instruction(&I::I32Const(H_BUF))
        .instruction(&I::LocalGet(len))
        .instruction(&I::MemoryCopy {
            src_mem: h,
            dst_mem: s,
        });
    f.instruction(&I::Block(wasm_encoder::BlockType::Empty))
        .instruction(&I::Loop(wasm_encoder::BlockType::Empty))
        .instruction(&I::LocalGet(off))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32GeU)
        .instruction(&I::BrIf(1))
        // iovec {buf = sb+16+off, len = len-off} at S[sb]
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(sb + 16))
        .instruction(&I::LocalGet(off))
        .instruction(&I::I32Add)
        .instruction(&I::I32Store(io.s(0, 2)))
        .instruction(&I::I32Const(sb))
        .instruction(&I::LocalGet(len))
        .instruction(&I::LocalGet(off))
        .instruction(&I::I32Sub)
        .instruction(&I::I32Store(io.s(4, 2)))
        .instruction(&I::LocalGet(fd))
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(1))
        .instruction(&I::I32Const(sb + 8))
        .instruction(&I::Call(fd_write))
        .instruction(&I::BrIf(1))
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Load(io.s(8, 2)))
        .instruction(&I::LocalTee(n))
        .instruction(&I::I32Eqz)
        .instruction(&I::BrIf(1))
        .instruction(&I::LocalGet(off))
        .instruction(&I::LocalGet(n))
        .instruction(&I::I32Add)
        .instruction(&I::LocalSet(off))
        .instruction(&I::Br(0))
        .instruction(&I::End)
        .instruction(&I::End);
    // restore the scratch area
    f.instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(H_SAVE))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Const(16))
        .instruction(&I::I32Add)
        .instruction(&I::MemoryCopy {
            src_mem: h,
            dst_mem: s,
        })
        .instruction(&I::End);
    f
}

/// `$write(fd, ptr, len)` from memory `mem` (a monitor's memory 0), in chunks.
pub(super) fn gen_write(io: &Io, mem: Option<u32>, emit: u32) -> wasm_encoder::Function {
    let mut f = wasm_encoder::Function::new([(1, W32)]);
    let Some(mem) = mem else {
        // The monitor has no memory 0: the engine traps too.
        f.instruction(&I::Unreachable).instruction(&I::End);
        return f;
    };
    let (fd, p, len, c) = (0, 1, 2, 3);
    f.instruction(&I::Block(wasm_encoder::BlockType::Empty))
        .instruction(&I::Loop(wasm_encoder::BlockType::Empty))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Eqz)
        .instruction(&I::BrIf(1))
        .instruction(&I::I32Const(CHUNK))
        .instruction(&I::LocalGet(len))
        .instruction(&I::LocalGet(len))
        .instruction(&I::I32Const(CHUNK))
        .instruction(&I::I32GtU)
        .instruction(&I::Select)
        .instruction(&I::LocalSet(c))
        .instruction(&I::I32Const(H_BUF))
        .instruction(&I::LocalGet(p))
        .instruction(&I::LocalGet(c))
        .instruction(&I::MemoryCopy {
            src_mem: mem,
            dst_mem: io.helper_mem,
        })
        .instruction(&I::LocalGet(fd))
        .instruction(&I::LocalGet(c))
        .instruction(&I::Call(emit))
        .instruction(&I::LocalGet(p))
        .instruction(&I::LocalGet(c))
        .instruction(&I::I32Add)
        .instruction(&I::LocalSet(p))
        .instruction(&I::LocalGet(len))
        .instruction(&I::LocalGet(c))
        .instruction(&I::I32Sub)
        .instruction(&I::LocalSet(len))
        .instruction(&I::Br(0))
        .instruction(&I::End)
        .instruction(&I::End)
        .instruction(&I::End);
    f
}

/// The body of a provided import for an instance whose memory 0 is `mem`.
pub(super) fn gen_provided(
    io: &Io,
    p: Provided,
    write: Option<u32>,
    emit: Option<u32>,
    clock: Option<u32>,
) -> wasm_encoder::Function {
    let mut f;
    match p {
        Provided::Puts => {
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::I32Const(1))
                .instruction(&I::LocalGet(0))
                .instruction(&I::LocalGet(1))
                .instruction(&I::Call(write.unwrap_or_default()));
        }
        Provided::Error => {
            // The message and a newline on stderr, then a trap.
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::I32Const(2))
                .instruction(&I::LocalGet(0))
                .instruction(&I::LocalGet(1))
                .instruction(&I::Call(write.unwrap_or_default()))
                .instruction(&I::I32Const(H_BUF))
                .instruction(&I::I32Const(10))
                .instruction(&I::I32Store8(io.h(0, 0)))
                .instruction(&I::I32Const(2))
                .instruction(&I::I32Const(1))
                .instruction(&I::Call(emit.unwrap_or_default()))
                .instruction(&I::Unreachable);
        }
        Provided::Putc => {
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::I32Const(H_BUF))
                .instruction(&I::LocalGet(0))
                .instruction(&I::I32Store8(io.h(0, 0)))
                .instruction(&I::I32Const(1))
                .instruction(&I::I32Const(1))
                .instruction(&I::Call(emit.unwrap_or_default()));
        }
        Provided::Puti => f = gen_puti(io, emit.unwrap_or_default()),
        Provided::NoFrame => {
            f = wasm_encoder::Function::new([]);
            f.instruction(&I::Unreachable);
        }
        Provided::Rdtsc => f = gen_rdtsc(io, clock.unwrap_or_default()),
    }
    f.instruction(&I::End);
    f
}

/// `puti(v)`: the signed decimal of `v` on stdout (without the final `end`).
fn gen_puti(io: &Io, emit: u32) -> wasm_encoder::Function {
    // Signed decimal, written backwards ending at H_NUM_END.
    let mut f = wasm_encoder::Function::new([(1, W32), (1, W64)]);
    let (v, p, u) = (0, 1, 2);
    f.instruction(&I::I32Const(H_NUM_END))
        .instruction(&I::LocalSet(p))
        .instruction(&I::LocalGet(v))
        .instruction(&I::I64ExtendI32S)
        .instruction(&I::LocalTee(u))
        .instruction(&I::I64Const(0))
        .instruction(&I::I64LtS)
        .instruction(&I::If(wasm_encoder::BlockType::Empty))
        .instruction(&I::I64Const(0))
        .instruction(&I::LocalGet(u))
        .instruction(&I::I64Sub)
        .instruction(&I::LocalSet(u))
        .instruction(&I::End)
        .instruction(&I::Loop(wasm_encoder::BlockType::Empty))
        .instruction(&I::LocalGet(p))
        .instruction(&I::I32Const(1))
        .instruction(&I::I32Sub)
        .instruction(&I::LocalTee(p))
        .instruction(&I::LocalGet(u))
        .instruction(&I::I64Const(10))
        .instruction(&I::I64RemU)
        .instruction(&I::I32WrapI64)
        .instruction(&I::I32Const(48))
        .instruction(&I::I32Add)
        .instruction(&I::I32Store8(io.h(0, 0)))
        .instruction(&I::LocalGet(u))
        .instruction(&I::I64Const(10))
        .instruction(&I::I64DivU)
        .instruction(&I::LocalTee(u))
        .instruction(&I::I64Const(0))
        .instruction(&I::I64Ne)
        .instruction(&I::BrIf(0))
        .instruction(&I::End)
        .instruction(&I::LocalGet(v))
        .instruction(&I::I32Const(0))
        .instruction(&I::I32LtS)
        .instruction(&I::If(wasm_encoder::BlockType::Empty))
        .instruction(&I::LocalGet(p))
        .instruction(&I::I32Const(1))
        .instruction(&I::I32Sub)
        .instruction(&I::LocalTee(p))
        .instruction(&I::I32Const(45))
        .instruction(&I::I32Store8(io.h(0, 0)))
        .instruction(&I::End)
        .instruction(&I::I32Const(H_BUF))
        .instruction(&I::LocalGet(p))
        .instruction(&I::I32Const(H_NUM_END))
        .instruction(&I::LocalGet(p))
        .instruction(&I::I32Sub)
        .instruction(&I::MemoryCopy {
            src_mem: io.helper_mem,
            dst_mem: io.helper_mem,
        })
        .instruction(&I::I32Const(1))
        .instruction(&I::I32Const(H_NUM_END))
        .instruction(&I::LocalGet(p))
        .instruction(&I::I32Sub)
        .instruction(&I::Call(emit));
    f
}

/// `rdtsc()`: monotonic nanoseconds (without the final `end`).
fn gen_rdtsc(io: &Io, clock: u32) -> wasm_encoder::Function {
    // Monotonic nanoseconds from WASI, through the (saved) scratch area.
    let mut f = wasm_encoder::Function::new([(1, W64)]);
    let (h, s, sb) = (io.helper_mem, io.scratch_mem, io.scratch_base);
    f.instruction(&I::I32Const(H_SAVE))
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(8))
        .instruction(&I::MemoryCopy {
            src_mem: s,
            dst_mem: h,
        })
        .instruction(&I::I32Const(1))
        .instruction(&I::I64Const(1))
        .instruction(&I::I32Const(sb))
        .instruction(&I::Call(clock))
        .instruction(&I::Drop)
        .instruction(&I::I32Const(sb))
        .instruction(&I::I64Load(io.s(0, 3)))
        .instruction(&I::LocalSet(0))
        .instruction(&I::I32Const(sb))
        .instruction(&I::I32Const(H_SAVE))
        .instruction(&I::I32Const(8))
        .instruction(&I::MemoryCopy {
            src_mem: h,
            dst_mem: s,
        })
        .instruction(&I::LocalGet(0));
    f
}
