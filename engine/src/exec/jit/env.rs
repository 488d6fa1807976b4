//! Our `FuncEnvironment` for cranelift-wasm: how Wasm globals, memories,
//! tables, calls and bulk operations map onto the runtime (see `vm.rs`).

use cranelift_codegen::cursor::FuncCursor;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::immediates::Offset32;
use cranelift_codegen::ir::types::{F32, F64, I32, I64};
use cranelift_codegen::ir::{
    self, AbiParam, ArgumentPurpose, InstBuilder, MemFlags, Signature, TrapCode,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_entity::PrimaryMap;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::FuncId;
use cranelift_wasm::{
    FuncEnvironment, FuncIndex, GlobalIndex, GlobalVariable, Heap, HeapData, HeapStyle,
    MemoryIndex, TableIndex, TargetEnvironment, TypeConvert, TypeIndex, WasmHeapType, WasmResult,
};

use super::libcalls;
use crate::core::module::ModuleInfo as Module;
use crate::core::types::{FuncType, ValType};
use crate::runtime::vm::{self, VmLayout};

/// Trap codes beyond Cranelift's own.
pub const TRAP_HOST: TrapCode = TrapCode::User(1);
pub const TRAP_UNDEFINED_ELEMENT: TrapCode = TrapCode::User(2);
/// `call_ref`/`return_call_ref` of a null reference.
pub const TRAP_NULL_FUNC_REF: TrapCode = TrapCode::User(3);
/// `memory.atomic.wait` on an unshared memory, and one that would block
/// forever (see `runtime::atomics`).
pub const TRAP_WAIT_UNSHARED: TrapCode = TrapCode::User(4);
pub const TRAP_WAIT_FOREVER: TrapCode = TrapCode::User(5);

pub fn clif_type(t: ValType) -> ir::Type {
    match t {
        ValType::I32 => I32,
        ValType::I64 => I64,
        ValType::F32 => F32,
        ValType::F64 => F64,
        ValType::FuncRef | ValType::ExternRef | ValType::ExnRef => I64,
        ValType::V128 => ir::types::I8X16,
    }
}

/// The signature of compiled Wasm functions: `(callee_vmctx, caller_vmctx, params...) -> results`,
/// tail calling convention (for `return_call`).
pub fn wasm_sig(ty: &FuncType) -> Signature {
    let mut sig = Signature::new(CallConv::Tail);
    sig.params
        .push(AbiParam::special(I64, ArgumentPurpose::VMContext));
    sig.params.push(AbiParam::new(I64));
    sig.params
        .extend(ty.params.iter().map(|t| AbiParam::new(clif_type(*t))));
    sig.returns
        .extend(ty.results.iter().map(|t| AbiParam::new(clif_type(*t))));
    sig
}

fn libcall_sig(params: &[ir::Type], results: &[ir::Type]) -> Signature {
    let mut sig = Signature::new(CallConv::SystemV);
    sig.params.extend(params.iter().map(|t| AbiParam::new(*t)));
    sig.returns
        .extend(results.iter().map(|t| AbiParam::new(*t)));
    sig
}

/// Arguments (vmctx pair first) of a call, and how to make it.
enum CallTarget {
    Direct(Vec<ir::Value>),
    Indirect(ir::SigRef, ir::Value, Vec<ir::Value>),
}

pub struct Env<'a> {
    pub config: TargetFrontendConfig,
    pub module: &'a Module,
    pub layout: &'a VmLayout,
    pub func_ids: &'a [FuncId],
    heaps: PrimaryMap<Heap, HeapData>,
    /// Explicit bounds checks instead of guard pages (WIZENG_BOUNDS_CHECKS=1, for measurement).
    bounds_checks: bool,
    /// An OSR entry (dyn tier): the prologue loads the locals.
    pub osr: Option<OsrPrologue>,
    /// Per defined function: the interpreter runs it (no code of its own;
    /// calls go through the vmctx to its interpreting stub).
    pub interp_only: &'a [bool],
}

/// The prologue of an OSR entry (`osr.rs`): every local (params first) is
/// loaded from the interpreter frame the store context's `osr_locals` points
/// at (one 8-byte slot each, as in the interpreter), and the OSR flag local
/// starts at 1.
pub struct OsrPrologue {
    pub local_types: Vec<ValType>,
    pub flag: u32,
}

/// `WIZENG_BOUNDS_CHECKS=1`: compiled code checks every memory access
/// explicitly instead of relying on guard pages (it changes the code, so
/// `by_source.rs` keys by it).
pub(crate) fn explicit_bounds_checks() -> bool {
    std::env::var_os("WIZENG_BOUNDS_CHECKS").is_some_and(|v| v == "1")
}

impl<'a> Env<'a> {
    pub fn new(
        config: TargetFrontendConfig,
        module: &'a Module,
        layout: &'a VmLayout,
        func_ids: &'a [FuncId],
    ) -> Self {
        let bounds_checks = explicit_bounds_checks();
        Env {
            config,
            module,
            layout,
            func_ids,
            heaps: PrimaryMap::new(),
            bounds_checks,
            osr: None,
            interp_only: &[],
        }
    }

