//! Loading for execution: the interpreter's half of the loader's one pass.
//!
//! [`Module`]'s constructors live here, beside the translator they run: the core
//! loader decodes and validates, and calls [`Translate`] on every body so that
//! each function's interpreter code is made while its validator is at hand.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::core::module::{BodyValidator, Resources};
use wasmparser::{FunctionBody, WasmFeatures};

mod parallel;

use super::code::Compiled;
use super::validated;
use crate::core::error::{LoadError, Trap, TrapKind};
use crate::core::module::{
    read_binary, supported_features, to_binary, BodyCtx, BodyTranslator, Module,
};
use crate::core::probe::Instrumenter;
use crate::runtime::store::Tier;

/// The interpreter code of a module's defined functions, by defined index.
///
/// A module loaded without an instrumenter is translated lazily: the loader
/// validates every body (errors are reported at load, as always), but a
/// function's code is made at its first use ([`func_code`]), so a large
/// application pays translation (and the memory it fills) only for the
/// functions it runs. A function that might have to run interpreted in
/// every tier (`Compiled::interp_only`: exception handling, Wasm GC, other
/// heap references; see [`needs_eager`]) is translated at load, so an
/// untranslated function is never one, and that flag is known without
/// translating anything. With monitors every body is translated at load
/// (matching happens there).
pub(crate) struct ModuleCode {
    /// Per defined function, its code once translated (set once, never
    /// replaced: code references stay valid as long as the module).
    funcs: Box<[OnceCell<Rc<Compiled>>]>,
    /// The module-wide facts a later translation needs.
    osr: bool,
    v128_types: bool,
    heap_refs: bool,
    extern_objects: bool,
    /// Bodies were left untranslated at load (see the type's docs).
    lazy: bool,
}

impl ModuleCode {
    /// Function `d`'s (a defined index) code, if it was translated.
    pub(crate) fn get(&self, d: usize) -> Option<&Rc<Compiled>> {
        self.funcs.get(d)?.get()
    }

    /// The translated functions' code.
    pub(crate) fn translated(&self) -> impl Iterator<Item = &Rc<Compiled>> {
        self.funcs.iter().filter_map(OnceCell::get)
    }

    /// The slots, by defined index (for the interpreter's hot calls, which
    /// take an empty one to `exec.rs`).
    pub(crate) fn slots(&self) -> *const OnceCell<Rc<Compiled>> {
        self.funcs.as_ptr()
    }
}

/// The interpreter code of `m`'s defined functions (every module is loaded
/// through [`Translate`], so the product is always there).
pub(crate) fn module_code(m: &Module) -> &ModuleCode {
    m.code::<ModuleCode>()
        .expect("modules are loaded with the interpreter's translator")
}

/// Whether `m`'s bodies were validated at load and left to be translated at
/// their first use, so that no untranslated function is interpreted-only: a
/// lazily woven module's placeholders rely on it.
pub fn translated_lazily(m: &Module) -> bool {
    module_code(m).lazy
}

/// Whether defined function `func_idx` (an index of the whole function
/// space) has been translated: at load, when asked before anything ran.
pub fn translated(m: &Module, func_idx: u32) -> bool {
    let d = func_idx.wrapping_sub(m.num_imported_funcs) as usize;
    module_code(m).get(d).is_some()
}

/// Whether some function of `m` always runs interpreted
/// (`Compiled::interp_only`; such functions are translated at load).
pub(crate) fn has_interp_only(m: &Module) -> bool {
    module_code(m).translated().any(|c| c.interp_only)
}

/// Whether defined function `func_idx` (an index of the whole function
/// space) always runs interpreted, without translating it (an untranslated
/// function never does).
pub(crate) fn interp_only(m: &Module, func_idx: u32) -> bool {
    let d = (func_idx - m.num_imported_funcs) as usize;
    module_code(m).get(d).is_some_and(|c| c.interp_only)
}

