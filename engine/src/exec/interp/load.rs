//! Loading for execution: the interpreter's half of the loader's one pass.
//!
//! [`Module`]'s constructors live here, beside the translator they run: the core
//! loader decodes and validates, and calls [`Translate`] on every body so that
//! each function's interpreter code is made while its validator is at hand.

use std::rc::Rc;

use crate::core::module::BodyValidator;
use wasmparser::{FunctionBody, WasmFeatures};

use super::code::Compiled;
use crate::core::error::LoadError;
use crate::core::module::{
    read_binary, supported_features, to_binary, BodyCtx, BodyTranslator, Module,
};
use crate::core::probe::Instrumenter;
use crate::runtime::store::Tier;

/// The interpreter code of a module's defined functions, by defined index.
pub(crate) struct ModuleCode(pub Vec<Rc<Compiled>>);

/// The interpreter code of `m`'s defined functions (every module is loaded
/// through [`Translate`], so the product is always there).
pub(crate) fn module_code(m: &Module) -> &[Rc<Compiled>] {
    &m.code::<ModuleCode>()
        .expect("modules are loaded with the interpreter's translator")
        .0
}

/// Whether some function of `m` always runs interpreted
/// (`Compiled::interp_only`).
pub(crate) fn has_interp_only(m: &Module) -> bool {
    module_code(m).iter().any(|c| c.interp_only)
}

/// The interpreter code of defined function `func_idx` (an index of the whole
/// function space; must not be an import).
pub(crate) fn func_code(m: &Module, func_idx: u32) -> &Rc<Compiled> {
    &module_code(m)[(func_idx - m.num_imported_funcs) as usize]
}

struct Translate<'r, 'i> {
    instr: Option<&'r mut (dyn Instrumenter + 'i)>,
    osr: bool,
    code: Vec<Rc<Compiled>>,
    /// Some type of the module has a `v128` (computed at the first body).
    v128_types: Option<bool>,
    /// The module declares heap reference types (computed at the first body).
    heap_refs: Option<bool>,
    /// An `externref` of the module may name a heap object: a body has
    /// `any.convert_extern`/`extern.convert_any` ([`converts_extern`]).
    extern_objects: bool,
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
        let ctx = super::compile::ModuleCtx {
            types: ctx.types,
            func_types: ctx.func_types,
            features: ctx.features,
            osr: self.osr,
            v128_types,
            heap_refs,
            extern_objects: self.extern_objects,
        };
        let compiled = super::compile::translate(validator, body, &ctx, self.instr.as_deref_mut())?;
        self.code.push(Rc::new(compiled));
        Ok(())
    }

    fn finish(&mut self) -> Box<dyn std::any::Any> {
        Box::new(ModuleCode(std::mem::take(&mut self.code)))
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
        let mut t = Translate {
            instr,
            osr,
            code: Vec::new(),
            v128_types: None,
            heap_refs: None,
            extern_objects: converts_extern(bytes),
        };
        Module::decode(bytes, features, &mut t)
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
