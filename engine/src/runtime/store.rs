//! The runtime: a store of functions, memories, tables, globals and instances,
//! instantiation and linking, host functions, and the entry point for calls.
//!
//! Everything lives in arenas indexed by typed addresses ([`FuncAddr`], ...), so
//! several modules (an application, its monitors, their libraries) can share one
//! store while each instance only reaches what its own index spaces name.

use std::any::Any;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use crate::core::error::*;
use crate::core::gc_types::{FullType, HeapTy};
use crate::core::module::*;
use crate::core::types::*;

pub const PAGE_SIZE: usize = 65536;
/// Maximum number of 64 KiB pages of a 32-bit memory. A 64-bit memory may
/// declare more, but this engine allocates at most 4 GiB for it too (and
/// for a memory of one-byte pages, custom-page-sizes, at most 2^32 pages):
/// `memory.grow` beyond fails, which the spec allows. (The interpreter and
/// the linear-memory reservation rely on no memory exceeding 4 GiB.)
pub const MAX_PAGES: u64 = 65536;

/// A host function: receives the caller (for memory access) and the arguments,
/// writes the results into the slice (pre-sized to the function type's results).
pub type HostFn = Rc<dyn Fn(&mut Caller<'_>, &[Value], &mut [Value]) -> Result<(), Trap>>;

/// A host function of a type with one-slot numbers only (`i32`, `i64`,
/// `f32`, `f64`) on raw slots: its arguments in `slots[..params]`, its
/// results written over them from `slots[0]`, each value in the low bits of
/// its slot as compiled code and the interpreter keep them (an `i32` or
/// `f32` in the low 32: an argument's upper 32 bits are undefined, a
/// result's are ignored). Compiled code and the interpreter call it without
/// converting to [`Value`]s; see [`Linker::func_raw`].
pub type RawHostFn = Rc<dyn Fn(&mut Caller<'_>, &mut [u64]) -> Result<(), Trap>>;

/// Clear the upper 32 bits of a raw host function's 32-bit results (see
/// [`RawHostFn`]), as the tiers keep them.
pub(crate) fn zero_extend_results(results: &[ValType], slots: &mut [u64]) {
    for (s, t) in slots.iter_mut().zip(results) {
        if matches!(t, ValType::I32 | ValType::F32) {
            *s &= 0xffff_ffff;
        }
    }
}

pub(crate) enum FuncKind {
    Wasm { instance: InstanceId, func_idx: u32 },
    Host(HostFn),
}

pub(crate) struct FuncInst {
    pub ty: FuncType,
    /// Store-wide interned id of `ty`, for fast call_indirect checks.
    pub type_id: u32,
    pub kind: FuncKind,
    /// A host function's raw form, if it has one ([`Linker::func_raw`]).
    pub raw: Option<RawHostFn>,
}

pub struct MemoryInst {
    /// The accessible bytes (a guard-page reservation, see `linear_memory.rs`).
    pub(crate) data: crate::runtime::linear_memory::LinearMemory,
    pub(crate) max_pages: u64,
    pub(crate) ty: MemoryType,
    /// What JIT code sees: base and length, kept equal to `data`'s.
    pub(crate) vm: Box<crate::runtime::vm::VMMemory>,
}

impl MemoryInst {
    pub(crate) fn new(
        data: crate::runtime::linear_memory::LinearMemory,
        max_pages: u64,
        ty: MemoryType,
    ) -> MemoryInst {
        let mut m = MemoryInst {
            data,
            max_pages,
            ty,
            vm: Box::new(crate::runtime::vm::VMMemory {
                base: std::ptr::null_mut(),
                len: 0,
            }),
        };
        m.sync();
        m
    }
    /// Update the JIT's view after `data` changed size.
    pub(crate) fn sync(&mut self) {
        self.vm.base = self.data.as_mut_ptr();
        self.vm.len = self.data.len() as u64;
    }
    pub fn pages(&self) -> u64 {
        (self.data.len() as u64) >> self.ty.page_size_log2
    }
    /// The memory's bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
    /// The memory's bytes, to write. Their length (and base) can only change
    /// through [`MemoryInst::grow`], which keeps compiled code's view in sync.
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.data
    }
    pub fn ty(&self) -> MemoryType {
        self.ty
    }
    /// Grow by `delta` pages; returns the old size in pages or -1.
    pub fn grow(&mut self, delta: u64) -> i64 {
        let old = self.pages();
        let new = match old.checked_add(delta) {
            Some(n) if n <= self.max_pages => n,
            _ => return -1,
        };
        let new_len = (new << self.ty.page_size_log2) as usize;
        if !self.data.resize(new_len) {
            return -1;
        }
        self.sync();
        old as i64
    }
}

pub struct TableInst {
    /// Reference slots: 0 is null, otherwise address + 1.
    pub(crate) elems: Vec<u64>,
    pub(crate) max: Option<u64>,
    pub(crate) ty: TableType,
    /// What JIT code sees, kept equal to `elems`.
    pub(crate) vm: Box<crate::runtime::vm::VMTable>,
}

impl TableInst {
    pub(crate) fn new(elems: Vec<u64>, max: Option<u64>, ty: TableType) -> TableInst {
        let mut t = TableInst {
            elems,
            max,
            ty,
            vm: Box::new(crate::runtime::vm::VMTable {
                base: std::ptr::null_mut(),
                len: 0,
            }),
        };
        t.sync();
        t
    }
    pub(crate) fn sync(&mut self) {
        self.vm.base = self.elems.as_mut_ptr();
        self.vm.len = self.elems.len() as u64;
    }
    /// The reference slots (0 is null, otherwise a store address + 1); read
    /// only: a slot written from outside could name a function that does not exist.
    pub fn elems(&self) -> &[u64] {
        &self.elems
    }
    pub fn ty(&self) -> TableType {
        self.ty
    }
    pub(crate) fn grow(&mut self, delta: u64, init: u64) -> i64 {
        let old = self.elems.len() as u64;
        let limit = self.max.unwrap_or(u32::MAX as u64).min(u32::MAX as u64);
        match old.checked_add(delta) {
            Some(n) if n <= limit => {
                if self.elems.try_reserve(delta as usize).is_err() {
                    return -1;
                }
                self.elems.resize(n as usize, init);
                self.sync();
                old as i64
            }
            _ => -1,
        }
    }
}

/// A global. `value` holds every one-slot value; a `v128` keeps its low half
/// there and its high half in `hi`, right after it (`repr(C)`), so compiled
/// code reads and writes all 16 bytes through a pointer to `value`.
#[repr(C)]
pub struct GlobalInst {
    pub(crate) value: u64,
    pub(crate) hi: u64,
    pub(crate) ty: GlobalType,
}

impl GlobalInst {
    pub(crate) fn new(ty: GlobalType, v: u128) -> GlobalInst {
        GlobalInst {
            value: v as u64,
            hi: (v >> 64) as u64,
            ty,
        }
    }

    /// Both halves, for a `v128` (the low one alone otherwise).
    pub(crate) fn bits(&self) -> u128 {
        self.value as u128 | (self.hi as u128) << 64
    }
}

/// An instantiated module: its index spaces mapped to store addresses.
pub struct InstanceData {
    pub module: Arc<Module>,
    pub funcs: Vec<FuncAddr>,
    pub tables: Vec<TableAddr>,
    pub memories: Vec<MemAddr>,
    pub globals: Vec<GlobalAddr>,
    pub tags: Vec<TagAddr>,
    /// Module type index -> store type id.
    pub type_ids: Vec<u32>,
    /// Element segments (items as reference slots); emptied by elem.drop.
    pub elems: Vec<Rc<[u64]>>,
    /// Whether each data segment was dropped.
    pub data_dropped: Vec<bool>,
    pub exports: HashMap<String, Extern>,
    /// JIT: the instance's vmctx block and compiled code (jit tiers only).
    #[cfg_attr(not(wizeng_jit), allow(dead_code))]
    pub(crate) vmctx: Option<Box<[u64]>>,
    /// The compiled tier's code for this instance (opaque here, see `Store::tiers`).
    #[cfg_attr(not(wizeng_jit), allow(dead_code))]
    pub(crate) jit_code: Option<Rc<dyn Any>>,
}

/// Which tier runs Wasm code.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tier {
    /// The interpreter.
    Int,
    /// Compile every function with Cranelift before running.
    Jit,
    /// Compile each function with Cranelift on its first call.
    Lazy,
    /// Interpret; compile a function once it is hot (calls, or iterations of
    /// one of its loops, which then continues in compiled code by OSR).
    Dyn,
}