/// The interpreter code of defined function `func_idx` (an index of the
/// whole function space; must not be an import), translated now if it was
/// not yet. The body was validated at load, so translating it cannot fail
/// but through an internal error, which becomes a trap of the call.
pub(crate) fn func_code(m: &Module, func_idx: u32) -> Result<&Rc<Compiled>, Trap> {
    let code = module_code(m);
    let slot = &code.funcs[(func_idx - m.num_imported_funcs) as usize];
    if let Some(c) = slot.get() {
        return Ok(c);
    }
    let compiled = translate_later(m, code, func_idx).map_err(|e| {
        Trap::new(TrapKind::Host(format!(
            "function {func_idx} could not be translated: {}",
            e.message
        )))
    })?;
    Ok(slot.get_or_init(|| Rc::new(compiled)))
}

/// Translate defined function `func_idx` of a lazily translated module.
#[cold]
fn translate_later(m: &Module, code: &ModuleCode, func_idx: u32) -> Result<Compiled, LoadError> {
    // (A deferred body of a lazily woven module is made here.)
    let (func, body) = m.body_to_validate(func_idx)?;
    let mut v = func.into_validator(Default::default());
    let ctx = module_ctx_of(m, code);
    super::compile::translate(&mut v, &body, &ctx, None)
}

/// What translating a body of lazily translated `m` reads of the module.
pub(super) fn module_ctx(m: &Module) -> super::compile::ModuleCtx<'_> {
    module_ctx_of(m, module_code(m))
}

fn module_ctx_of<'m>(m: &'m Module, code: &ModuleCode) -> super::compile::ModuleCtx<'m> {
    super::compile::ModuleCtx {
        types: &m.types,
        func_types: &m.func_types,
        features: m.features,
        osr: code.osr,
        v128_types: code.v128_types,
        heap_refs: code.heap_refs,
        extern_objects: code.extern_objects,
        after_load: true,
        loop_head_first: false,
    }
}

/// Put `c` in defined function `func_idx`'s slot (if it is still empty).
pub(super) fn set_code(m: &Module, func_idx: u32, c: Compiled) {
    let code = module_code(m);
    let _ = code.funcs[(func_idx - m.num_imported_funcs) as usize].set(Rc::new(c));
}

struct Translate<'r, 'i> {
    instr: Option<&'r mut (dyn Instrumenter + 'i)>,
    osr: bool,
    code: Vec<OnceCell<Rc<Compiled>>>,
    /// Some type of the module has a `v128` (computed at the first body).
    v128_types: Option<bool>,
    /// The module declares heap reference types (computed at the first body).
    heap_refs: Option<bool>,
    /// An `externref` of the module may name a heap object: a body has
    /// `any.convert_extern`/`extern.convert_any` ([`converts_extern`]).
    extern_objects: bool,
    /// Bodies may be left untranslated (computed at the first body): no
    /// instrumenter, and nothing the module declares can make a function
    /// interpreted-only ([`module_may_be_lazy`]).
    lazy: Option<bool>,
    /// The module was validated by an earlier load ([`super::validated`]):
    /// the functions translated at load then, ascending. The others are
    /// left for their first use unvalidated (validated when translated).
    known_valid: Option<Vec<u32>>,
    /// Functions of a lazily translated module translated at load.
    eager: Vec<u32>,
    /// The bodies of a large lazily translated module, kept to be validated
    /// on two threads after the last one ([`parallel`]), and the module's
    /// validation state.
    pending: Option<(Resources, Vec<parallel::Job>)>,
    /// Bodies are kept for that (computed at the first body validated).
    parallel: Option<bool>,
    /// ... if the code section has at least this many bytes
    /// ([`parallel::MIN_CODE_SIZE`], or as [`parallel_by_env`] says).
    parallel_min: usize,
}