    /// Defined functions are called directly when compiled together (whole
    /// module); a function compiled alone (lazy tier) calls everything through
    /// the vmctx, whose entries are patched as functions get compiled.
    fn is_direct(&self, func_idx: u32) -> bool {
        let nimp = self.module.num_imported_funcs;
        !self.func_ids.is_empty()
            && func_idx >= nimp
            && !self
                .interp_only
                .get((func_idx - nimp) as usize)
                .is_some_and(|b| *b)
    }

    fn vmctx(func: &mut ir::Function) -> ir::GlobalValue {
        func.create_global_value(ir::GlobalValueData::VMContext)
    }

    /// A readonly pointer loaded from `vmctx + offset`.
    fn vmctx_ptr(func: &mut ir::Function, offset: i32) -> ir::GlobalValue {
        let vmctx = Self::vmctx(func);
        func.create_global_value(ir::GlobalValueData::Load {
            base: vmctx,
            offset: Offset32::new(offset),
            global_type: I64,
            flags: MemFlags::trusted().with_readonly(),
        })
    }

    fn vmctx_val(f: &ir::Function) -> ir::Value {
        f.special_param(ArgumentPurpose::VMContext)
            .expect("vmctx param")
    }

    /// Call a runtime function by address (SystemV).
    fn libcall(
        pos: &mut FuncCursor,
        addr: usize,
        params: &[ir::Type],
        results: &[ir::Type],
        args: &[ir::Value],
    ) -> ir::Inst {
        let sig = pos.func.import_signature(libcall_sig(params, results));
        // By symbol (a relocation), not by address: see `libcalls::table`.
        let id = super::libcalls::index_of(addr);
        let name = pos
            .func
            .declare_imported_user_function(ir::UserExternalName::new(0, id));
        let f = pos.func.import_function(ir::ExtFuncData {
            name: ir::ExternalName::user(name),
            signature: sig,
            colocated: false,
        });
        let callee = pos.ins().func_addr(I64, f);
        pos.ins().call_indirect(sig, callee, args)
    }

    /// Call a bulk-operation libcall `(vmctx, imms..., args...) -> status` and
    /// trap with `code` if it reports out of bounds.
    fn bulk_libcall(
        pos: &mut FuncCursor,
        addr: usize,
        imms: &[u32],
        args: &[ir::Value],
        code: TrapCode,
    ) {
        let vmctx = Self::vmctx_val(pos.func);
        let mut all = vec![vmctx];
        let mut tys = vec![I64];
        for i in imms {
            all.push(pos.ins().iconst(I32, *i as i64));
            tys.push(I32);
        }
        for a in args {
            tys.push(pos.func.dfg.value_type(*a));
            all.push(*a);
        }
        let call = Self::libcall(pos, addr, &tys, &[I32], &all);
        let st = pos.func.dfg.first_result(call);
        pos.ins().trapnz(st, code);
    }

    /// An i32 address, index, length or delta zero-extended to the i64 the
    /// memory and table libcalls take (an i64 one, of a 64-bit memory or
    /// table, as is).
    fn widen(pos: &mut FuncCursor, v: ir::Value) -> ir::Value {
        if pos.func.dfg.value_type(v) == I32 {
            pos.ins().uextend(I64, v)
        } else {
            v
        }
    }

    /// Whether memory `index` is a 64-bit memory.
    fn mem64(&self, index: MemoryIndex) -> bool {
        memory_type(self.module, index.as_u32()).index64
    }

    /// `f(vmctx, seg)` with no result (`data.drop`, `elem.drop`).
    fn bulk_libcall_void(pos: &mut FuncCursor, f: usize, seg: u32) {
        let vmctx = Self::vmctx_val(pos.func);
        let seg = pos.ins().iconst(I32, seg as i64);
        Self::libcall(pos, f, &[I64, I32], &[], &[vmctx, seg]);
    }

    fn func_type(&self, idx: u32) -> &FuncType {
        self.module.func_type(idx)
    }

    /// Load (code, callee vmctx) of function `index` from the vmctx triple.
    fn import_target(&self, builder: &mut FunctionBuilder, index: u32) -> (ir::Value, ir::Value) {
        let vmctx = Self::vmctx_val(builder.func);
        let off = self.layout.func(index);
        // Lazily compiled code sees these entries change as callees get
        // compiled: they must be reloaded at every call.
        let flags = if self.func_ids.is_empty() {
            MemFlags::trusted()
        } else {
            MemFlags::trusted().with_readonly()
        };
        let code = builder.ins().load(I64, flags, vmctx, off + 8);
        let callee_vmctx = builder.ins().load(I64, flags, vmctx, off + 16);
        (code, callee_vmctx)
    }