/// Engine configuration and limits.
#[derive(Clone, Debug)]
pub struct Config {
    /// Execution tier.
    pub tier: Tier,
    /// Maximum number of nested Wasm activations.
    pub max_call_depth: usize,
    /// Value stack size in 8-byte slots.
    pub value_stack_slots: usize,
    /// Bytes the GC heap may hold: an `array.new`/`array.new_default` that
    /// would take the heap (live bytes after the last collection plus those
    /// allocated since) beyond it traps "allocation too large". Unlimited
    /// by default.
    pub max_gc_heap_bytes: u64,
    /// Dyn tier: a function is compiled at its this-many-th call, and a loop
    /// enters compiled code (OSR) at its this-many-th iteration.
    pub dyn_threshold: u32,
    /// Dyn tier: compile on a background thread while the interpreter keeps
    /// running (the CLI's default); off, the interpreter waits for each
    /// compile (deterministic: what tests of the tier-up itself use).
    pub background_compile: bool,
    /// The directory of the compiled-code cache (JIT tiers): compiled code is
    /// looked up there before compiling and stored after (`None`: no cache).
    pub code_cache: Option<std::path::PathBuf>,
    /// The most bytes the cache's entries may take: the least recently used
    /// are removed when a sweep (at most hourly) finds more (0: no limit).
    pub code_cache_limit: u64,
}

/// The default [`Config::code_cache_limit`]: 1 GiB.
pub const DEFAULT_CACHE_LIMIT: u64 = 1 << 30;

impl Default for Config {
    fn default() -> Self {
        Config {
            tier: Tier::Int,
            max_call_depth: 100_000,
            value_stack_slots: 4 << 20,
            max_gc_heap_bytes: u64::MAX,
            dyn_threshold: 1000,
            background_compile: false,
            code_cache: None,
            code_cache_limit: DEFAULT_CACHE_LIMIT,
        }
    }
}

/// The store: owner of every runtime entity.
pub struct Store {
    pub(crate) funcs: Vec<FuncInst>,
    pub(crate) memories: Vec<MemoryInst>,
    pub(crate) tables: Vec<TableInst>,
    /// Boxed: JIT code holds pointers to each global's storage.
    pub(crate) globals: Vec<Box<GlobalInst>>,
    pub(crate) instances: Vec<InstanceData>,
    /// Every type instances and host functions use, canonical per rec group.
    pub(crate) types: crate::runtime::types::TypeRegistry,
    pub(crate) tags: Vec<crate::runtime::exn::TagInst>,
    pub(crate) config: Config,
    /// Current host re-entrancy depth (host -> wasm -> host ...).
    pub(crate) depth: usize,
    /// Last activation serial handed out (frame identity for accessors).
    pub(crate) last_serial: u32,
    /// The application instance dynamic probes attach to.
    pub(crate) app: Option<InstanceId>,
    /// Store-wide view for JIT code (boxed: vmctx blocks point to it).
    pub(crate) vm_store: Box<crate::runtime::vm::VMStoreCtx>,
    /// How JIT code calls each function, by address (see `jit::vm`).
    pub(crate) funcrefs: Vec<crate::runtime::vm::VMFuncRef>,
    /// What the execution tiers keep per store (the JIT's code and counters,
    /// the interpreter's published frames and dynamic probe sites). Made by the
    /// tier layer when it creates the store (`exec::Store::new`) and only read
    /// back by it (`exec::state`): the runtime does not depend on the tiers.
    pub(crate) tiers: Box<dyn Any>,
    /// Value stacks kept for reuse by later invocations.
    pub(crate) stacks: Vec<super::value_stack::ValueStack>,
    /// GC objects and exceptions (`runtime::gc`).
    pub(crate) heap: crate::runtime::gc::Heap,
    /// App references handed to monitors (`runtime::gc::OpaqueRefs`).
    pub(crate) opaque: std::cell::RefCell<crate::runtime::gc::OpaqueRefs>,
    /// The origin of the monotonic clock host functions read
    /// ([`Linker::clock`]), and those functions: compiled code calls them
    /// without the generic host-call path.
    pub(crate) clock_origin: std::time::Instant,
    pub(crate) clock_funcs: Vec<FuncAddr>,
    /// Functions the funcref array keeps room for beyond those it has, so
    /// that as many can be added while wasm code runs without moving it
    /// ([`Store::keep_room_for_funcs`]).
    pub(crate) spare_funcs: usize,
    /// Host functions called so far (every path: the interpreter's, compiled
    /// code's, the embedder's). A monitor's match phase that made none is a
    /// pure function of the modules' bytes (`monitor::match_cache`).
    pub(crate) host_calls: std::cell::Cell<u64>,
}