impl BodyTranslator for Translate<'_, '_> {
    fn body(
        &mut self,
        ctx: &BodyCtx<'_>,
        validator: &mut BodyValidator,
        body: &FunctionBody<'_>,
    ) -> Result<(), LoadError> {
        let v128_types = *self.v128_types.get_or_insert_with(|| {
            let v128 = crate::core::types::ValType::V128;
            ctx.types
                .iter()
                .any(|t| t.params.contains(&v128) || t.results.contains(&v128))
        });
        let heap_refs = *self
            .heap_refs
            .get_or_insert_with(|| super::stackmap::module_has_heap_refs(validator.resources()));
        let lazy = *self.lazy.get_or_insert_with(|| {
            self.instr.is_none()
                && !heap_refs
                && !self.extern_objects
                && module_may_be_lazy(validator.resources())
                && !lazy_disabled_by_env()
        });
        if lazy {
            if let Some(eager) = &self.known_valid {
                if eager.binary_search(&validator.index()).is_err() {
                    self.code.push(OnceCell::new());
                    return Ok(());
                }
                return self.translate(ctx, validator, body, v128_types, heap_refs);
            }
            let parallel = *self
                .parallel
                .get_or_insert(ctx.code_size >= self.parallel_min);
            if parallel {
                let (_, jobs) = self
                    .pending
                    .get_or_insert_with(|| (validator.resources().clone(), Vec::new()));
                jobs.push(parallel::Job {
                    index: validator.index(),
                    ty: ctx.func_types[validator.index() as usize],
                    defined: self.code.len(),
                    range: body.range(),
                });
                self.code.push(OnceCell::new());
                return Ok(());
            }
            match validate_only(validator, body, ctx.features)? {
                Checked::Valid => {
                    self.code.push(OnceCell::new());
                    return Ok(());
                }
                // Translated now, with a fresh validator (this one is spent).
                Checked::Eager => {
                    self.eager.push(validator.index());
                    let ty = ctx.func_types[validator.index() as usize];
                    let func = wasmparser::FuncToValidate {
                        resources: validator.resources().clone(),
                        index: validator.index(),
                        ty,
                        features: ctx.features,
                    };
                    let mut fresh = func.into_validator(Default::default());
                    return self.translate(ctx, &mut fresh, body, v128_types, heap_refs);
                }
            }
        }
        self.translate(ctx, validator, body, v128_types, heap_refs)
    }

    /// Validate the kept bodies ([`Translate::pending`]) on two threads,
    /// then translate those that may run interpreted, in order: the first
    /// error in function order is the load's, as when validating in order.
    fn bodies_done(&mut self, ctx: &BodyCtx<'_>, bytes: &[u8]) -> Result<(), LoadError> {
        let Some((resources, jobs)) = self.pending.take() else {
            return Ok(());
        };
        let (checked, error) = parallel::validate(bytes, &jobs, &resources, ctx.features);
        let (v128_types, heap_refs) = (
            self.v128_types.unwrap_or(false),
            self.heap_refs.unwrap_or(false),
        );
        for (job, c) in jobs.iter().zip(&checked) {
            if let Checked::Eager = c {
                self.eager.push(job.index);
                let func = wasmparser::FuncToValidate {
                    resources: resources.clone(),
                    index: job.index,
                    ty: job.ty,
                    features: ctx.features,
                };
                let mut v = func.into_validator(Default::default());
                let compiled =
                    self.compile(ctx, &mut v, &job.body(bytes), v128_types, heap_refs)?;
                self.code[job.defined] = OnceCell::from(Rc::new(compiled));
            }
        }
        error.map_or(Ok(()), Err)
    }

    fn finish(&mut self) -> Box<dyn std::any::Any> {
        Box::new(ModuleCode {
            funcs: std::mem::take(&mut self.code).into_boxed_slice(),
            osr: self.osr,
            v128_types: self.v128_types.unwrap_or(false),
            heap_refs: self.heap_refs.unwrap_or(false),
            extern_objects: self.extern_objects,
            lazy: self.lazy.unwrap_or(false),
        })
    }
}

impl Translate<'_, '_> {
    fn translate(
        &mut self,
        ctx: &BodyCtx<'_>,
        validator: &mut BodyValidator,
        body: &FunctionBody<'_>,
        v128_types: bool,
        heap_refs: bool,
    ) -> Result<(), LoadError> {
        let compiled = self.compile(ctx, validator, body, v128_types, heap_refs)?;
        self.code.push(OnceCell::from(Rc::new(compiled)));
        Ok(())
    }

    /// Translate one body (with its module's facts).
    fn compile(
        &mut self,
        ctx: &BodyCtx<'_>,
        validator: &mut BodyValidator,
        body: &FunctionBody<'_>,
        v128_types: bool,
        heap_refs: bool,
    ) -> Result<Compiled, LoadError> {
        let ctx = super::compile::ModuleCtx {
            types: ctx.types,
            func_types: ctx.func_types,
            features: ctx.features,
            osr: self.osr,
            v128_types,
            heap_refs,
            extern_objects: self.extern_objects,
            after_load: false,
            loop_head_first: false,
        };
        super::compile::translate(validator, body, &ctx, self.instr.as_deref_mut())
    }
}