    /// Resolve a `call_indirect` target: bounds, null and signature checks.
    fn indirect_target(
        &self,
        builder: &mut FunctionBuilder,
        table: u32,
        sig_index: u32,
        callee: ir::Value,
    ) -> (ir::Value, ir::Value) {
        let vmctx = Self::vmctx_val(builder.func);
        let ro = MemFlags::trusted().with_readonly();
        let rw = MemFlags::trusted();
        let addr = self.table_elem_addr(builder, table, callee, TRAP_UNDEFINED_ELEMENT);
        let slot = builder.ins().load(I64, rw, addr, 0);
        builder.ins().trapz(slot, TrapCode::IndirectCallToNull);
        let entry = Self::funcref_entry(builder, slot);
        let tid = builder.ins().load(I64, rw, entry, 16);
        let want = builder
            .ins()
            .load(I64, ro, vmctx, self.layout.type_id(sig_index));
        let bad = builder.ins().icmp(IntCC::NotEqual, tid, want);
        builder.ins().trapnz(bad, TrapCode::BadSignature);
        let code = builder.ins().load(I64, rw, entry, 0);
        let cvmctx = builder.ins().load(I64, rw, entry, 8);
        (code, cvmctx)
    }

    /// The store's funcref entry (code, vmctx, type id) of the function
    /// whose non-null reference is `r` (its address plus one).
    fn funcref_entry(builder: &mut FunctionBuilder, r: ir::Value) -> ir::Value {
        let vmctx = Self::vmctx_val(builder.func);
        let ro = MemFlags::trusted().with_readonly();
        let faddr = builder.ins().iadd_imm(r, -1);
        let storectx = builder.ins().load(I64, ro, vmctx, vm::STORE_CTX);
        // The store's funcref array moves only when a function is added,
        // which never happens while wasm code runs (`Store::push_func`).
        let funcrefs = builder
            .ins()
            .load(I64, ro, storectx, vm::STORE_CTX_FUNCREFS);
        let scaled = builder.ins().imul_imm(faddr, vm::FUNCREF_SIZE);
        builder.ins().iadd(funcrefs, scaled)
    }

    /// Resolve a `call_ref` target: a null reference traps; the type needs
    /// no check (validation guarantees it).
    fn ref_target(builder: &mut FunctionBuilder, r: ir::Value) -> (ir::Value, ir::Value) {
        builder.ins().trapz(r, TRAP_NULL_FUNC_REF);
        let entry = Self::funcref_entry(builder, r);
        let rw = MemFlags::trusted();
        let code = builder.ins().load(I64, rw, entry, 0);
        let cvmctx = builder.ins().load(I64, rw, entry, 8);
        (code, cvmctx)
    }

    /// Call the wait/notify libcall `f` with `args` after the vmctx and
    /// memory index; its negative results trap (`runtime::atomics::trap_code`).
    fn atomic_libcall(
        pos: &mut FuncCursor,
        f: usize,
        mem: MemoryIndex,
        args: &[ir::Value],
    ) -> ir::Value {
        let vmctx = Self::vmctx_val(pos.func);
        let mem = pos.ins().iconst(I32, mem.as_u32() as i64);
        let mut all = vec![vmctx, mem];
        all.extend_from_slice(args);
        let tys: Vec<ir::Type> = all.iter().map(|a| pos.func.dfg.value_type(*a)).collect();
        let call = Self::libcall(pos, f, &tys, &[I32], &all);
        let r = pos.func.dfg.first_result(call);
        for (code, trap) in [
            (-1, TrapCode::HeapOutOfBounds),
            (-2, TrapCode::HeapMisaligned),
            (-3, TRAP_WAIT_UNSHARED),
            (-4, TRAP_WAIT_FOREVER),
        ] {
            let hit = pos.ins().icmp_imm(IntCC::Equal, r, code);
            pos.ins().trapnz(hit, trap);
        }
        r
    }

    /// How to call function `i`: directly (compiled with this function), or
    /// through its vmctx entry (imports; everything in lazily compiled code).
    fn call_target(
        &self,
        builder: &mut FunctionBuilder,
        i: u32,
        callee: ir::FuncRef,
        call_args: &[ir::Value],
    ) -> CallTarget {
        if self.is_direct(i) {
            let vmctx = Self::vmctx_val(builder.func);
            CallTarget::Direct(self.with_ctx(builder, vmctx, call_args))
        } else {
            let (code, cvmctx) = self.import_target(builder, i);
            let sig = builder.func.dfg.ext_funcs[callee].signature;
            CallTarget::Indirect(sig, code, self.with_ctx(builder, cvmctx, call_args))
        }
    }

    fn with_ctx(
        &self,
        builder: &mut FunctionBuilder,
        callee_vmctx: ir::Value,
        args: &[ir::Value],
    ) -> Vec<ir::Value> {
        let vmctx = Self::vmctx_val(builder.func);
        let mut v = Vec::with_capacity(args.len() + 2);
        v.push(callee_vmctx);
        v.push(vmctx);
        v.extend_from_slice(args);
        v
    }