/// What a host function sees of its caller.
pub struct Caller<'a> {
    pub store: &'a mut Store,
    /// The instance whose code made the call (None when called from the embedder).
    pub instance: Option<InstanceId>,
}

impl<'a> Caller<'a> {
    /// The caller's memory exported as `memory`, else its memory 0.
    pub fn memory_addr(&self) -> Option<MemAddr> {
        let inst = &self.store.instances[self.instance?.0 as usize];
        if let Some(Extern::Memory(m)) = inst.exports.get("memory") {
            return Some(*m);
        }
        inst.memories.first().copied()
    }

    /// The caller's default memory (see [`Caller::memory_addr`]) as bytes.
    pub fn memory_mut(&mut self) -> Result<&mut [u8], Trap> {
        let m = self.memory_addr().ok_or_else(|| {
            Trap::host("host function needs the caller's memory, but it has none")
        })?;
        Ok(&mut self.store.memories[m.0 as usize].data)
    }

    /// The caller's memory 0 (what the monitor ABI's `wizeng.puts` reads).
    pub fn memory0(&mut self) -> Result<&mut [u8], Trap> {
        let inst = self.instance.ok_or_else(|| {
            Trap::host(
                "host function needs the caller's memory, but it was called from outside Wasm",
            )
        })?;
        let m = *self.store.instances[inst.0 as usize]
            .memories
            .first()
            .ok_or_else(|| {
                Trap::host("host function needs the caller's memory 0, but it has none")
            })?;
        Ok(&mut self.store.memories[m.0 as usize].data)
    }
}

impl Store {
    /// A store whose tiers keep `tiers` (see the field).
    pub(crate) fn with_tiers(config: Config, tiers: Box<dyn Any>) -> Store {
        Store {
            funcs: Vec::new(),
            memories: Vec::new(),
            tables: Vec::new(),
            globals: Vec::new(),
            instances: Vec::new(),
            types: Default::default(),
            tags: Vec::new(),
            config,
            depth: 0,
            stacks: Vec::new(),
            heap: Default::default(),
            opaque: Default::default(),
            vm_store: Box::new(crate::runtime::vm::VMStoreCtx {
                funcrefs: std::ptr::null(),
                store: std::ptr::null_mut(),
                stack_limit: 0,
                osr_locals: std::ptr::null(),
            }),
            funcrefs: Vec::new(),
            tiers,
            app: None,
            last_serial: 0,
            clock_origin: std::time::Instant::now(),
            clock_funcs: Vec::new(),
            spare_funcs: 0,
            host_calls: std::cell::Cell::new(0),
        }
    }

    /// Nanoseconds since the store was made, on the monotonic clock (what
    /// [`Linker::clock`] functions return).
    pub(crate) fn clock_nanos(&self) -> u64 {
        self.clock_origin.elapsed().as_nanos() as u64
    }

    /// Count a host function call (see [`Store::host_calls`]).
    #[inline]
    pub(crate) fn count_host_call(&self) {
        self.host_calls.set(self.host_calls.get() + 1);
    }

    /// Make a host function call `f` from `instance` (None: the embedder):
    /// counted, one host re-entry level deeper while it runs.
    #[inline]
    pub(crate) fn call_host<R>(
        &mut self,
        instance: Option<InstanceId>,
        f: impl FnOnce(&mut Caller<'_>) -> R,
    ) -> R {
        self.count_host_call();
        self.depth += 1;
        let r = f(&mut Caller {
            store: self,
            instance,
        });
        self.depth -= 1;
        r
    }

    /// Whether `f` is a clock function ([`Linker::clock`]).
    pub(crate) fn is_clock(&self, f: FuncAddr) -> bool {
        self.clock_funcs.contains(&f)
    }

    pub(crate) fn intern_type(&mut self, ty: &FuncType) -> u32 {
        self.types.intern_func(ty)
    }

    /// Add a host function. Its results are checked after every call: each
    /// must have the declared type, and a function reference must name a
    /// function of this store (compiled code indexes the store's functions by
    /// it without a check), else the call traps.
    pub fn add_host_func(&mut self, ty: FuncType, f: HostFn) -> FuncAddr {
        let type_id = self.intern_type(&ty);
        self.add_host_func_typed(ty, type_id, f)
    }

    /// [`Store::add_host_func`] with the store type id `type_id` (a module's
    /// type, which `ty` describes without its reference details).
    pub(crate) fn add_host_func_typed(
        &mut self,
        ty: FuncType,
        type_id: u32,
        f: HostFn,
    ) -> FuncAddr {
        let want = ty.results.clone();
        let f: HostFn = Rc::new(
            move |c: &mut Caller<'_>, args: &[Value], res: &mut [Value]| {
                f(c, args, res)?;
                for (v, t) in res.iter().zip(want.iter()) {
                    if v.ty() != *t {
                        return Err(Trap::host(format!(
                            "host function returned a {} where its type says {t}",
                            v.ty()
                        )));
                    }
                    c.store.check_value(v)?;
                }
                Ok(())
            },
        );
        self.push_func(FuncInst {
            ty,
            type_id,
            kind: FuncKind::Host(f),
            raw: None,
        })
    }

    /// Keep room for `n` functions added while wasm code runs
    /// (`wizeng.new_funcref`). Called while no wasm code runs.
    pub(crate) fn keep_room_for_funcs(&mut self, n: usize) {
        self.spare_funcs = self.spare_funcs.max(n);
        self.funcrefs.reserve(n);
        self.vm_store.funcrefs = self.funcrefs.as_ptr();
    }

    /// Whether a function can be added now: always while no wasm code runs,
    /// else only into the room kept ([`Store::keep_room_for_funcs`]).
    pub(crate) fn can_add_func(&self) -> bool {
        self.depth == 0 || self.funcrefs.len() < self.funcrefs.capacity()
    }

    pub(crate) fn push_func(&mut self, f: FuncInst) -> FuncAddr {
        // JIT code loads the funcref array's base once per function and keeps
        // it (a readonly load, see `jit::env`): the array must not move while
        // wasm code runs; functions added then go into the room kept.
        assert!(
            self.can_add_func(),
            "functions are added to a store while wasm code runs only into the room kept"
        );
        if self.depth == 0 {
            self.funcrefs.reserve(self.spare_funcs + 1);
        }
        self.funcrefs.push(crate::runtime::vm::VMFuncRef {
            code: std::ptr::null(),
            vmctx: std::ptr::null_mut(),
            type_id: f.type_id as u64,
        });
        self.vm_store.funcrefs = self.funcrefs.as_ptr();
        self.funcs.push(f);
        FuncAddr(self.funcs.len() as u32 - 1)
    }