/// Whether the interpreter may translate a module with `m`'s declarations
/// lazily, as far as they show ([`Translate`] decides at the first body from
/// the same facts): nothing declared has a heap reference type, every type
/// is final, no body converts between `any` and `extern`, and nothing in
/// the environment asks for eager translation. A lazily woven module
/// defers bodies only then (`monitor::weave::weave_lazy`).
/// `converts`: whether a body converts between `any` and `extern`, if known
/// already (a matched module's plan saw every instruction), which spares
/// scanning every body for it (boa: 0.2G instructions).
pub(crate) fn may_translate_lazily(
    m: &crate::core::module::ModuleInfo,
    converts: Option<bool>,
) -> bool {
    m.resources
        .as_ref()
        .is_some_and(|r| !super::stackmap::module_has_heap_refs(r) && module_may_be_lazy(r))
        && !converts.unwrap_or_else(|| converts_extern(&m.bytes))
        && !lazy_disabled_by_env()
}

/// `WIZENG_PARALLEL_VALIDATE=0` validates a lazily translated module's
/// bodies on the loading thread alone, whatever its size; `=1` on two
/// threads, whatever its size (to compare, and to test).
fn parallel_by_env() -> Option<bool> {
    std::env::var_os("WIZENG_PARALLEL_VALIDATE").map(|v| v != "0")
}

/// `WIZENG_EAGER_TRANSLATE=1` translates every body at load (to compare);
/// so does `WIZENG_DUMP_OPS` (which prints what is translated: all of it).
fn lazy_disabled_by_env() -> bool {
    std::env::var_os("WIZENG_EAGER_TRANSLATE").is_some_and(|v| v != "0")
        || std::env::var_os("WIZENG_DUMP_OPS").is_some()
}

/// Whether a module's declarations allow translating its bodies lazily:
/// every type is final (an indirect call through a non-final type runs
/// interpreted). Heap reference types anywhere (`module_has_heap_refs`)
/// rule it out too; the caller checks that.
fn module_may_be_lazy(r: &wasmparser::ValidatorResources) -> bool {
    use wasmparser::WasmModuleResources;
    (0..).map_while(|i| r.sub_type_at(i)).all(|st| st.is_final)
}

/// What validating a body on its own found.
enum Checked {
    /// Valid, and it cannot have to run interpreted: translate it later.
    Valid,
    /// It may have to run interpreted ([`needs_eager`]): translate it now.
    Eager,
}

/// Validate a body without translating it, stopping early (with
/// [`Checked::Eager`]) at the first sign that it may be interpreted-only.
fn validate_only(
    v: &mut BodyValidator,
    body: &FunctionBody<'_>,
    features: WasmFeatures,
) -> Result<Checked, LoadError> {
    let mut reader = body.get_binary_reader();
    v.read_locals(&mut reader)?;
    for i in 0..v.len_locals() {
        if v.get_local_type(i).is_some_and(maybe_heap_ref) {
            return Ok(Checked::Eager);
        }
    }
    reader.set_features(features);
    while !reader.eof() {
        let offset = reader.original_position();
        let op = reader.read_operator()?;
        if needs_eager(&op) {
            return Ok(Checked::Eager);
        }
        v.op(offset, &op)?;
    }
    v.finish(reader.original_position())?;
    Ok(Checked::Valid)
}