    fn table_ptr(pos: &mut FuncCursor, layout: &VmLayout, table: u32) -> ir::Value {
        let vmctx = Self::vmctx_val(pos.func);
        pos.ins().load(
            I64,
            MemFlags::trusted().with_readonly(),
            vmctx,
            layout.table(table),
        )
    }

    /// Address of element `index` of `table`, trapping with `oob_trap` past
    /// its end (`table.get`/`set` and `call_indirect` differ in the trap). A table whose declared maximum equals its minimum (its import
    /// matches only a table of exactly that size) never grows, so its element
    /// array never moves: the base is a readonly load that Cranelift hoists
    /// out of loops, and the length a constant.
    fn table_elem_addr(
        &self,
        builder: &mut FunctionBuilder,
        table: u32,
        index: ir::Value,
        oob_trap: TrapCode,
    ) -> ir::Value {
        let vmctx = Self::vmctx_val(builder.func);
        let ro = MemFlags::trusted().with_readonly();
        let tp = builder.ins().load(I64, ro, vmctx, self.layout.table(table));
        let limits = table_type(self.module, table).limits;
        let fixed = (limits.max == Some(limits.min)).then_some(limits.min);
        let flags = if fixed.is_some() {
            ro
        } else {
            MemFlags::trusted()
        };
        let base = builder.ins().load(I64, flags, tp, 0);
        // An i64 index of a 64-bit table is used as is.
        let idx = if builder.func.dfg.value_type(index) == I64 {
            index
        } else {
            builder.ins().uextend(I64, index)
        };
        let oob = match fixed {
            Some(n) => builder
                .ins()
                .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, idx, n as i64),
            None => {
                let len = builder.ins().load(I64, MemFlags::trusted(), tp, 8);
                builder
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, idx, len)
            }
        };
        builder.ins().trapnz(oob, oob_trap);
        let off = builder.ins().ishl_imm(idx, 3);
        builder.ins().iadd(base, off)
    }
}

impl TypeConvert for Env<'_> {
    fn lookup_heap_type(&self, _index: wasmparser::UnpackedIndex) -> WasmHeapType {
        WasmHeapType::Func
    }
    fn lookup_type_index(
        &self,
        index: wasmparser::UnpackedIndex,
    ) -> cranelift_wasm::EngineOrModuleTypeIndex {
        let i = match index {
            wasmparser::UnpackedIndex::Module(i) => i,
            _ => 0,
        };
        cranelift_wasm::EngineOrModuleTypeIndex::Module(
            cranelift_wasm::ModuleInternedTypeIndex::from_u32(i),
        )
    }
}

impl TargetEnvironment for Env<'_> {
    fn target_config(&self) -> TargetFrontendConfig {
        self.config
    }
    fn heap_access_spectre_mitigation(&self) -> bool {
        false
    }
    fn proof_carrying_code(&self) -> bool {
        false
    }
    fn reference_type(&self, _ty: WasmHeapType) -> (ir::Type, bool) {
        (I64, false)
    }
}