    /// Add a standalone memory (e.g. the spectest host module's).
    pub fn add_memory(&mut self, ty: MemoryType) -> MemAddr {
        let most = ty.max_pages_here();
        let max_pages = ty.limits.max.unwrap_or(most).min(most);
        let data = crate::runtime::linear_memory::LinearMemory::new(
            (ty.limits.min << ty.page_size_log2) as usize,
        )
        .expect("cannot reserve address space for a linear memory");
        self.memories.push(MemoryInst::new(data, max_pages, ty));
        MemAddr(self.memories.len() as u32 - 1)
    }

    pub fn add_table(&mut self, ty: TableType, init: u64) -> TableAddr {
        self.tables.push(TableInst::new(
            vec![init; ty.limits.min as usize],
            ty.limits.max,
            ty,
        ));
        TableAddr(self.tables.len() as u32 - 1)
    }

    pub fn add_global(&mut self, ty: GlobalType, value: Value) -> GlobalAddr {
        let mut s = [0u64; 2];
        value.write_slots(&mut s);
        self.globals.push(Box::new(GlobalInst::new(
            ty,
            s[0] as u128 | (s[1] as u128) << 64,
        )));
        GlobalAddr(self.globals.len() as u32 - 1)
    }

    /// Name the application instance (the target of dynamic probes).
    pub fn set_app(&mut self, app: InstanceId) {
        self.app = Some(app);
    }

    pub fn func_type(&self, f: FuncAddr) -> &FuncType {
        &self.funcs[f.0 as usize].ty
    }

    /// The GC heap's counters (collections, bytes allocated and live).
    pub fn gc_stats(&self) -> crate::runtime::gc::GcStats {
        self.heap.stats()
    }

    pub fn global_value(&self, g: GlobalAddr) -> Value {
        let gi = &self.globals[g.0 as usize];
        self.seal(Value::read_slots(gi.ty.ty, &[gi.value, gi.hi]))
    }

    /// Set a global's value; it must have the global's type and, if it is a
    /// function reference, name a function of this store.
    pub fn set_global_value(&mut self, g: GlobalAddr, v: Value) -> Result<(), Trap> {
        let gi = &self.globals[g.0 as usize];
        if v.ty() != gi.ty.ty {
            return Err(Trap::host(format!(
                "a {} value for a {} global",
                v.ty(),
                gi.ty.ty
            )));
        }
        self.check_value(&v)?;
        let mut s = [0u64; 2];
        v.write_slots(&mut s);
        let gi = &mut self.globals[g.0 as usize];
        (gi.value, gi.hi) = (s[0], s[1]);
        Ok(())
    }

    /// A value from outside (the embedder, a host function) may enter this
    /// store: a function reference must name one of its functions.
    pub(crate) fn check_value(&self, v: &Value) -> Result<(), Trap> {
        match v {
            Value::FuncRef(Some(f)) if f.0 as usize >= self.funcs.len() => Err(Trap::host(
                format!("function reference {} is not in this store", f.0),
            )),
            Value::AnyRef(r) if crate::core::refs::as_object(r.slot()).is_some() => {
                let (heap, serial) = r.origin();
                if heap != self.heap.id() || self.heap.serial(r.slot()) != Some(serial) {
                    return Err(Trap::host(
                        "object reference is not a live object of this store",
                    ));
                }
                Ok(())
            }
            Value::ExnRef(Some(h)) if self.exception(*h as u64).is_none() => Err(Trap::host(
                format!("exception reference {h} names no exception of this store"),
            )),
            _ => Ok(()),
        }
    }

    /// The opaque `externref` slot a monitor receives for app reference
    /// slot `r` (`runtime::gc::OpaqueRefs`).
    pub(crate) fn opaque_ref(&self, r: u64) -> u64 {
        self.opaque.borrow_mut().handle(&self.heap, r)
    }

    /// Whether reference slot `r` is a value of `(ref null? heap)`, module
    /// type indices mapped to store ids by `type_ids` (the instance's): what
    /// `ref.test` computes, and what a typed reference from outside must pass.
    pub(crate) fn slot_is(&self, r: u64, nullable: bool, heap: HeapTy, type_ids: &[u32]) -> bool {
        use crate::runtime::gc::ObjectKind as K;
        if r == 0 {
            return nullable;
        }
        let obj_kind = || self.heap.get(r).map(|o| o.kind);
        match heap {
            HeapTy::Any | HeapTy::Extern | HeapTy::Func => true,
            HeapTy::None | HeapTy::NoFunc | HeapTy::NoExtern | HeapTy::NoExn => false,
            HeapTy::I31 => crate::core::refs::as_i31(r).is_some(),
            HeapTy::Eq => {
                crate::core::refs::as_i31(r).is_some()
                    || matches!(obj_kind(), Some(K::Struct | K::Array))
            }
            HeapTy::Struct => obj_kind() == Some(K::Struct),
            HeapTy::Array => obj_kind() == Some(K::Array),
            HeapTy::Exn => obj_kind() == Some(K::Exception),
            HeapTy::Concrete(i) => {
                let Some(&want) = type_ids.get(i as usize) else {
                    return false;
                };
                let have = if self.types.is_func(want) {
                    self.funcs.get((r - 1) as usize).map(|f| f.type_id)
                } else {
                    self.heap
                        .get(r)
                        .filter(|o| o.kind != K::Exception)
                        .map(|o| o.ty)
                };
                have.is_some_and(|h| self.types.is_subtype(h, want))
            }
        }
    }

    /// Arguments for Wasm function `f` from outside: each reference must
    /// be of its parameter's full type (non-null, concrete function or
    /// object type), which the lossy [`FuncType`] does not say; compiled
    /// code and the interpreter rely on it (`call_ref` checks no type).
    pub(crate) fn check_args(&self, f: FuncAddr, args: &[Value]) -> Result<(), Trap> {
        let FuncKind::Wasm { instance, func_idx } = &self.funcs[f.0 as usize].kind else {
            return Ok(());
        };
        let inst = &self.instances[instance.0 as usize];
        let m = &inst.module;
        let Some(sub) = m
            .func_types
            .get(*func_idx as usize)
            .and_then(|t| m.gc.types.get(*t as usize))
        else {
            return Ok(());
        };
        for (k, (p, a)) in sub.fields.iter().zip(args).enumerate() {
            if let FullType::Ref { nullable, heap } = p.ty {
                if !self.slot_is(a.to_slot(), nullable, heap, &inst.type_ids) {
                    return Err(Trap::host(format!(
                        "argument {k} is not a value of its parameter's reference type"
                    )));
                }
            }
        }
        Ok(())
    }