/// Whether `op`, in a module that declares no heap reference type and only
/// final types, may make its function interpreted-only (the translator's
/// `require_interpreter`), so the function is translated at load: exception
/// handling, Wasm GC instructions and casts, conversions between `any` and
/// `extern`, and anything whose immediates name a heap reference type (the
/// only way such a value can appear in such a module). A superset of what
/// the translator marks: it may translate a function at load that runs
/// compiled after all, never the reverse.
pub(crate) fn needs_eager(op: &wasmparser::Operator<'_>) -> bool {
    use wasmparser::{BlockType, Operator as O, RefType, ValType};
    match op {
        O::Try { .. }
        | O::Catch { .. }
        | O::CatchAll
        | O::Delegate { .. }
        | O::Rethrow { .. }
        | O::Throw { .. }
        | O::ThrowRef
        | O::TryTable { .. }
        | O::BrOnCast { .. }
        | O::BrOnCastFail { .. }
        | O::RefTestNonNull { .. }
        | O::RefTestNullable { .. }
        | O::RefCastNonNull { .. }
        | O::RefCastNullable { .. }
        | O::AnyConvertExtern
        | O::ExternConvertAny => true,
        O::Block { blockty } | O::Loop { blockty } | O::If { blockty } => {
            matches!(blockty, BlockType::Type(t) if maybe_heap_ref(*t))
        }
        O::TypedSelect { ty } => maybe_heap_ref(*ty),
        O::RefNull { hty } => {
            RefType::new(true, *hty).is_none_or(|t| maybe_heap_ref(ValType::Ref(t)))
        }
        _ => super::gc_ops::gc_op(op).is_some(),
    }
}

/// Whether values of type `t` may be heap references, from the type alone:
/// any reference but an abstract function one (a concrete type, even a
/// function type's, counts: only the module's types could tell).
pub(crate) fn maybe_heap_ref(t: wasmparser::ValType) -> bool {
    use wasmparser::{AbstractHeapType as A, HeapType};
    match t {
        wasmparser::ValType::Ref(r) => !matches!(
            r.heap_type(),
            HeapType::Abstract {
                ty: A::Func | A::NoFunc,
                ..
            }
        ),
        _ => false,
    }
}
impl Module {
    /// Decode and validate a binary module.
    pub fn new(bytes: &[u8]) -> Result<Module, LoadError> {
        Module::new_with_features(bytes, supported_features())
    }

    /// Decode and validate with a subset of the supported features (e.g. to
    /// check a module against an older version of the standard).
    pub fn new_with_features(bytes: &[u8], features: WasmFeatures) -> Result<Module, LoadError> {
        Module::load(bytes, features, None, false)
    }

    /// Decode and validate for running in `tier` (the dyn tier's interpreter
    /// code counts loop iterations; other tiers get the same as `new`).
    pub fn new_for_tier(bytes: &[u8], tier: Tier) -> Result<Module, LoadError> {
        Module::new_with_features_for_tier(bytes, supported_features(), tier)
    }

    /// `new_with_features` for running in `tier` (see `new_for_tier`).
    pub fn new_with_features_for_tier(
        bytes: &[u8],
        features: WasmFeatures,
        tier: Tier,
    ) -> Result<Module, LoadError> {
        Module::load(bytes, features, None, tier == Tier::Dyn)
    }

    /// Decode, validate and translate, asking `instr` for the probes of every
    /// site (monitor matching happens here, in the same pass).
    pub fn new_instrumented(
        bytes: &[u8],
        instr: &mut dyn Instrumenter,
    ) -> Result<Module, LoadError> {
        Module::load(bytes, supported_features(), Some(instr), false)
    }

    /// `new_instrumented` for running in `tier` (see `new_for_tier`).
    pub fn new_instrumented_for_tier(
        bytes: &[u8],
        instr: &mut dyn Instrumenter,
        tier: Tier,
    ) -> Result<Module, LoadError> {
        Module::load(bytes, supported_features(), Some(instr), tier == Tier::Dyn)
    }

