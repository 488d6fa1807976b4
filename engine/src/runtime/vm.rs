//! The runtime data JIT code reads: per-instance `vmctx` blocks, and the
//! stable-address views of memories, tables and functions they point to, plus
//! the libcalls JIT code makes into the runtime.
//!
//! vmctx layout (8-byte slots, offsets from [`VmLayout`]):
//! ```text
//! 0   *mut VMStoreCtx     store pointer and the store-wide funcref array
//! 8   (unused)
//! 16  instance index
//! 24  types[n]            module type index -> store type id
//! ..  memories[n]         *mut VMMemory
//! ..  memory_bases[n]     *mut u8 (the memory's base: it never moves)
//! ..  globals[n]          *mut u64 (the global's storage), or for a global
//!                         `VmLayout::inline_globals` marks, its value itself
//! ..  tables[n]           *mut VMTable
//! ..  funcs[n] x 3        (store func address, code pointer, callee vmctx)
//! ```

use crate::runtime::store::Store;

/// A linear memory as JIT code sees it. Owned (boxed) by the `MemoryInst`, kept
/// in sync whenever the memory's buffer changes.
#[repr(C)]
pub struct VMMemory {
    pub base: *mut u8,
    /// Length in bytes.
    pub len: u64,
}

/// A table as JIT code sees it (slots: 0 = null, otherwise func address + 1).
#[repr(C)]
pub struct VMTable {
    pub base: *mut u64,
    pub len: u64,
}

/// How to call a function from JIT code.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct VMFuncRef {
    /// Tail-convention code: `(callee_vmctx, caller_vmctx, params...) -> results`.
    pub code: *const u8,
    pub vmctx: *mut u8,
    pub type_id: u64,
}

pub const FUNCREF_SIZE: i64 = std::mem::size_of::<VMFuncRef>() as i64;

/// Store-wide data JIT code and libcalls reach through `vmctx[0]`.
#[repr(C)]
pub struct VMStoreCtx {
    /// Base of the store's funcref array (indexed by function address).
    pub funcrefs: *const VMFuncRef,
    pub store: *mut Store,
    /// JIT function prologues trap with a stack overflow below this address.
    pub stack_limit: usize,
    /// The interpreter frame's locals an OSR entry loads (dyn tier; read only
    /// by the entry's prologue, before anything else runs).
    pub osr_locals: *const u64,
}

pub const STORE_CTX_FUNCREFS: i32 = 0;
pub const STORE_CTX_STACK_LIMIT: i32 = 16;
pub const STORE_CTX_OSR_LOCALS: i32 = 24;

/// Offsets inside an instance's vmctx.
#[derive(Clone, Debug)]
pub struct VmLayout {
    pub types: u32,
    pub memories: u32,
    pub memory_bases: u32,
    pub globals: u32,
    pub tables: u32,
    pub funcs: u32,
    pub size_slots: usize,
    /// Per global index: its value lives in its vmctx slot (one load or store
    /// from JIT code, as a Wasmtime vmctx global) instead of behind a pointer
    /// to the store's `GlobalInst`. Only globals no one but this instance's
    /// compiled code can reach (see `jit::layout_of`); the store's copy keeps
    /// the initial value, `exec::jit::global_slot` reads the live one.
    pub inline_globals: Vec<bool>,
}

pub const STORE_CTX: i32 = 0;
pub const INSTANCE: i32 = 16;

impl VmLayout {
    pub fn new(
        n_types: usize,
        n_mems: usize,
        n_globals: usize,
        n_tables: usize,
        n_funcs: usize,
    ) -> VmLayout {
        let types = 24;
        let memories = types + 8 * n_types as u32;
        let memory_bases = memories + 8 * n_mems as u32;
        let globals = memory_bases + 8 * n_mems as u32;
        let tables = globals + 8 * n_globals as u32;
        let funcs = tables + 8 * n_tables as u32;
        let size_slots = (funcs as usize + 24 * n_funcs) / 8;
        VmLayout {
            types,
            memories,
            memory_bases,
            globals,
            tables,
            funcs,
            size_slots,
            inline_globals: vec![false; n_globals],
        }
    }
    pub fn memory(&self, i: u32) -> i32 {
        (self.memories + 8 * i) as i32
    }
    /// Memory i's base address, a copy of its `VMMemory::base`: a linear
    /// memory's reservation never moves (`linear_memory.rs`), so JIT code
    /// loads it with one readonly load instead of two.
    pub fn memory_base(&self, i: u32) -> i32 {
        (self.memory_bases + 8 * i) as i32
    }
    pub fn is_inline_global(&self, i: u32) -> bool {
        self.inline_globals
            .get(i as usize)
            .copied()
            .unwrap_or(false)
    }
    pub fn global(&self, i: u32) -> i32 {
        (self.globals + 8 * i) as i32
    }
    pub fn table(&self, i: u32) -> i32 {
        (self.tables + 8 * i) as i32
    }
    pub fn type_id(&self, i: u32) -> i32 {
        (self.types + 8 * i) as i32
    }
    /// Offset of function i's (address, code, vmctx) triple.
    pub fn func(&self, i: u32) -> i32 {
        (self.funcs + 24 * i) as i32
    }
}