    /// A value read from Wasm state, with an object handle completed (its
    /// kind, this heap's identity, the object's serial) so that it can come
    /// back in ([`Store::check_value`]).
    pub(crate) fn seal(&self, v: Value) -> Value {
        let Value::AnyRef(r) = v else { return v };
        let s = r.slot();
        let (Some(obj), Some(serial)) = (self.heap.get(s), self.heap.serial(s)) else {
            return v;
        };
        let kind = match obj.kind {
            crate::runtime::gc::ObjectKind::Struct => GcKind::Struct,
            crate::runtime::gc::ObjectKind::Array => GcKind::Array,
            crate::runtime::gc::ObjectKind::Exception => GcKind::Exception,
        };
        Value::AnyRef(GcRef::object(s, self.heap.id(), serial, kind))
    }

    /// Execution settings (change them by making a new store).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Every memory of the store, by address.
    pub fn memories(&self) -> &[MemoryInst] {
        &self.memories
    }

    /// Number of globals in the store (addresses `0..n`).
    pub fn num_globals(&self) -> usize {
        self.globals.len()
    }

    /// Every table of the store, by address.
    pub fn tables(&self) -> &[TableInst] {
        &self.tables
    }

    pub fn memory(&self, m: MemAddr) -> &MemoryInst {
        &self.memories[m.0 as usize]
    }

    pub fn memory_mut(&mut self, m: MemAddr) -> &mut MemoryInst {
        &mut self.memories[m.0 as usize]
    }

    pub fn instance(&self, i: InstanceId) -> &InstanceData {
        &self.instances[i.0 as usize]
    }

    pub fn export(&self, i: InstanceId, name: &str) -> Option<Extern> {
        self.instances[i.0 as usize].exports.get(name).copied()
    }

    pub fn export_func(&self, i: InstanceId, name: &str) -> Option<FuncAddr> {
        match self.export(i, name) {
            Some(Extern::Func(f)) => Some(f),
            _ => None,
        }
    }

    /// Describe a function for messages: `name (func N)` with the module's name section.
    pub fn describe_func(&self, f: FuncAddr) -> String {
        match &self.funcs[f.0 as usize].kind {
            FuncKind::Wasm { instance, func_idx } => {
                let m = &self.instances[instance.0 as usize].module;
                format!("{} (func {func_idx})", m.func_name(*func_idx))
            }
            FuncKind::Host(_) => "host function".to_string(),
        }
    }

    /// Describe tag `tag` for messages, as instance `inst` knows it: its
    /// import name (`"module" "name"`), else its export name, else its index
    /// in the instance's module.
    pub fn describe_tag(&self, inst: InstanceId, tag: TagAddr) -> String {
        let idata = &self.instances[inst.0 as usize];
        let m = &idata.module;
        let Some(k) = idata.tags.iter().position(|t| *t == tag) else {
            return format!("at store address {}", tag.0);
        };
        let mut imported = m
            .imports
            .iter()
            .filter(|i| i.desc.kind() == ExternKind::Tag);
        if let Some(i) = imported.nth(k) {
            return format!("{:?} {:?} (tag {k})", i.module, i.name);
        }
        if let Some(e) = m
            .exports
            .iter()
            .find(|e| e.kind == ExternKind::Tag && e.index as usize == k)
        {
            return format!("{:?} (tag {k})", e.name);
        }
        match &m.name {
            Some(n) => format!("{k} of module {n}"),
            None => format!("{k} (unexported, of instance {})", inst.0),
        }
    }

    /// The tag and payload slots of the exception an `exnref` slot names.
    pub fn exception(&self, slot: u64) -> Option<(TagAddr, &[u64])> {
        crate::runtime::exn::get(&self.heap, slot)
    }

    /// Add an exception tag of type `ty` (no results) for an embedder to
    /// provide as an import: its type is `ty` alone (a recursion group of
    /// one), as a module's tag of a type declared outside any group.
    pub fn add_tag(&mut self, ty: FuncType) -> TagAddr {
        let identity = (vec![ty.clone()], 0);
        self.tags
            .push(crate::runtime::exn::TagInst { ty, identity });
        TagAddr(self.tags.len() as u32 - 1)
    }

    /// The type of tag `t`.
    pub fn tag_type(&self, t: TagAddr) -> &FuncType {
        &self.tags[t.0 as usize].ty
    }

    /// Instantiate a module with resolved imports (in the module's import
    /// order), up to but not including its start function: allocate its
    /// entities, call `prepare` (the tiers compile its code), then initialise
    /// the active segments. The tier layer's `Store::instantiate_with` runs the
    /// start function after this.
    pub(crate) fn instantiate_parts(
        &mut self,
        module: &Arc<Module>,
        imports: &[Extern],
        prepare: &mut dyn FnMut(&mut Store, InstanceId) -> Result<(), Trap>,
    ) -> Result<InstanceId, InstantiateError> {
        let id = InstanceId(self.instances.len() as u32);
        let type_ids: Vec<u32> = self.types.intern_module(module);
        let mut inst = InstanceData {
            module: module.clone(),
            funcs: Vec::new(),
            tables: Vec::new(),
            memories: Vec::new(),
            globals: Vec::new(),
            tags: Vec::new(),
            type_ids,
            elems: Vec::new(),
            data_dropped: vec![false; module.datas.len()],
            exports: HashMap::new(),
            vmctx: None,
            jit_code: None,
        };
        take_imports(&mut inst, module, imports)?;
        self.define_funcs_and_tags(&mut inst, id);
        self.define_globals_and_tables(&mut inst)?;
        self.define_memories_and_elems(&mut inst)?;
        for e in &module.exports {
            let ext = match e.kind {
                ExternKind::Func => Extern::Func(inst.funcs[e.index as usize]),
                ExternKind::Table => Extern::Table(inst.tables[e.index as usize]),
                ExternKind::Memory => Extern::Memory(inst.memories[e.index as usize]),
                ExternKind::Global => Extern::Global(inst.globals[e.index as usize]),
                ExternKind::Tag => Extern::Tag(inst.tags[e.index as usize]),
            };
            inst.exports.insert(e.name.clone(), ext);
        }
        self.instances.push(inst);
        // Compiled before segments are initialised: a failed instantiation can
        // leave its functions in an imported table, where they stay callable.
        prepare(self, id)?;
        // Active element segments, then active data segments, in order; a failure
        // traps but leaves earlier writes in place (the spec's semantics).
        self.init_active_elems(id)?;
        self.init_active_datas(id)?;
        Ok(id)
    }