    fn load(
        bytes: &[u8],
        features: WasmFeatures,
        instr: Option<&mut (dyn Instrumenter + '_)>,
        osr: bool,
    ) -> Result<Module, LoadError> {
        // (With an instrumenter every body is translated at load anyway.)
        let record = match instr {
            None => super::validated::lookup(bytes, features),
            Some(_) => None,
        };
        Module::load_with(bytes, features, instr, osr, record)
    }

    /// [`Module::load`] with the module's [`validated::Record`], if records
    /// are kept.
    fn load_with(
        bytes: &[u8],
        features: WasmFeatures,
        instr: Option<&mut (dyn Instrumenter + '_)>,
        osr: bool,
        record: Option<validated::Record>,
    ) -> Result<Module, LoadError> {
        let found = record.as_ref().and_then(|r| r.found.clone());
        let extern_objects = match &found {
            Some(f) => f.converts_extern,
            None => converts_extern(bytes),
        };
        let mut t = Translate {
            instr,
            osr,
            code: Vec::new(),
            v128_types: None,
            heap_refs: None,
            extern_objects,
            lazy: None,
            known_valid: found.map(|f| f.eager),
            eager: Vec::new(),
            pending: None,
            parallel: None,
            parallel_min: match parallel_by_env() {
                Some(true) => 0,
                Some(false) => usize::MAX,
                None => parallel::MIN_CODE_SIZE,
            },
        };
        let m = Module::decode(bytes, features, &mut t)?;
        if let Some(r) = record.filter(|r| r.found.is_none() && t.lazy == Some(true)) {
            r.save(&validated::Found {
                eager: t.eager,
                converts_extern: extern_objects,
            });
        }
        Ok(m)
    }

    /// Read a module from a file: binary, or text if it parses as `.wat`.
    pub fn from_file(path: &std::path::Path) -> Result<Module, LoadError> {
        Module::new(&read_binary(path)?)
    }

    /// Accepts either a binary module or the text format.
    pub fn from_bytes_or_text(bytes: &[u8]) -> Result<Module, LoadError> {
        Module::new(&to_binary(bytes)?)
    }
}

/// Whether a function body of `bytes` converts between `any` and `extern`
/// (only bodies parsed, and only if the opcode bytes `0xFB 0x1A`/`0xFB 0x1B`
/// occur at all). A module that does not parse says no: the loader reports it.
fn converts_extern(bytes: &[u8]) -> bool {
    use wasmparser::{Operator, Parser, Payload};
    if !bytes
        .windows(2)
        .any(|w| w[0] == 0xFB && (w[1] == 0x1A || w[1] == 0x1B))
    {
        return false;
    }
    for p in Parser::new(0).parse_all(bytes) {
        let Ok(Payload::CodeSectionEntry(body)) = p else {
            continue;
        };
        let Ok(ops) = body.get_operators_reader() else {
            continue;
        };
        for op in ops {
            if matches!(
                op,
                Ok(Operator::AnyConvertExtern | Operator::ExternConvertAny)
            ) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(wat: &str) -> Result<Module, LoadError> {
        Module::new(&wat::parse_str(wat).unwrap())
    }

    #[test]
    fn plain_bodies_are_translated_at_first_use_and_eh_ones_at_load() {
        let m = load(
            r#"(module
                (tag $e)
                (func $plain (result i32) (i32.add (i32.const 1) (i32.const 2)))
                (func $eh (try_table (catch_all 0) (throw $e))))"#,
        )
        .unwrap();
        // A tag is a declaration with heap references: every body at load.
        assert!(module_code(&m).get(0).is_some() && module_code(&m).get(1).is_some());
        assert!(!interp_only(&m, 0) && interp_only(&m, 1));
        let m = load(
            r#"(module
                (func $plain (result i32) (i32.add (i32.const 1) (i32.const 2)))
                (func $eh (block (try_table (catch_all 0) (unreachable))))
                (func $ext (local externref))
                (func $null (drop (ref.null extern))))"#,
        )
        .unwrap();
        let code = module_code(&m);
        assert!(code.get(0).is_none(), "translated before its first use");
        for d in 1..4 {
            assert!(code.get(d).is_some(), "function {d} not translated at load");
        }
        assert!(interp_only(&m, 1) && !interp_only(&m, 0));
        assert!(has_interp_only(&m));
        let c = func_code(&m, 0).unwrap();
        assert_eq!(c.num_results, 1);
        assert!(Rc::ptr_eq(c, module_code(&m).get(0).unwrap()));
    }

    /// A module validated by an earlier load (a record of
    /// [`validated`]) loads again without validating its bodies: the same
    /// functions are translated at load (those that may run interpreted),
    /// the others at their first use, into the same code.
    #[cfg(wizeng_jit)]
    #[test]
    fn a_module_validated_before_loads_the_same() {
        let dir =
            std::env::temp_dir().join(format!("wizeng-load-validated-{}", std::process::id()));
        let bytes = wat::parse_str(
            r#"(module
                (func $plain (param i32) (result i32) (i32.add (local.get 0) (i32.const 2)))
                (func $eh (block (try_table (catch_all 0) (unreachable))))
                (func $bad_if_run (result i32) (i32.const 7)))"#,
        )
        .unwrap();
        let f = supported_features();
        let load = |record| Module::load_with(&bytes, f, None, true, record).unwrap();
        let first = load(validated::lookup_in(&dir, &bytes, f));
        let record = validated::lookup_in(&dir, &bytes, f).unwrap();
        let expected = validated::Found {
            eager: vec![1],
            converts_extern: false,
        };
        assert_eq!(
            record.found,
            Some(expected),
            "the record names the EH function"
        );
        let second = load(Some(record));
        for m in [&first, &second] {
            let code = module_code(m);
            assert!(code.get(0).is_none() && code.get(1).is_some() && code.get(2).is_none());
            assert!(interp_only(m, 1) && !interp_only(m, 0));
        }
        let (a, b) = (
            func_code(&first, 0).unwrap(),
            func_code(&second, 0).unwrap(),
        );
        assert_eq!(format!("{:?}", a.ops), format!("{:?}", b.ops));
        // Without a sound record, an invalid body still fails the load.
        let invalid = wat::parse_str(r#"(module (func (result i32) (i64.const 1)))"#).unwrap();
        let r = validated::lookup_in(&dir, &invalid, f);
        assert!(Module::load_with(&invalid, f, None, true, r).is_err());
        assert_eq!(validated::lookup_in(&dir, &invalid, f).unwrap().found, None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_body_never_called_is_still_validated_at_load() {
        let e = load(r#"(module (func (result i32) (i64.const 1)))"#).unwrap_err();
        assert_eq!(e.kind, crate::core::error::LoadErrorKind::Invalid, "{e:?}");
    }

    /// Load `bytes` lazily, its bodies validated on two threads (whatever
    /// their size) if `parallel`, else in order: the module, or the error,
    /// and the functions translated at load.
    fn load_lazily(bytes: &[u8], parallel: bool) -> (Result<Module, LoadError>, Vec<u32>) {
        let mut t = Translate {
            instr: None,
            osr: false,
            code: Vec::new(),
            v128_types: None,
            heap_refs: None,
            extern_objects: false,
            lazy: None,
            known_valid: None,
            eager: Vec::new(),
            pending: None,
            parallel: None,
            parallel_min: if parallel { 0 } else { usize::MAX },
        };
        let m = Module::decode(bytes, supported_features(), &mut t);
        assert_eq!(t.parallel, Some(parallel), "validated as asked");
        (m, t.eager)
    }

    /// A module of `n` functions: most plain (a loop over locals), every
    /// seventh one with exception handling (translated at load), and
    /// `bad(i)` for function `i`'s body, if any, in its place.
    fn many_funcs(n: usize, bad: impl Fn(usize) -> Option<&'static str>) -> Vec<u8> {
        let mut wat = String::from("(module (memory 1)");
        for i in 0..n {
            let body = match bad(i) {
                Some(b) => b.to_string(),
                None if i % 7 == 3 => "(block (try_table (catch_all 0) (unreachable)))".into(),
                None => format!(
                    "(local $x i32) (local.set $x (i32.const {i}))
                     (loop $l (local.set $x (i32.sub (local.get $x) (i32.const 1)))
                        (i32.store (local.get $x) (local.get $x))
                        (br_if $l (local.get $x)))"
                ),
            };
            wat += &format!("(func {body})");
        }
        wat::parse_str(wat + ")").unwrap()
    }

    /// On two threads, a large module's first invalid body (in function
    /// order) fails the load with the error it has in order, whichever
    /// thread validated it and whatever is invalid after it; an invalid body
    /// translated at load (exception handling) counts in its place.
    #[test]
    fn bodies_validated_on_two_threads_give_the_first_error_in_order() {
        let n = 900;
        let cases: [&dyn Fn(usize) -> Option<&'static str>; 4] = [
            &|i| (i == 871).then_some("(drop (i64.add (i32.const 1) (i32.const 2)))"),
            &|i| match i {
                500 => Some("(i32.const 1)"),
                20 | 890 => Some("(local.get 9)"),
                _ => None,
            },
            // A body translated at load, invalid after its try_table.
            &|i| match i {
                640 => Some("(block (try_table (catch_all 0))) (f32.neg (i32.const 0))"),
                641 | 899 => Some("(br 3)"),
                _ => None,
            },
            &|i| (i == n - 1).then_some("(loop (result i32) (nop))"),
        ];
        for bad in cases {
            let bytes = many_funcs(n, bad);
            let serial = load_lazily(&bytes, false).0.unwrap_err();
            let parallel = load_lazily(&bytes, true).0.unwrap_err();
            assert_eq!(
                (serial.kind, serial.offset, &serial.message),
                (parallel.kind, parallel.offset, &parallel.message)
            );
            // It is the first invalid body's error.
            let first = (0..n).find(|&i| bad(i).is_some()).unwrap();
            let only_first = many_funcs(n, |i| (i == first).then(|| bad(i).unwrap()));
            let e = load_lazily(&only_first, true).0.unwrap_err();
            assert_eq!((e.offset, &e.message), (parallel.offset, &parallel.message));
        }
    }

    /// A kept body's error comes before one found after the code section
    /// (a data segment of a memory that does not exist).
    #[test]
    fn a_kept_bodys_error_comes_before_a_later_sections() {
        let wat = r#"(module (func (drop (i32.const 1))) (func (local.get 3))
            (data (memory 2) (i32.const 0) "x"))"#;
        let bytes = wat::parse_str(wat).unwrap();
        let serial = load_lazily(&bytes, false).0.unwrap_err();
        let parallel = load_lazily(&bytes, true).0.unwrap_err();
        assert!(serial.message.contains("local"), "{serial:?}");
        assert_eq!(
            (serial.offset, &serial.message),
            (parallel.offset, &parallel.message)
        );
    }

    /// On two threads, a large valid module's functions are translated as
    /// in order: the same ones at load, into the same code, the others at
    /// their first use.
    #[test]
    fn bodies_validated_on_two_threads_translate_the_same_functions_at_load() {
        let bytes = many_funcs(900, |_| None);
        let (serial, eager_serial) = load_lazily(&bytes, false);
        let (parallel, eager_parallel) = load_lazily(&bytes, true);
        let (serial, parallel) = (serial.unwrap(), parallel.unwrap());
        assert_eq!(eager_parallel, (3..900).step_by(7).collect::<Vec<u32>>());
        assert_eq!(eager_serial, eager_parallel);
        let (s, p) = (module_code(&serial), module_code(&parallel));
        assert!(p.lazy && s.lazy);
        for d in 0..900 {
            assert_eq!(s.get(d).is_some(), p.get(d).is_some(), "function {d}");
            if let (Some(a), Some(b)) = (s.get(d), p.get(d)) {
                assert_eq!(format!("{:?}", a.ops), format!("{:?}", b.ops));
                assert!(a.interp_only && b.interp_only);
            }
        }
        let (a, b) = (
            func_code(&serial, 5).unwrap(),
            func_code(&parallel, 5).unwrap(),
        );
        assert_eq!(format!("{:?}", a.ops), format!("{:?}", b.ops));
    }

    #[test]
    fn lazy_translation_makes_the_same_code_as_eager() {
        let wat = r#"(module (func (param i32) (result i32)
            (loop (br_if 0 (i32.eqz (local.get 0)))) (local.get 0)))"#;
        let m = load(wat).unwrap();
        let lazy = func_code(&m, 0).unwrap();
        let bytes = wat::parse_str(wat).unwrap();
        let mut t = Translate {
            instr: None,
            osr: false,
            code: Vec::new(),
            v128_types: None,
            heap_refs: None,
            extern_objects: false,
            lazy: Some(false),
            known_valid: None,
            eager: Vec::new(),
            pending: None,
            parallel: None,
            parallel_min: parallel::MIN_CODE_SIZE,
        };
        let eager = Module::decode(&bytes, supported_features(), &mut t).unwrap();
        let eager = module_code(&eager).get(0).unwrap();
        assert_eq!(format!("{:?}", lazy.ops), format!("{:?}", eager.ops));
        assert_eq!(lazy.pcs, eager.pcs);
    }
}