impl FuncEnvironment for Env<'_> {
    fn before_translate_function(
        &mut self,
        builder: &mut FunctionBuilder,
        _state: &cranelift_wasm::FuncTranslationState,
    ) -> WasmResult<()> {
        let Some(osr) = &self.osr else {
            return Ok(());
        };
        let vmctx = Self::vmctx_val(builder.func);
        let flags = MemFlags::trusted();
        let sc = builder
            .ins()
            .load(I64, flags, vmctx, crate::runtime::vm::STORE_CTX);
        let buf = builder
            .ins()
            .load(I64, flags, sc, crate::runtime::vm::STORE_CTX_OSR_LOCALS);
        // The interpreter's locals, each in its slots (a v128 in two, 8-byte
        // aligned: not `trusted()`, which says aligned).
        let mut off = 0;
        for (i, t) in osr.local_types.iter().enumerate() {
            let v = builder
                .ins()
                .load(clif_type(*t), MemFlags::new().with_notrap(), buf, off);
            off += t.slots() as i32 * 8;
            builder.def_var(cranelift_frontend::Variable::from_u32(i as u32), v);
        }
        let one = builder.ins().iconst(ir::types::I32, 1);
        builder.def_var(cranelift_frontend::Variable::from_u32(osr.flag), one);
        Ok(())
    }
    fn is_wasm_parameter(&self, _signature: &Signature, index: usize) -> bool {
        index >= 2
    }
    fn param_needs_stack_map(&self, _signature: &Signature, _index: usize) -> bool {
        false
    }
    fn sig_ref_result_needs_stack_map(&self, _sig_ref: ir::SigRef, _index: usize) -> bool {
        false
    }
    fn func_ref_result_needs_stack_map(
        &self,
        _func: &ir::Function,
        _func_ref: ir::FuncRef,
        _index: usize,
    ) -> bool {
        false
    }

    fn make_global(
        &mut self,
        func: &mut ir::Function,
        index: GlobalIndex,
    ) -> WasmResult<GlobalVariable> {
        let i = index.as_u32();
        let ty = clif_type(self.module.global_type(i).ty);
        if self.layout.is_inline_global(i) {
            return Ok(GlobalVariable::Memory {
                gv: Self::vmctx(func),
                offset: Offset32::new(self.layout.global(i)),
                ty,
            });
        }
        let gv = Self::vmctx_ptr(func, self.layout.global(i));
        Ok(GlobalVariable::Memory {
            gv,
            offset: Offset32::new(0),
            ty,
        })
    }

    fn heaps(&self) -> &PrimaryMap<Heap, HeapData> {
        &self.heaps
    }

    fn make_heap(&mut self, func: &mut ir::Function, index: MemoryIndex) -> WasmResult<Heap> {
        let i = index.as_u32();
        // Memories never move (a reservation with guard pages, see
        // linear_memory.rs): the base is a readonly vmctx slot, and accesses
        // need no bounds check: out-of-bounds ones fault in the guard region
        // and trap.
        let base = Self::vmctx_ptr(func, self.layout.memory_base(i));
        let ty = memory_type(self.module, i);
        // A 64-bit memory's addresses are not covered by the reservation:
        // its accesses check bounds explicitly, against the current length.
        // Guard pages only cover a 32-bit memory of 64 KiB pages: with
        // smaller pages its length need not be a multiple of the host's.
        let checked = self.bounds_checks || ty.index64 || ty.page_size_log2 != 16;
        let style = if checked {
            let mem = Self::vmctx_ptr(func, self.layout.memory(i));
            let bound = func.create_global_value(ir::GlobalValueData::Load {
                base: mem,
                offset: Offset32::new(8),
                global_type: I64,
                flags: MemFlags::trusted(),
            });
            HeapStyle::Dynamic { bound_gv: bound }
        } else {
            HeapStyle::Static { bound: 1 << 32 }
        };
        Ok(self.heaps.push(HeapData {
            base,
            min_size: ty.limits.min.saturating_mul(ty.page_size()),
            max_size: ty.limits.max.map(|m| m.saturating_mul(ty.page_size())),
            offset_guard_size: if checked {
                0
            } else {
                (crate::runtime::linear_memory::RESERVATION as u64) - (1 << 32)
            },
            style,
            index_type: if ty.index64 { I64 } else { I32 },
            memory_type: None,
            page_size_log2: ty.page_size_log2,
        }))
    }

    fn make_indirect_sig(
        &mut self,
        func: &mut ir::Function,
        index: TypeIndex,
    ) -> WasmResult<ir::SigRef> {
        Ok(func.import_signature(wasm_sig(&self.module.types[index.as_u32() as usize])))
    }

    fn make_direct_func(
        &mut self,
        func: &mut ir::Function,
        index: FuncIndex,
    ) -> WasmResult<ir::FuncRef> {
        let i = index.as_u32();
        if self.is_direct(i) {
            let id = self.func_ids[(i - self.module.num_imported_funcs) as usize];
            // As `cranelift_module::Module::declare_func_in_func` (the
            // function is declared `Linkage::Local` with this signature), but
            // without the JITModule, so that functions compile on any thread.
            let signature = func.import_signature(wasm_sig(self.func_type(i)));
            let name = func.declare_imported_user_function(ir::UserExternalName {
                namespace: 0,
                index: id.as_u32(),
            });
            Ok(func.import_function(ir::ExtFuncData {
                name: ir::ExternalName::user(name),
                signature,
                colocated: true,
            }))
        } else {
            // Imports are called indirectly through the vmctx (see translate_call);
            // this reference is never used for a call.
            let signature = func.import_signature(wasm_sig(self.func_type(i)));
            let name =
                ir::ExternalName::User(func.declare_imported_user_function(ir::UserExternalName {
                    namespace: 1,
                    index: i,
                }));
            Ok(func.import_function(ir::ExtFuncData {
                name,
                signature,
                colocated: false,
            }))
        }
    }

    fn translate_call(
        &mut self,
        builder: &mut FunctionBuilder,
        callee_index: FuncIndex,
        callee: ir::FuncRef,
        call_args: &[ir::Value],
    ) -> WasmResult<ir::Inst> {
        Ok(
            match self.call_target(builder, callee_index.as_u32(), callee, call_args) {
                CallTarget::Direct(args) => builder.ins().call(callee, &args),
                CallTarget::Indirect(sig, code, args) => {
                    builder.ins().call_indirect(sig, code, &args)
                }
            },
        )
    }

    fn translate_call_indirect(
        &mut self,
        builder: &mut FunctionBuilder,
        table_index: TableIndex,
        sig_index: TypeIndex,
        sig_ref: ir::SigRef,
        callee: ir::Value,
        call_args: &[ir::Value],
    ) -> WasmResult<Option<ir::Inst>> {
        let (code, cvmctx) =
            self.indirect_target(builder, table_index.as_u32(), sig_index.as_u32(), callee);
        let args = self.with_ctx(builder, cvmctx, call_args);
        Ok(Some(builder.ins().call_indirect(sig_ref, code, &args)))
    }

    fn translate_return_call(
        &mut self,
        builder: &mut FunctionBuilder,
        callee_index: FuncIndex,
        callee: ir::FuncRef,
        call_args: &[ir::Value],
    ) -> WasmResult<()> {
        match self.call_target(builder, callee_index.as_u32(), callee, call_args) {
            CallTarget::Direct(args) => builder.ins().return_call(callee, &args),
            CallTarget::Indirect(sig, code, args) => {
                builder.ins().return_call_indirect(sig, code, &args)
            }
        };
        Ok(())
    }

    fn translate_return_call_indirect(
        &mut self,
        builder: &mut FunctionBuilder,
        table_index: TableIndex,
        sig_index: TypeIndex,
        sig_ref: ir::SigRef,
        callee: ir::Value,
        call_args: &[ir::Value],
    ) -> WasmResult<()> {
        let (code, cvmctx) =
            self.indirect_target(builder, table_index.as_u32(), sig_index.as_u32(), callee);
        let args = self.with_ctx(builder, cvmctx, call_args);
        builder.ins().return_call_indirect(sig_ref, code, &args);
        Ok(())
    }

    fn translate_return_call_ref(
        &mut self,
        builder: &mut FunctionBuilder,
        sig_ref: ir::SigRef,
        callee: ir::Value,
        call_args: &[ir::Value],
    ) -> WasmResult<()> {
        let (code, cvmctx) = Self::ref_target(builder, callee);
        let args = self.with_ctx(builder, cvmctx, call_args);
        builder.ins().return_call_indirect(sig_ref, code, &args);
        Ok(())
    }

    fn translate_call_ref(
        &mut self,
        builder: &mut FunctionBuilder,
        sig_ref: ir::SigRef,
        callee: ir::Value,
        call_args: &[ir::Value],
    ) -> WasmResult<ir::Inst> {
        let (code, cvmctx) = Self::ref_target(builder, callee);
        let args = self.with_ctx(builder, cvmctx, call_args);
        Ok(builder.ins().call_indirect(sig_ref, code, &args))
    }

    fn translate_memory_grow(
        &mut self,
        mut pos: FuncCursor,
        index: MemoryIndex,
        _heap: Heap,
        val: ir::Value,
    ) -> WasmResult<ir::Value> {
        let vmctx = Self::vmctx_val(pos.func);
        let m = pos.ins().iconst(I32, index.as_u32() as i64);
        let delta = Self::widen(&mut pos, val);
        let call = Self::libcall(
            &mut pos,
            libcalls::memory_grow as *const () as usize,
            &[I64, I32, I64],
            &[I64],
            &[vmctx, m, delta],
        );
        let r = pos.func.dfg.first_result(call);
        Ok(if self.mem64(index) {
            r
        } else {
            pos.ins().ireduce(I32, r)
        })
    }

    fn translate_memory_size(
        &mut self,
        mut pos: FuncCursor,
        index: MemoryIndex,
        _heap: Heap,
    ) -> WasmResult<ir::Value> {
        let vmctx = Self::vmctx_val(pos.func);
        let mp = pos.ins().load(
            I64,
            MemFlags::trusted().with_readonly(),
            vmctx,
            self.layout.memory(index.as_u32()),
        );
        let len = pos.ins().load(I64, MemFlags::trusted(), mp, 8);
        let log2 = memory_type(self.module, index.as_u32()).page_size_log2;
        let pages = pos.ins().ushr_imm(len, log2 as i64);
        Ok(if self.mem64(index) {
            pages
        } else {
            pos.ins().ireduce(I32, pages)
        })
    }

    fn translate_memory_copy(
        &mut self,
        mut pos: FuncCursor,
        src_index: MemoryIndex,
        _src_heap: Heap,
        dst_index: MemoryIndex,
        _dst_heap: Heap,
        dst: ir::Value,
        src: ir::Value,
        len: ir::Value,
    ) -> WasmResult<()> {
        let f = libcalls::memory_copy as *const () as usize;
        let args = [dst, src, len].map(|v| Self::widen(&mut pos, v));
        Self::bulk_libcall(
            &mut pos,
            f,
            &[dst_index.as_u32(), src_index.as_u32()],
            &args,
            TrapCode::HeapOutOfBounds,
        );
        Ok(())
    }

    fn translate_memory_fill(
        &mut self,
        mut pos: FuncCursor,
        index: MemoryIndex,
        _heap: Heap,
        dst: ir::Value,
        val: ir::Value,
        len: ir::Value,
    ) -> WasmResult<()> {
        let f = libcalls::memory_fill as *const () as usize;
        let (dst, len) = (Self::widen(&mut pos, dst), Self::widen(&mut pos, len));
        Self::bulk_libcall(
            &mut pos,
            f,
            &[index.as_u32()],
            &[dst, val, len],
            TrapCode::HeapOutOfBounds,
        );
        Ok(())
    }

    fn translate_memory_init(
        &mut self,
        mut pos: FuncCursor,
        index: MemoryIndex,
        _heap: Heap,
        seg_index: u32,
        dst: ir::Value,
        src: ir::Value,
        len: ir::Value,
    ) -> WasmResult<()> {
        let f = libcalls::memory_init as *const () as usize;
        let dst = Self::widen(&mut pos, dst);
        Self::bulk_libcall(
            &mut pos,
            f,
            &[index.as_u32(), seg_index],
            &[dst, src, len],
            TrapCode::HeapOutOfBounds,
        );
        Ok(())
    }

    fn translate_data_drop(&mut self, mut pos: FuncCursor, seg_index: u32) -> WasmResult<()> {
        Self::bulk_libcall_void(
            &mut pos,
            libcalls::data_drop as *const () as usize,
            seg_index,
        );
        Ok(())
    }

    fn translate_table_size(
        &mut self,
        mut pos: FuncCursor,
        index: TableIndex,
    ) -> WasmResult<ir::Value> {
        let tp = Self::table_ptr(&mut pos, self.layout, index.as_u32());
        let len = pos.ins().load(I64, MemFlags::trusted(), tp, 8);
        Ok(if table_type(self.module, index.as_u32()).index64 {
            len
        } else {
            pos.ins().ireduce(I32, len)
        })
    }

    fn translate_table_grow(
        &mut self,
        mut pos: FuncCursor,
        table_index: TableIndex,
        delta: ir::Value,
        init_value: ir::Value,
    ) -> WasmResult<ir::Value> {
        let vmctx = Self::vmctx_val(pos.func);
        let t = pos.ins().iconst(I32, table_index.as_u32() as i64);
        let delta = Self::widen(&mut pos, delta);
        let call = Self::libcall(
            &mut pos,
            libcalls::table_grow as *const () as usize,
            &[I64, I32, I64, I64],
            &[I64],
            &[vmctx, t, delta, init_value],
        );
        let r = pos.func.dfg.first_result(call);
        Ok(if table_type(self.module, table_index.as_u32()).index64 {
            r
        } else {
            pos.ins().ireduce(I32, r)
        })
    }

    fn translate_table_get(
        &mut self,
        builder: &mut FunctionBuilder,
        table_index: TableIndex,
        index: ir::Value,
    ) -> WasmResult<ir::Value> {
        let addr = self.table_elem_addr(
            builder,
            table_index.as_u32(),
            index,
            TrapCode::TableOutOfBounds,
        );
        Ok(builder.ins().load(I64, MemFlags::trusted(), addr, 0))
    }

    fn translate_table_set(
        &mut self,
        builder: &mut FunctionBuilder,
        table_index: TableIndex,
        value: ir::Value,
        index: ir::Value,
    ) -> WasmResult<()> {
        let addr = self.table_elem_addr(
            builder,
            table_index.as_u32(),
            index,
            TrapCode::TableOutOfBounds,
        );
        builder.ins().store(MemFlags::trusted(), value, addr, 0);
        Ok(())
    }

    fn translate_table_copy(
        &mut self,
        mut pos: FuncCursor,
        dst_table_index: TableIndex,
        src_table_index: TableIndex,
        dst: ir::Value,
        src: ir::Value,
        len: ir::Value,
    ) -> WasmResult<()> {
        let f = libcalls::table_copy as *const () as usize;
        let args = [dst, src, len].map(|v| Self::widen(&mut pos, v));
        Self::bulk_libcall(
            &mut pos,
            f,
            &[dst_table_index.as_u32(), src_table_index.as_u32()],
            &args,
            TrapCode::TableOutOfBounds,
        );
        Ok(())
    }

    fn translate_table_fill(
        &mut self,
        mut pos: FuncCursor,
        table_index: TableIndex,
        dst: ir::Value,
        val: ir::Value,
        len: ir::Value,
    ) -> WasmResult<()> {
        let f = libcalls::table_fill as *const () as usize;
        let (dst, len) = (Self::widen(&mut pos, dst), Self::widen(&mut pos, len));
        Self::bulk_libcall(
            &mut pos,
            f,
            &[table_index.as_u32()],
            &[dst, val, len],
            TrapCode::TableOutOfBounds,
        );
        Ok(())
    }

    fn translate_table_init(
        &mut self,
        mut pos: FuncCursor,
        seg_index: u32,
        table_index: TableIndex,
        dst: ir::Value,
        src: ir::Value,
        len: ir::Value,
    ) -> WasmResult<()> {
        let f = libcalls::table_init as *const () as usize;
        let dst = Self::widen(&mut pos, dst);
        Self::bulk_libcall(
            &mut pos,
            f,
            &[table_index.as_u32(), seg_index],
            &[dst, src, len],
            TrapCode::TableOutOfBounds,
        );
        Ok(())
    }

    fn translate_elem_drop(&mut self, mut pos: FuncCursor, seg_index: u32) -> WasmResult<()> {
        Self::bulk_libcall_void(
            &mut pos,
            libcalls::elem_drop as *const () as usize,
            seg_index,
        );
        Ok(())
    }

    fn translate_ref_null(
        &mut self,
        mut pos: FuncCursor,
        _ty: WasmHeapType,
    ) -> WasmResult<ir::Value> {
        Ok(pos.ins().iconst(I64, 0))
    }

    fn translate_ref_is_null(
        &mut self,
        mut pos: FuncCursor,
        value: ir::Value,
    ) -> WasmResult<ir::Value> {
        let b = pos.ins().icmp_imm(IntCC::Equal, value, 0);
        Ok(pos.ins().uextend(I32, b))
    }

    fn translate_ref_func(
        &mut self,
        mut pos: FuncCursor,
        func_index: FuncIndex,
    ) -> WasmResult<ir::Value> {
        let vmctx = Self::vmctx_val(pos.func);
        let addr = pos.ins().load(
            I64,
            MemFlags::trusted().with_readonly(),
            vmctx,
            self.layout.func(func_index.as_u32()),
        );
        Ok(pos.ins().iadd_imm(addr, 1))
    }

    fn translate_custom_global_get(
        &mut self,
        _b: &mut FunctionBuilder,
        _g: GlobalIndex,
    ) -> WasmResult<ir::Value> {
        Err(cranelift_wasm::wasm_unsupported!("custom globals"))
    }
    fn translate_custom_global_set(
        &mut self,
        _b: &mut FunctionBuilder,
        _g: GlobalIndex,
        _v: ir::Value,
    ) -> WasmResult<()> {
        Err(cranelift_wasm::wasm_unsupported!("custom globals"))
    }
    /// `addr` is the effective address (Cranelift added the offset); the
    /// libcall checks it and implements the one-thread semantics.
    fn translate_atomic_wait(
        &mut self,
        mut pos: FuncCursor,
        index: MemoryIndex,
        _heap: Heap,
        addr: ir::Value,
        expected: ir::Value,
        timeout: ir::Value,
    ) -> WasmResult<ir::Value> {
        let bytes = pos.func.dfg.value_type(expected).bytes();
        let expected = if bytes == 4 {
            pos.ins().uextend(I64, expected)
        } else {
            expected
        };
        let bytes = pos.ins().iconst(I32, bytes as i64);
        let addr = Self::widen(&mut pos, addr);
        let f = libcalls::atomic_wait as *const () as usize;
        let args = [addr, expected, timeout, bytes];
        Ok(Self::atomic_libcall(&mut pos, f, index, &args))
    }
    fn translate_atomic_notify(
        &mut self,
        mut pos: FuncCursor,
        index: MemoryIndex,
        _heap: Heap,
        addr: ir::Value,
        count: ir::Value,
    ) -> WasmResult<ir::Value> {
        let f = libcalls::atomic_notify as *const () as usize;
        let addr = Self::widen(&mut pos, addr);
        Ok(Self::atomic_libcall(&mut pos, f, index, &[addr, count]))
    }
    fn translate_ref_i31(&mut self, _pos: FuncCursor, _val: ir::Value) -> WasmResult<ir::Value> {
        Err(cranelift_wasm::wasm_unsupported!("gc"))
    }
    fn translate_i31_get_s(&mut self, _pos: FuncCursor, _v: ir::Value) -> WasmResult<ir::Value> {
        Err(cranelift_wasm::wasm_unsupported!("gc"))
    }
    fn translate_i31_get_u(&mut self, _pos: FuncCursor, _v: ir::Value) -> WasmResult<ir::Value> {
        Err(cranelift_wasm::wasm_unsupported!("gc"))
    }
}

fn memory_type(m: &Module, i: u32) -> crate::core::types::MemoryType {
    let imported = m.imports.iter().filter_map(|imp| match &imp.desc {
        crate::core::module::ImportDesc::Memory(t) => Some(*t),
        _ => None,
    });
    nth_declared(imported, m.memories.iter().copied(), i)
}

fn table_type(m: &Module, i: u32) -> crate::core::types::TableType {
    let imported = m.imports.iter().filter_map(|imp| match &imp.desc {
        crate::core::module::ImportDesc::Table(t) => Some(*t),
        _ => None,
    });
    nth_declared(imported, m.tables.iter().map(|t| t.ty), i)
}

/// The type of the `i`-th memory or table of a module: imports first, then
/// its own definitions (the index space order).
fn nth_declared<T>(
    imported: impl Iterator<Item = T>,
    mut defined: impl Iterator<Item = T>,
    i: u32,
) -> T {
    let mut k = 0;
    for t in imported {
        if k == i {
            return t;
        }
        k += 1;
    }
    defined
        .nth((i - k) as usize)
        .expect("validated memory/table index")
}