    /// The module's own functions and tags, appended to `inst`'s imported ones.
    fn define_funcs_and_tags(&mut self, inst: &mut InstanceData, id: InstanceId) {
        let module = inst.module.clone();
        for i in module.num_imported_funcs..module.num_funcs() {
            let ty = module.func_type(i).clone();
            let type_id = inst.type_ids[module.func_types[i as usize] as usize];
            let a = self.push_func(FuncInst {
                ty,
                type_id,
                kind: FuncKind::Wasm {
                    instance: id,
                    func_idx: i,
                },
                raw: None,
            });
            inst.funcs.push(a);
        }
        for &ti in &module.tag_types[module.num_imported_tags as usize..] {
            self.tags.push(crate::runtime::exn::TagInst {
                ty: module.types[ti as usize].clone(),
                identity: module.type_identity(ti),
            });
            inst.tags.push(TagAddr(self.tags.len() as u32 - 1));
        }
    }

    /// The module's own globals (initialisers may read imported and earlier
    /// globals, and `ref.func`) and tables.
    fn define_globals_and_tables(&mut self, inst: &mut InstanceData) -> Result<(), Trap> {
        let module = inst.module.clone();
        for g in &module.globals {
            let v = self.eval_const(inst, &g.init)?;
            let ty = GlobalType {
                detail: in_store(&inst.type_ids, g.ty.detail),
                ..g.ty
            };
            self.globals.push(Box::new(GlobalInst::new(ty, v)));
            inst.globals.push(GlobalAddr(self.globals.len() as u32 - 1));
        }
        for t in &module.tables {
            // (A 64-bit table may declare more; tables grow to at most this.)
            if t.ty.limits.min > u32::MAX as u64 {
                return Err(Trap::host(format!(
                    "cannot allocate a table of {} elements",
                    t.ty.limits.min
                )));
            }
            let init = match &t.init {
                Some(e) => self.eval_const(inst, e)? as u64,
                None => 0,
            };
            let ty = TableType {
                detail: in_store(&inst.type_ids, t.ty.detail),
                ..t.ty
            };
            let a = self.add_table(ty, init);
            inst.tables.push(a);
        }
        Ok(())
    }

    /// The module's own memories, and every element segment's items
    /// (evaluated now, copied into tables after the code is prepared).
    fn define_memories_and_elems(&mut self, inst: &mut InstanceData) -> Result<(), Trap> {
        let module = inst.module.clone();
        for m in &module.memories {
            if m.limits.min > m.max_pages_here() {
                return Err(Trap::host(format!(
                    "cannot allocate a memory of {} pages (at most {})",
                    m.limits.min,
                    m.max_pages_here()
                )));
            }
            let a = self.add_memory(*m);
            inst.memories.push(a);
        }
        for e in &module.elems {
            let mut items: Vec<u64> = Vec::with_capacity(e.items.len());
            for x in &e.items {
                items.push(self.eval_const(inst, x)? as u64);
            }
            inst.elems.push(items.into());
        }
        Ok(())
    }

    /// Copy instance `id`'s active element segments into their tables, in
    /// order, and drop them (declared ones too).
    fn init_active_elems(&mut self, id: InstanceId) -> Result<(), Trap> {
        let module = self.instances[id.0 as usize].module.clone();
        for (i, e) in module.elems.iter().enumerate() {
            match &e.mode {
                ElemMode::Active { table, offset } => {
                    let off = self.eval_offset(id, offset);
                    let inst = &self.instances[id.0 as usize];
                    let taddr = inst.tables[*table as usize];
                    // An i64 offset of a 64-bit table, else an i32 one.
                    let off = if self.tables[taddr.0 as usize].ty.index64 {
                        off
                    } else {
                        off as u32 as u64
                    };
                    let items = inst.elems[i].clone();
                    let t = &mut self.tables[taddr.0 as usize];
                    if off.saturating_add(items.len() as u64) > t.elems.len() as u64 {
                        return Err(Trap::new(TrapKind::TableOutOfBounds));
                    }
                    t.elems[off as usize..off as usize + items.len()].copy_from_slice(&items);
                    self.instances[id.0 as usize].elems[i] = Rc::from([]);
                }
                ElemMode::Declared => self.instances[id.0 as usize].elems[i] = Rc::from([]),
                ElemMode::Passive => {}
            }
        }
        Ok(())
    }

    /// Copy instance `id`'s active data segments into their memories, in
    /// order, and drop them.
    fn init_active_datas(&mut self, id: InstanceId) -> Result<(), Trap> {
        let module = self.instances[id.0 as usize].module.clone();
        for (i, d) in module.datas.iter().enumerate() {
            if let DataMode::Active { memory, offset } = &d.mode {
                let off = self.eval_offset(id, offset);
                let inst = &self.instances[id.0 as usize];
                let maddr = inst.memories[*memory as usize];
                // An i32 offset of a 32-bit memory, an i64 one of a 64-bit memory.
                let off = if self.memories[maddr.0 as usize].ty.index64 {
                    off
                } else {
                    off as u32 as u64
                };
                let bytes = &module.bytes[d.range.clone()];
                let mem = &mut self.memories[maddr.0 as usize];
                if off.saturating_add(bytes.len() as u64) > mem.data.len() as u64 {
                    return Err(Trap::new(TrapKind::MemoryOutOfBounds));
                }
                mem.data[off as usize..off as usize + bytes.len()].copy_from_slice(bytes);
                self.instances[id.0 as usize].data_dropped[i] = true;
            }
        }
        Ok(())
    }

    /// A segment offset (numeric: allocates nothing) of instance `id`.
    fn eval_offset(&mut self, id: InstanceId, e: &ConstExpr) -> u64 {
        // (Lent out of the instance, not copied: a woven module's instance
        // has hundreds of thousands of globals, and a module thousands of
        // segments.)
        let inst = &mut self.instances[id.0 as usize];
        let funcs = std::mem::take(&mut inst.funcs);
        let globals = std::mem::take(&mut inst.globals);
        let scope = ConstScope {
            funcs: &funcs,
            globals: &globals,
            type_ids: &[],
        };
        let r = self.eval_in(&scope, e).unwrap_or(0) as u64;
        let inst = &mut self.instances[id.0 as usize];
        inst.funcs = funcs;
        inst.globals = globals;
        r
    }

    /// Evaluate a constant expression in the context of an instance under construction.
    /// Evaluates to the value's bits (a one-slot value in the low 64).
    fn eval_const(&mut self, inst: &InstanceData, e: &ConstExpr) -> Result<u128, Trap> {
        let scope = ConstScope {
            funcs: &inst.funcs,
            globals: &inst.globals,
            type_ids: &inst.type_ids,
        };
        self.eval_in(&scope, e)
    }

    fn eval_in(&mut self, inst: &ConstScope<'_>, e: &ConstExpr) -> Result<u128, Trap> {
        let mut st: Vec<u128> = Vec::with_capacity(4);
        for op in &e.0 {
            match op {
                ConstOp::I32(v) => st.push(*v as u32 as u128),
                ConstOp::I64(v) => st.push(*v as u64 as u128),
                ConstOp::F32(b) => st.push(*b as u128),
                ConstOp::F64(b) => st.push(*b as u128),
                ConstOp::V128(b) => st.push(*b),
                ConstOp::RefNull(_) => st.push(0),
                ConstOp::RefFunc(f) => st.push(inst.funcs[*f as usize].0 as u128 + 1),
                ConstOp::GlobalGet(g) => {
                    st.push(self.globals[inst.globals[*g as usize].0 as usize].bits())
                }
                ConstOp::I32Add | ConstOp::I32Sub | ConstOp::I32Mul => {
                    let b = st.pop().unwrap_or(0) as u32;
                    let a = st.pop().unwrap_or(0) as u32;
                    st.push(match op {
                        ConstOp::I32Add => a.wrapping_add(b),
                        ConstOp::I32Sub => a.wrapping_sub(b),
                        _ => a.wrapping_mul(b),
                    } as u128)
                }
                ConstOp::I64Add | ConstOp::I64Sub | ConstOp::I64Mul => {
                    let b = st.pop().unwrap_or(0) as u64;
                    let a = st.pop().unwrap_or(0) as u64;
                    st.push(match op {
                        ConstOp::I64Add => a.wrapping_add(b),
                        ConstOp::I64Sub => a.wrapping_sub(b),
                        _ => a.wrapping_mul(b),
                    } as u128)
                }
                gc => {
                    let r = self.eval_gc_const(inst.type_ids, gc, &mut st)?;
                    st.push(r as u128)
                }
            }
        }
        Ok(st.pop().unwrap_or(0))
    }
}

/// What a constant expression may name of its instance.
struct ConstScope<'a> {
    funcs: &'a [FuncAddr],
    globals: &'a [GlobalAddr],
    type_ids: &'a [u32],
}

/// Resolves imports by (module, name) and instantiates modules.
#[derive(Default, Clone)]
pub struct Linker {
    defs: HashMap<(String, String), Extern>,
    /// Functions for one import type only (module, name, the importer's type
    /// index), found before `defs`: [`Linker::define_for_type`].
    for_type: HashMap<(String, String, u32), FuncAddr>,
}

impl Linker {
    pub fn new() -> Linker {
        Linker::default()
    }

    pub fn define(&mut self, module: &str, name: &str, ext: Extern) {
        self.defs
            .insert((module.to_string(), name.to_string()), ext);
    }

    /// Define `module.name` for the imports of it at type index `ty` of the
    /// module about to be linked (a function whose type is the importer's).
    pub(crate) fn define_for_type(&mut self, module: &str, name: &str, ty: u32, f: FuncAddr) {
        self.for_type
            .insert((module.to_string(), name.to_string(), ty), f);
    }

    pub fn get(&self, module: &str, name: &str) -> Option<Extern> {
        self.defs
            .get(&(module.to_string(), name.to_string()))
            .copied()
    }

    /// Define a host function under (module, name).
    pub fn func(
        &mut self,
        store: &mut Store,
        module: &str,
        name: &str,
        ty: FuncType,
        f: impl Fn(&mut Caller<'_>, &[Value], &mut [Value]) -> Result<(), Trap> + 'static,
    ) -> FuncAddr {
        let a = store.add_host_func(ty, Rc::new(f));
        self.define(module, name, Extern::Func(a));
        a
    }

    /// Define `module.name` as a host function on raw slots (see
    /// [`RawHostFn`]); its type must have only `i32`, `i64`, `f32` and `f64`
    /// (at most 8 of each side), else this panics. The embedder's calls
    /// (and every other path) convert to and from [`Value`]s as for
    /// [`Linker::func`].
    pub fn func_raw(
        &mut self,
        store: &mut Store,
        module: &str,
        name: &str,
        ty: FuncType,
        f: impl Fn(&mut Caller<'_>, &mut [u64]) -> Result<(), Trap> + 'static,
    ) -> FuncAddr {
        let one_slot =
            |t: &ValType| matches!(t, ValType::I32 | ValType::I64 | ValType::F32 | ValType::F64);
        assert!(
            ty.params.iter().chain(ty.results.iter()).all(one_slot)
                && ty.params.len() <= 8
                && ty.results.len() <= 8,
            "func_raw: {ty} is not a type of one-slot numbers"
        );
        let raw: RawHostFn = Rc::new(f);
        let g = raw.clone();
        let n = ty.params.len().max(ty.results.len());
        let results = ty.results.clone();
        let a = self.func(store, module, name, ty, move |c, args, res| {
            let mut slots = [0u64; 8];
            for (s, v) in slots.iter_mut().zip(args) {
                *s = v.to_slot();
            }
            g(c, &mut slots[..n])?;
            for ((r, s), t) in res.iter_mut().zip(slots).zip(results.iter()) {
                *r = Value::from_slot(*t, s);
            }
            Ok(())
        });
        store.funcs[a.0 as usize].raw = Some(raw);
        a
    }

    /// Define `module.name` as the store's monotonic clock, `[] -> [i64]`:
    /// nanoseconds since the store was made. Compiled code calls it through a
    /// trampoline of its own, a few nanoseconds instead of a host call's
    /// round trip (a profiler reads it twice in each of its probes).
    pub fn clock(&mut self, store: &mut Store, module: &str, name: &str) -> FuncAddr {
        let ty = FuncType::new([], [ValType::I64]);
        let a = self.func(store, module, name, ty, |c, _, r| {
            r[0] = Value::I64(c.store.clock_nanos() as i64);
            Ok(())
        });
        store.clock_funcs.push(a);
        a
    }

    /// Make every export of an instance importable under `module`.
    pub fn instance(&mut self, store: &Store, module: &str, inst: InstanceId) {
        for (name, ext) in &store.instances[inst.0 as usize].exports {
            self.define(module, name, *ext);
        }
    }

    /// Resolve and type-check a module's imports.
    pub fn resolve(&self, store: &Store, module: &Module) -> Result<Vec<Extern>, LinkError> {
        let mut out = Vec::with_capacity(module.imports.len());
        let ids = store.types.lookup_module(module);
        for imp in &module.imports {
            let typed = match imp.desc {
                ImportDesc::Func(t) => {
                    let key = (imp.module.clone(), imp.name.clone(), t);
                    self.for_type.get(&key).map(|f| Extern::Func(*f))
                }
                _ => None,
            };
            let ext = typed
                .or_else(|| self.get(&imp.module, &imp.name))
                .ok_or_else(|| LinkError::UnknownImport {
                    module: imp.module.clone(),
                    name: imp.name.clone(),
                    kind: imp.desc.kind(),
                })?;
            check_import(store, module, &ids, imp, ext)?;
            out.push(ext);
        }
        Ok(out)
    }
}

/// Put the resolved imports (in the module's import order, already
/// type-checked by the linker) into `inst`.
fn take_imports(
    inst: &mut InstanceData,
    module: &Module,
    imports: &[Extern],
) -> Result<(), LinkError> {
    for (imp, ext) in module.imports.iter().zip(imports) {
        match (&imp.desc, ext) {
            (ImportDesc::Func(_), Extern::Func(f)) => inst.funcs.push(*f),
            (ImportDesc::Table(_), Extern::Table(t)) => inst.tables.push(*t),
            (ImportDesc::Memory(_), Extern::Memory(m)) => inst.memories.push(*m),
            (ImportDesc::Global(_), Extern::Global(g)) => inst.globals.push(*g),
            (ImportDesc::Tag(_), Extern::Tag(t)) => inst.tags.push(*t),
            _ => {
                return Err(LinkError::IncompatibleImport {
                    module: imp.module.clone(),
                    name: imp.name.clone(),
                    detail: format!("expected a {}, got a {}", imp.desc.kind(), ext.kind()),
                })
            }
        }
    }
    Ok(())
}

/// A module's reference detail with its concrete type (a type index of the
/// module, whose interned ids are `type_ids`) as the store's type id.
fn in_store(type_ids: &[u32], d: RefDetail) -> RefDetail {
    RefDetail {
        concrete: d.concrete.map(|i| type_ids[i as usize]),
        ..d
    }
}

/// An import's reference detail in the store's terms; a concrete type the
/// store has never seen becomes an id no store value has.
fn wanted_in_store(ids: &[Option<u32>], d: RefDetail) -> RefDetail {
    RefDetail {
        concrete: d
            .concrete
            .map(|i| ids.get(i as usize).copied().flatten().unwrap_or(u32::MAX)),
        ..d
    }
}

fn limits_match(actual_min: u64, actual_max: Option<u64>, want: &Limits) -> bool {
    if actual_min < want.min {
        return false;
    }
    match (want.max, actual_max) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(w), Some(a)) => a <= w,
    }
}

fn check_import(
    store: &Store,
    module: &Module,
    ids: &[Option<u32>],
    imp: &Import,
    ext: Extern,
) -> Result<(), LinkError> {
    let bad = |detail: String| LinkError::IncompatibleImport {
        module: imp.module.clone(),
        name: imp.name.clone(),
        detail,
    };
    match (&imp.desc, ext) {
        (ImportDesc::Func(t), Extern::Func(f)) => {
            let have = store.funcs[f.0 as usize].type_id;
            let ok = ids
                .get(*t as usize)
                .copied()
                .flatten()
                .is_some_and(|want| store.types.is_subtype(have, want));
            if !ok {
                let want = &module.types[*t as usize];
                let have = store.func_type(f);
                return Err(bad(format!("expected function type {want}, got {have}")));
            }
        }
        (ImportDesc::Table(want), Extern::Table(t)) => {
            let t = &store.tables[t.0 as usize];
            // Table elements are mutable: the reference types must be equal.
            let detail = wanted_in_store(ids, want.detail);
            if t.ty.elem != want.elem
                || t.ty.index64 != want.index64
                || !store.types.ref_equal(want.elem, t.ty.detail, detail)
                || !limits_match(t.elems.len() as u64, t.max, &want.limits)
            {
                return Err(bad(format!(
                    "table type mismatch: expected {:?}, got {:?} with {} elements",
                    want,
                    t.ty,
                    t.elems.len()
                )));
            }
        }
        (ImportDesc::Memory(want), Extern::Memory(m)) => {
            let m = &store.memories[m.0 as usize];
            if m.ty.shared != want.shared {
                return Err(bad(format!(
                    "memory sharing mismatch: expected {}, got {}",
                    shared_name(want.shared),
                    shared_name(m.ty.shared)
                )));
            }
            if m.ty.index64 != want.index64 {
                let name = |w: bool| if w { "i64" } else { "i32" };
                return Err(bad(format!(
                    "memory index type mismatch: expected {}, got {}",
                    name(want.index64),
                    name(m.ty.index64)
                )));
            }
            if m.ty.page_size_log2 != want.page_size_log2 {
                return Err(bad(format!(
                    "memory page size mismatch: expected {}, got {}",
                    want.page_size(),
                    m.ty.page_size()
                )));
            }
            if !limits_match(m.pages(), m.ty.limits.max, &want.limits) {
                return Err(bad(format!(
                    "memory limits mismatch: expected {:?}, got {} pages, max {:?}",
                    want.limits,
                    m.pages(),
                    m.ty.limits.max
                )));
            }
        }
        (ImportDesc::Global(want), Extern::Global(g)) => {
            let have = store.globals[g.0 as usize].ty;
            let detail = wanted_in_store(ids, want.detail);
            // A constant global's reference may be more precise than the
            // import's type; a mutable one's must be exactly it.
            let details_ok = !want.ty.is_ref()
                || if want.mutable {
                    store.types.ref_equal(want.ty, have.detail, detail)
                } else {
                    store.types.ref_matches(want.ty, have.detail, detail)
                };
            if have.ty != want.ty || have.mutable != want.mutable || !details_ok {
                return Err(bad(format!(
                    "global type mismatch: expected {want:?}, got {have:?}"
                )));
            }
        }
        (ImportDesc::Tag(t), Extern::Tag(a)) => {
            let have = &store.tags[a.0 as usize];
            if have.identity != module.type_identity(*t) {
                return Err(bad(format!(
                    "tag type mismatch: expected {}, got {}",
                    module.types[*t as usize], have.ty
                )));
            }
        }
        (d, e) => return Err(bad(format!("expected a {}, got a {}", d.kind(), e.kind()))),
    }
    Ok(())
}

fn shared_name(shared: bool) -> &'static str {
    if shared {
        "a shared memory"
    } else {
        "an unshared memory"
    }
}
