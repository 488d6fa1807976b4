//! The loader: decodes and validates a binary module with wasmparser and keeps a
//! representation that later stages (interpreter, JIT, monitor matching, weaving)
//! share. Each function keeps its original bytecode range, so an instruction is
//! always identified by (function index, byte offset in the original body): the
//! monitor ABI's `pc`, where the body starts at its local declarations.

use std::any::Any;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use wasmparser::{
    FuncToValidate, FuncValidator, FunctionBody, Operator, Parser, Payload, Validator,
    ValidatorResources, WasmFeatures,
};

/// What validation knows of a module (types, imports, exports...), shared by
/// every function's validator: kept with the module, so that a translator
/// that runs later (the JIT, for one function) validates that function
/// without revalidating the module's sections.
pub type Resources = Arc<ValidatorResources>;

/// The validator of one function body, as every translator sees it.
pub type BodyValidator = FuncValidator<Resources>;

use crate::core::error::{LoadError, LoadErrorKind};
use crate::core::gc_types::{HeapTy, ModuleTypes};
use crate::core::types::*;

/// The Wasm features the engine executes. Anything else is rejected at load time
/// with an `unsupported: <feature>` error.
pub fn supported_features() -> WasmFeatures {
    WasmFeatures::MUTABLE_GLOBAL
        | WasmFeatures::SATURATING_FLOAT_TO_INT
        | WasmFeatures::SIGN_EXTENSION
        | WasmFeatures::REFERENCE_TYPES
        | WasmFeatures::MULTI_VALUE
        | WasmFeatures::BULK_MEMORY
        | WasmFeatures::TAIL_CALL
        | WasmFeatures::FLOATS
        | WasmFeatures::MULTI_MEMORY
        | WasmFeatures::EXTENDED_CONST
        | WasmFeatures::SIMD
        | WasmFeatures::RELAXED_SIMD
        | WasmFeatures::THREADS
        | WasmFeatures::FUNCTION_REFERENCES
        | WasmFeatures::MEMORY64
        | WasmFeatures::CUSTOM_PAGE_SIZES
        | WasmFeatures::GC
        | WasmFeatures::EXCEPTIONS
        | WasmFeatures::LEGACY_EXCEPTIONS
        // Not a proposal: wasmparser gates `externref` on it (with REFERENCE_TYPES).
        | WasmFeatures::GC_TYPES
}

/// Features we name when a module needs them, most common first.
const KNOWN_UNSUPPORTED: &[(WasmFeatures, &str)] =
    &[(WasmFeatures::COMPONENT_MODEL, "component-model")];

/// One operation of a constant expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstOp {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    V128(u128),
    RefNull(ValType),
    RefFunc(u32),
    GlobalGet(u32),
    I32Add,
    I32Sub,
    I32Mul,
    I64Add,
    I64Sub,
    I64Mul,
    /// `struct.new`/`struct.new_default` of a type index (fields popped
    /// unless default).
    StructNew(u32),
    StructNewDefault(u32),
    /// `array.new` (value, length), `array.new_default` (length),
    /// `array.new_fixed` (n values).
    ArrayNew(u32),
    ArrayNewDefault(u32),
    ArrayNewFixed(u32, u32),
    /// `ref.i31` of the i32 on top.
    RefI31,
}

/// A constant expression (global initialisers, segment offsets, element items).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ConstExpr(pub Vec<ConstOp>);

#[derive(Clone, Debug)]
pub struct Import {
    pub module: String,
    pub name: String,
    pub desc: ImportDesc,
}

#[derive(Clone, Debug)]
pub enum ImportDesc {
    /// Type index.
    Func(u32),
    Table(TableType),
    Memory(MemoryType),
    Global(GlobalType),
    /// An exception tag: its function type's index (no results).
    Tag(u32),
}

impl ImportDesc {
    pub fn kind(&self) -> ExternKind {
        match self {
            ImportDesc::Func(_) => ExternKind::Func,
            ImportDesc::Table(_) => ExternKind::Table,
            ImportDesc::Memory(_) => ExternKind::Memory,
            ImportDesc::Global(_) => ExternKind::Global,
            ImportDesc::Tag(_) => ExternKind::Tag,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Export {
    pub name: String,
    pub kind: ExternKind,
    pub index: u32,
}

#[derive(Clone, Debug)]
pub struct TableDef {
    pub ty: TableType,
    pub init: Option<ConstExpr>,
}

#[derive(Clone, Debug)]
pub struct GlobalDef {
    pub ty: GlobalType,
    pub init: ConstExpr,
}

#[derive(Clone, Debug)]
pub enum ElemMode {
    Passive,
    Declared,
    Active { table: u32, offset: ConstExpr },
}

#[derive(Clone, Debug)]
pub struct ElemSegment {
    pub ty: ValType,
    pub mode: ElemMode,
    /// Each item is a constant expression producing a reference.
    pub items: Vec<ConstExpr>,
}

#[derive(Clone, Debug)]
pub enum DataMode {
    Passive,
    Active { memory: u32, offset: ConstExpr },
}

#[derive(Clone, Debug)]
pub struct DataSegment {
    pub mode: DataMode,
    /// Range of the bytes in [`ModuleInfo::bytes`].
    pub range: Range<usize>,
}

/// A function defined by the module (not imported).
#[derive(Clone, Debug)]
pub struct FuncBody {
    /// Range of the body in [`ModuleInfo::bytes`], starting at the local declarations
    /// (pc 0 of the monitor ABI) and ending after the final `end`.
    pub range: Range<usize>,
    /// Declared locals, expanded (parameters not included).
    pub locals: Vec<ValType>,
    /// Offset (relative to `range.start`) of the first instruction.
    pub code_start: u32,
}

/// What a module declares: everything decoded from the binary, shared read-only
/// by every layer (and by JIT compile threads: it is `Sync`).
#[derive(Debug)]
pub struct ModuleInfo {
    /// The original binary.
    pub bytes: Arc<[u8]>,
    /// The function type of each type index (an empty one for struct and
    /// array types, which `gc` describes).
    pub types: Vec<FuncType>,
    /// Every type with its rec group, supertype and fields (Wasm GC).
    pub gc: crate::core::gc_types::ModuleTypes,
    /// Per type index: the recursion group it was declared in, as the range
    /// of its members' type indices (a type alone is a group of one). Two
    /// types are the same type only if their groups match member by member
    /// and they are at the same position (tag import matching).
    pub rec_groups: Vec<Range<u32>>,
    pub imports: Vec<Import>,
    /// Type index of every function in the function index space (imports first).
    pub func_types: Vec<u32>,
    /// The module's validation state once its sections are validated
    /// (`None` for a module without function bodies): see
    /// [`ModuleInfo::body_to_validate`].
    pub resources: Option<Resources>,
    pub num_imported_funcs: u32,
    pub num_imported_tables: u32,
    pub num_imported_memories: u32,
    pub num_imported_globals: u32,
    pub num_imported_tags: u32,
    /// Type index of every tag in the tag index space (imports first).
    pub tag_types: Vec<u32>,
    /// Defined tables, memories and globals (imports excluded).
    pub tables: Vec<TableDef>,
    pub memories: Vec<MemoryType>,
    pub globals: Vec<GlobalDef>,
    pub exports: Vec<Export>,
    pub start: Option<u32>,
    pub elems: Vec<ElemSegment>,
    pub datas: Vec<DataSegment>,
    /// Bodies of the defined functions, in order.
    pub bodies: Vec<FuncBody>,
    /// Function names from the name section.
    pub func_names: HashMap<u32, String>,
    /// Module name from the name section, if any.
    pub name: Option<String>,
    /// For a woven module: where its code came from (original fids and pcs).
    pub origin: Option<crate::core::provenance::Origin>,
    /// Bodies made at their first use (a woven module woven lazily): the
    /// module's own bytes hold a placeholder for each of them. Read every
    /// body through [`ModuleInfo::body_bytes`] or
    /// [`ModuleInfo::body_to_validate`].
    pub lazy: Option<LazyBodies>,
    /// Compiled tiers (but dyn) may keep the values of the globals this module
    /// defines and does not export in its instance's vmctx, where the store
    /// cannot see them (`jit::layout_of`; read them with `jit::global_slot`).
    /// Only for a module whose unexported globals nothing else reaches by
    /// address: the application, not a monitor (woven code imports a monitor's
    /// globals, `--emit-woven` copies their values).
    pub private_globals_in_vmctx: bool,
    /// The features the module was validated with (a tier that walks the
    /// binary again validates with these).
    pub features: WasmFeatures,
}

/// Makes the real bodies of a module whose own bytes hold placeholders
/// ([`LazyBodies`]). Called at most once per function, from whichever thread
/// first needs it (the interpreter's translation at a first call, the JIT's
/// compile, possibly on a compiler thread), under a lock.
pub trait BodySource: Send {
    /// Defined function `func_idx`'s body (an index of the module whose
    /// bodies these are), as in the code section (local declarations, then
    /// code), and its provenance.
    fn make(
        &mut self,
        func_idx: u32,
    ) -> Result<(Vec<u8>, crate::core::provenance::FuncOrigin), LoadError>;

    /// Defined function `func_idx`'s code without what weaving adds, and
    /// the probes to fire at its sites, for an interpreter that fires them
    /// itself ([`PlainBody`]); `None` when only the made body will do.
    fn plain(&mut self, _func_idx: u32) -> Option<PlainBody> {
        None
    }
}

/// A deferred body as the app wrote it (in the index spaces of the module
/// that defers it) with its probes beside it, not woven in: the dyn tier
/// interprets it, firing the probes as `--mode=int` does, until the
/// function is compiled (from its made body).
pub struct PlainBody {
    /// Local declarations and code.
    pub bytes: Vec<u8>,
    /// (pc in `bytes`, the original pc), one per instruction, ascending.
    pub pcs: Vec<(u32, u32)>,
    /// The probes at the function's entry.
    pub entry: crate::core::probe::Probes,
    /// The probes before and after instructions, by original pc, ascending.
    pub before: Vec<(u32, crate::core::probe::Probes)>,
    pub after: Vec<(u32, crate::core::probe::Probes)>,
}

impl PlainBody {
    /// The original pc of the instruction at `pc` in [`PlainBody::bytes`].
    pub fn original_pc(&self, pc: u32) -> u32 {
        match self.pcs.binary_search_by_key(&pc, |e| e.0) {
            Ok(i) => self.pcs[i].1,
            Err(0) => 0,
            Err(i) => self.pcs[i - 1].1,
        }
    }
}

/// The bodies of a module made at their first use: the module validated with
/// a placeholder (`unreachable`, valid for any type) in their place, and
/// each is validated when a tier translates it, as any body made later is
/// (`ModuleInfo::body_to_validate`). A module whose functions might run only
/// in the interpreter (`exec::interp::load`: exception handling, Wasm GC)
/// never has placeholders there: the maker decides which bodies it defers.
pub struct LazyBodies {
    /// Per defined function: whether its body is made later.
    deferred: Box<[bool]>,
    /// Per defined function: its body once made.
    made: Box<[std::sync::OnceLock<Box<[u8]>>]>,
    source: std::sync::Mutex<Box<dyn BodySource>>,
}

impl std::fmt::Debug for LazyBodies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let made = self.made.iter().filter(|c| c.get().is_some()).count();
        write!(f, "LazyBodies {{ made: {made} }}")
    }
}

impl LazyBodies {
    /// `deferred[d]`: defined function `d`'s body is a placeholder, made by
    /// `source` at its first use.
    pub fn new(deferred: Vec<bool>, source: Box<dyn BodySource>) -> LazyBodies {
        LazyBodies {
            made: deferred.iter().map(|_| Default::default()).collect(),
            deferred: deferred.into_boxed_slice(),
            source: std::sync::Mutex::new(source),
        }
    }

    /// Whether defined function `d`'s body is made later.
    pub fn is_deferred(&self, d: usize) -> bool {
        self.deferred.get(d).copied().unwrap_or(false)
    }

    /// How many deferred bodies were made so far.
    pub fn made_count(&self) -> usize {
        self.made.iter().filter(|c| c.get().is_some()).count()
    }

    /// How many bodies are deferred.
    pub fn deferred_count(&self) -> usize {
        self.deferred.iter().filter(|d| **d).count()
    }

    /// Defined function `d`'s [`PlainBody`], if its body is deferred, not
    /// made yet, and its source can give one.
    pub fn plain(&self, d: usize, func_idx: u32) -> Option<PlainBody> {
        if !self.is_deferred(d) || self.made[d].get().is_some() {
            return None;
        }
        let mut source = self.source.lock().unwrap_or_else(|e| e.into_inner());
        source.plain(func_idx)
    }

    /// Drop the source (and what it keeps to make bodies): for a caller
    /// that runs none of the module's code any more. A body not made yet
    /// cannot be made after this (its translation fails).
    pub fn release(&self) {
        let mut source = self.source.lock().unwrap_or_else(|e| e.into_inner());
        *source = Box::new(Released);
    }
}

/// The source of a [`LazyBodies`] after [`LazyBodies::release`].
struct Released;

impl BodySource for Released {
    fn make(
        &mut self,
        func_idx: u32,
    ) -> Result<(Vec<u8>, crate::core::provenance::FuncOrigin), LoadError> {
        Err(LoadError {
            kind: LoadErrorKind::Invalid,
            offset: None,
            message: format!("function {func_idx}: its body was released before it was made"),
        })
    }
}

/// The placeholder of a deferred body: no locals, `unreachable`, `end`.
pub const PLACEHOLDER_BODY: [u8; 3] = [0x00, 0x00, 0x0b];

/// A decoded, validated module with the code an execution tier translated from
/// it in the same pass ([`BodyTranslator`]). Dereferences to its [`ModuleInfo`].
pub struct Module {
    /// Shared with background compile jobs ([`Module::shared_info`]); only
    /// the loader mutates it, before anything else holds it.
    info: Arc<ModuleInfo>,
    /// The translator's product (the interpreter's code for every defined
    /// function), opaque to this layer; the tier that made it reads it back.
    code: Box<dyn Any>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.info.fmt(f)
    }
}

impl std::ops::Deref for Module {
    type Target = ModuleInfo;
    fn deref(&self) -> &ModuleInfo {
        &self.info
    }
}

impl std::ops::DerefMut for Module {
    fn deref_mut(&mut self) -> &mut ModuleInfo {
        Arc::get_mut(&mut self.info)
            .expect("a module's info is changed only while it is being loaded, before it is shared")
    }
}

/// What a translator sees of the module while its bodies are validated.
pub struct BodyCtx<'a> {
    pub types: &'a [FuncType],
    /// Type index of every function in the function index space.
    pub func_types: &'a [u32],
    pub features: WasmFeatures,
    /// The size of the code section in bytes (a translator may validate a
    /// large module's bodies on more than one thread).
    pub code_size: usize,
}

/// Translates each function body while the loader validates it (one pass over
/// the binary): the execution tier's half of loading. The loader calls
/// [`BodyTranslator::body`] for every defined function in order, then keeps
/// what [`BodyTranslator::finish`] returns in the [`Module`].
///
/// A translator may keep bodies to validate later, all at once (on more
/// than one thread): the loader calls [`BodyTranslator::bodies_done`] after
/// the last body, before anything after the code section is validated, and
/// also when the load fails later, so that an error in a kept body is
/// reported, as if it had been validated in order.
pub trait BodyTranslator {
    fn body(
        &mut self,
        ctx: &BodyCtx<'_>,
        validator: &mut BodyValidator,
        body: &FunctionBody<'_>,
    ) -> Result<(), LoadError>;
    /// Validate (and translate) what [`BodyTranslator::body`] kept; `bytes`
    /// are the module's (the bodies' ranges index them). Called again
    /// after it returned, it has nothing left to do.
    fn bodies_done(&mut self, _ctx: &BodyCtx<'_>, _bytes: &[u8]) -> Result<(), LoadError> {
        Ok(())
    }
    fn finish(&mut self) -> Box<dyn Any>;
}

impl Module {
    /// Decode and validate `bytes` with `features` (intersected with the
    /// supported ones), translating every body with `translator`.
    pub fn decode(
        bytes: &[u8],
        features: WasmFeatures,
        translator: &mut dyn BodyTranslator,
    ) -> Result<Module, LoadError> {
        let features = features & supported_features();
        let parsed = parse(bytes, features, translator);
        match parsed {
            Ok(info) => Ok(Module {
                info: Arc::new(info),
                code: translator.finish(),
            }),
            Err(e)
                if matches!(
                    e.kind,
                    LoadErrorKind::Unsupported | LoadErrorKind::MonitorBind
                ) =>
            {
                Err(e)
            }
            Err(e) => Err(explain_unsupported(bytes).unwrap_or(e)),
        }
    }

    /// The translator's product, if `T` is its type.
    pub fn code<T: Any>(&self) -> Option<&T> {
        self.code.downcast_ref()
    }

    pub fn info(&self) -> &ModuleInfo {
        &self.info
    }

    /// The module's info for another thread (a background compile job).
    /// Once shared, the module is no longer mutable (`DerefMut` panics).
    pub fn shared_info(&self) -> Arc<ModuleInfo> {
        self.info.clone()
    }
}

impl ModuleInfo {
    pub fn num_funcs(&self) -> u32 {
        self.func_types.len() as u32
    }

    pub fn func_type(&self, func_idx: u32) -> &FuncType {
        &self.types[self.func_types[func_idx as usize] as usize]
    }

    /// The body of a defined function, by function index (must not be an import).
    pub fn body(&self, func_idx: u32) -> &FuncBody {
        &self.bodies[(func_idx - self.num_imported_funcs) as usize]
    }

    /// Defined function `func_idx`'s body with what its validator needs, for
    /// a translator that runs after loading (the JIT): the module's sections
    /// were validated at load and are not revisited. A deferred body
    /// ([`LazyBodies`]) is made now; its offsets count from where its
    /// placeholder is, so `offset - body(func_idx).range.start` is its pc.
    pub fn body_to_validate(
        &self,
        func_idx: u32,
    ) -> Result<(FuncToValidate<Resources>, FunctionBody<'_>), LoadError> {
        let func = self.func_to_validate(func_idx)?;
        let start = self.body(func_idx).range.start;
        let reader = wasmparser::BinaryReader::new(self.body_bytes(func_idx)?, start);
        Ok((func, FunctionBody::new(reader)))
    }

    /// A validator's start for a body of defined function `func_idx` (its
    /// own, or another for it such as a [`PlainBody`]).
    pub fn func_to_validate(&self, func_idx: u32) -> Result<FuncToValidate<Resources>, LoadError> {
        let resources = self.resources.clone().ok_or_else(|| LoadError {
            kind: LoadErrorKind::Invalid,
            offset: None,
            message: "the module has no validation state".into(),
        })?;
        Ok(FuncToValidate {
            resources,
            index: func_idx,
            ty: self.func_types[func_idx as usize],
            features: self.features,
        })
    }

    /// Defined function `func_idx`'s body (local declarations and code): the
    /// module's own bytes, or, for a deferred body ([`LazyBodies`]), the one
    /// made at its first use (made now if this is it).
    pub fn body_bytes(&self, func_idx: u32) -> Result<&[u8], LoadError> {
        let d = (func_idx - self.num_imported_funcs) as usize;
        match &self.lazy {
            Some(l) if l.is_deferred(d) => self.made_body(l, func_idx, d),
            _ => Ok(&self.bytes[self.body(func_idx).range.clone()]),
        }
    }

    #[cold]
    fn made_body<'s>(
        &'s self,
        l: &'s LazyBodies,
        func_idx: u32,
        d: usize,
    ) -> Result<&'s [u8], LoadError> {
        if let Some(b) = l.made[d].get() {
            return Ok(b);
        }
        let mut source = l.source.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread may have made it while this one waited.
        if let Some(b) = l.made[d].get() {
            return Ok(b);
        }
        let (bytes, origin) = source.make(func_idx)?;
        // The provenance first: whoever sees the body finds its table.
        if let Some(o) = &self.origin {
            o.set(d, origin);
        }
        Ok(l.made[d].get_or_init(|| bytes.into_boxed_slice()))
    }

    /// The length of defined function `func_idx`'s body: a deferred one's
    /// once made (its placeholder's before).
    pub fn body_len(&self, func_idx: u32) -> usize {
        let d = (func_idx - self.num_imported_funcs) as usize;
        match self.lazy.as_ref().and_then(|l| l.made.get(d)?.get()) {
            Some(b) => b.len(),
            None => self.body(func_idx).range.len(),
        }
    }

    /// Name of a function for reports: from the name section, else `func[N]`.
    pub fn func_name(&self, func_idx: u32) -> String {
        match self.func_names.get(&func_idx) {
            Some(n) => n.clone(),
            None => format!("func[{func_idx}]"),
        }
    }

    pub fn export(&self, name: &str) -> Option<&Export> {
        self.exports.iter().find(|e| e.name == name)
    }

    /// Types of all imported globals then defined globals.
    pub fn global_type(&self, idx: u32) -> GlobalType {
        let mut i = 0;
        for imp in &self.imports {
            if let ImportDesc::Global(g) = &imp.desc {
                if i == idx {
                    return *g;
                }
                i += 1;
            }
        }
        self.globals[(idx - self.num_imported_globals) as usize].ty
    }

    /// The identity of type `ti` across modules (see `rec_groups`): its
    /// group's members and its position in the group.
    pub fn type_identity(&self, ti: u32) -> (Vec<FuncType>, u32) {
        let g = self.rec_groups[ti as usize].clone();
        let members = self.types[g.start as usize..g.end as usize].to_vec();
        (members, ti - g.start)
    }

    /// An operator reader over a defined function's instructions, with offsets
    /// relative to the module binary (subtract `body.range.start` for the pc).
    pub fn operators(&self, func_idx: u32) -> wasmparser::OperatorsReader<'_> {
        let body = self.body(func_idx);
        let start = body.range.start + body.code_start as usize;
        let _ = start;
        let reader =
            wasmparser::BinaryReader::new(&self.bytes[body.range.clone()], body.range.start);
        wasmparser::FunctionBody::new(reader)
            .get_operators_reader()
            .expect("validated body")
    }
}

/// Read a file as a binary module, converting the text format if needed.
pub fn read_binary(path: &std::path::Path) -> Result<Vec<u8>, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        kind: LoadErrorKind::Io,
        offset: None,
        message: format!("cannot read {}: {e}", path.display()),
    })?;
    to_binary(&bytes)
}

/// A binary module as is, or the text format converted to binary.
pub fn to_binary(bytes: &[u8]) -> Result<Vec<u8>, LoadError> {
    if bytes.starts_with(b"\0asm") {
        return Ok(bytes.to_vec());
    }
    let looks_like_text = std::str::from_utf8(bytes).is_ok_and(|t| {
        let t = t.trim_start();
        t.starts_with('(') || t.starts_with(";;") || t.starts_with("(;")
    });
    if !looks_like_text {
        return Err(LoadError {
            kind: LoadErrorKind::Malformed,
            offset: Some(0),
            message: "not a WebAssembly module: no \\0asm magic header, and not in the text format"
                .into(),
        });
    }
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    wat::parse_str(text).map_err(|e| LoadError {
        kind: LoadErrorKind::Malformed,
        offset: None,
        message: format!("text format: {e}"),
    })
}

/// Function names from a module's name section (empty if none or malformed).
pub fn read_func_names(bytes: &[u8]) -> HashMap<u32, String> {
    let mut names = HashMap::new();
    for p in Parser::new(0).parse_all(bytes) {
        match p {
            Ok(Payload::CustomSection(c)) => {
                if let wasmparser::KnownCustom::Name(r) = c.as_known() {
                    for n in r.into_iter().flatten() {
                        if let wasmparser::Name::Function(map) = n {
                            for naming in map.into_iter().flatten() {
                                names.insert(naming.index, naming.name.to_string());
                            }
                        }
                    }
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    names
}

/// Whether the instruction the decoder stopped at (`offset`, its first byte)
/// is one of wide-arithmetic's (0xfc 19..=22), which this wasmparser does
/// not know: it reports them as unknown opcodes, so they are recognised here.
fn is_wide_arithmetic(bytes: &[u8], offset: usize) -> bool {
    matches!(bytes.get(offset..offset + 2), Some([0xfc, 0x13..=0x16]))
}

/// A module failed to load: would it be valid with more features? Then it is
/// unsupported (naming the feature), not invalid.
fn explain_unsupported(bytes: &[u8]) -> Option<LoadError> {
    let err = match Validator::new_with_features(supported_features()).validate_all(bytes) {
        Ok(_) => return None,
        Err(e) => e,
    };
    if is_wide_arithmetic(bytes, err.offset()) {
        return Some(LoadError {
            kind: LoadErrorKind::Unsupported,
            offset: Some(err.offset()),
            message: "unsupported: wide-arithmetic (i64.add128, i64.sub128, i64.mul_wide_s/u): \
                      wasmparser 0.217, which cranelift-wasm 0.112 pins, cannot decode it"
                .into(),
        });
    }
    // Would the module be valid with more features? Then it is unsupported, not invalid.
    let all = supported_features()
        | KNOWN_UNSUPPORTED
            .iter()
            .fold(WasmFeatures::empty(), |a, (f, _)| a | *f);
    if Validator::new_with_features(all)
        .validate_all(bytes)
        .is_ok()
    {
        for (f, name) in KNOWN_UNSUPPORTED {
            if Validator::new_with_features(supported_features() | *f)
                .validate_all(bytes)
                .is_ok()
            {
                return Some(LoadError {
                    kind: LoadErrorKind::Unsupported,
                    offset: Some(err.offset()),
                    message: format!("unsupported: {name} ({})", err.message()),
                });
            }
        }
        return Some(LoadError {
            kind: LoadErrorKind::Unsupported,
            offset: Some(err.offset()),
            message: format!("unsupported: {}", err.message()),
        });
    }
    None
}

fn limits(min: u64, max: Option<u64>) -> Limits {
    Limits { min, max }
}

fn table_type(gc: &ModuleTypes, t: &wasmparser::TableType) -> TableType {
    TableType {
        elem: gc.val_of_ref(t.element_type),
        limits: limits(t.initial, t.maximum),
        detail: RefDetail::of(t.element_type, gc),
        index64: t.table64,
    }
}

fn memory_type(m: &wasmparser::MemoryType) -> MemoryType {
    MemoryType {
        limits: limits(m.initial, m.maximum),
        shared: m.shared,
        index64: m.memory64,
        page_size_log2: m.page_size_log2.unwrap_or(16) as u8,
    }
}

fn global_type(gc: &ModuleTypes, g: &wasmparser::GlobalType) -> GlobalType {
    GlobalType {
        ty: gc.val(g.content_type),
        mutable: g.mutable,
        detail: match g.content_type {
            wasmparser::ValType::Ref(r) => RefDetail::of(r, gc),
            _ => RefDetail::default(),
        },
    }
}

pub(crate) fn const_expr(
    gc: &ModuleTypes,
    e: &wasmparser::ConstExpr<'_>,
) -> Result<ConstExpr, LoadError> {
    match integer_const(e) {
        Some(op) => Ok(ConstExpr(vec![op])),
        None => read_const_expr(gc, e),
    }
}

/// [`const_expr`] by the operator decoder.
fn read_const_expr(
    gc: &ModuleTypes,
    e: &wasmparser::ConstExpr<'_>,
) -> Result<ConstExpr, LoadError> {
    let mut ops = Vec::new();
    let mut r = e.get_operators_reader();
    while !r.eof() {
        let op = r.read()?;
        ops.push(match op {
            Operator::I32Const { value } => ConstOp::I32(value),
            Operator::I64Const { value } => ConstOp::I64(value),
            Operator::F32Const { value } => ConstOp::F32(value.bits()),
            Operator::F64Const { value } => ConstOp::F64(value.bits()),
            Operator::V128Const { value } => ConstOp::V128(value.i128() as u128),
            Operator::RefNull { hty } => ConstOp::RefNull(match HeapTy::of(hty) {
                HeapTy::Func | HeapTy::NoFunc => ValType::FuncRef,
                HeapTy::Concrete(i) if gc.is_func(i) => ValType::FuncRef,
                HeapTy::Exn | HeapTy::NoExn => ValType::ExnRef,
                _ => ValType::ExternRef,
            }),
            Operator::RefFunc { function_index } => ConstOp::RefFunc(function_index),
            Operator::GlobalGet { global_index } => ConstOp::GlobalGet(global_index),
            Operator::I32Add => ConstOp::I32Add,
            Operator::I32Sub => ConstOp::I32Sub,
            Operator::I32Mul => ConstOp::I32Mul,
            Operator::I64Add => ConstOp::I64Add,
            Operator::I64Sub => ConstOp::I64Sub,
            Operator::I64Mul => ConstOp::I64Mul,
            Operator::StructNew { struct_type_index } => ConstOp::StructNew(struct_type_index),
            Operator::StructNewDefault { struct_type_index } => {
                ConstOp::StructNewDefault(struct_type_index)
            }
            Operator::ArrayNew { array_type_index } => ConstOp::ArrayNew(array_type_index),
            Operator::ArrayNewDefault { array_type_index } => {
                ConstOp::ArrayNewDefault(array_type_index)
            }
            Operator::ArrayNewFixed {
                array_type_index,
                array_size,
            } => ConstOp::ArrayNewFixed(array_type_index, array_size),
            Operator::RefI31 => ConstOp::RefI31,
            // The same slot in both hierarchies (`core::refs`).
            Operator::AnyConvertExtern | Operator::ExternConvertAny => continue,
            Operator::End => break,
            _ => {
                return Err(LoadError {
                    kind: LoadErrorKind::Unsupported,
                    offset: Some(r.original_position()),
                    message: "unsupported constant expression operator".into(),
                });
            }
        });
    }
    Ok(ConstExpr(ops))
}

/// The constant of an expression that is `i32.const` or `i64.const` and
/// `end`, read without the operator decoder: most initialisers are (a
/// woven module's block counters: 209k on boa). `None` for any other,
/// malformed ones included, which [`const_expr`] then reads in full.
fn integer_const(e: &wasmparser::ConstExpr<'_>) -> Option<ConstOp> {
    let mut r = e.get_binary_reader();
    let op = match r.read_u8().ok()? {
        0x41 => ConstOp::I32(r.read_var_i32().ok()?),
        0x42 => ConstOp::I64(r.read_var_i64().ok()?),
        _ => return None,
    };
    (r.read_u8().ok()? == 0x0B && r.eof()).then_some(op)
}

fn parse(
    bytes: &[u8],
    features: WasmFeatures,
    translator: &mut dyn BodyTranslator,
) -> Result<ModuleInfo, LoadError> {
    let mut m = ModuleInfo::empty(bytes, features);
    let read = m.read_all(bytes, features, translator);
    // Bodies the translator kept were before whatever failed: their error
    // comes first.
    m.bodies_done(translator)?;
    read.map(|()| m)
}

impl ModuleInfo {
    /// Validate and read every payload of `bytes`, handing each body to
    /// `translator` (and telling it after the last one).
    fn read_all(
        &mut self,
        bytes: &[u8],
        features: WasmFeatures,
        translator: &mut dyn BodyTranslator,
    ) -> Result<(), LoadError> {
        let mut validator = Validator::new_with_features(features);
        let mut allocs = wasmparser::FuncValidatorAllocations::default();
        let (mut bodies_left, mut code_size) = (0u32, 0usize);
        for payload in Parser::new(0).parse_all(bytes) {
            let payload = payload?;
            if let Payload::CodeSectionStart { count, range, .. } = &payload {
                (bodies_left, code_size) = (*count, range.len());
            }
            if let wasmparser::ValidPayload::Func(func, body) = validator.payload(&payload)? {
                allocs = self.translate_body(func, &body, allocs, code_size, translator)?;
                bodies_left = bodies_left.saturating_sub(1);
                if bodies_left == 0 {
                    self.bodies_done(translator)?;
                }
            }
            self.read_payload(payload)?;
        }
        Ok(())
    }

    /// [`BodyTranslator::bodies_done`] with this module's context.
    fn bodies_done(&self, translator: &mut dyn BodyTranslator) -> Result<(), LoadError> {
        let ctx = BodyCtx {
            types: &self.types,
            func_types: &self.func_types,
            features: self.features,
            code_size: 0,
        };
        translator.bodies_done(&ctx, &self.bytes)
    }
}

impl ModuleInfo {
    /// A module with nothing read yet.
    fn empty(bytes: &[u8], features: WasmFeatures) -> ModuleInfo {
        ModuleInfo {
            bytes: Arc::from(bytes),
            types: Vec::new(),
            gc: Default::default(),
            imports: Vec::new(),
            func_types: Vec::new(),
            resources: None,
            num_imported_funcs: 0,
            num_imported_tables: 0,
            num_imported_memories: 0,
            num_imported_globals: 0,
            num_imported_tags: 0,
            tag_types: Vec::new(),
            rec_groups: Vec::new(),
            tables: Vec::new(),
            memories: Vec::new(),
            globals: Vec::new(),
            exports: Vec::new(),
            start: None,
            elems: Vec::new(),
            datas: Vec::new(),
            bodies: Vec::new(),
            func_names: HashMap::new(),
            name: None,
            origin: None,
            lazy: None,
            private_globals_in_vmctx: false,
            features,
        }
    }

    /// Validate one function body and hand it to `translator`; the
    /// validator's allocations, for the next body.
    fn translate_body(
        &mut self,
        func: FuncToValidate<wasmparser::ValidatorResources>,
        body: &wasmparser::FunctionBody<'_>,
        allocs: wasmparser::FuncValidatorAllocations,
        code_size: usize,
        translator: &mut dyn BodyTranslator,
    ) -> Result<wasmparser::FuncValidatorAllocations, LoadError> {
        // Every function's resources are the same module's: keep the
        // first, share it.
        let FuncToValidate {
            resources,
            index,
            ty,
            features,
        } = func;
        let resources = self
            .resources
            .get_or_insert_with(|| Arc::new(resources))
            .clone();
        let func = FuncToValidate {
            resources,
            index,
            ty,
            features,
        };
        let mut fv = func.into_validator(allocs);
        let ctx = BodyCtx {
            types: &self.types,
            func_types: &self.func_types,
            features,
            code_size,
        };
        translator.body(&ctx, &mut fv, body)?;
        Ok(fv.into_allocations())
    }

    /// Record what one section (or code entry) declares.
    fn read_payload(&mut self, payload: Payload<'_>) -> Result<(), LoadError> {
        let m = self;
        match payload {
            Payload::TypeSection(r) => m.read_types(r)?,
            Payload::ImportSection(r) => {
                for imp in r {
                    m.read_import(imp?);
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    m.func_types.push(t?);
                }
            }
            Payload::TableSection(r) => {
                for t in r {
                    let t = t?;
                    let init = match &t.init {
                        wasmparser::TableInit::RefNull => None,
                        wasmparser::TableInit::Expr(e) => Some(const_expr(&m.gc, e)?),
                    };
                    m.tables.push(TableDef {
                        ty: table_type(&m.gc, &t.ty),
                        init,
                    });
                }
            }
            Payload::MemorySection(r) => {
                for mt in r {
                    m.memories.push(memory_type(&mt?));
                }
            }
            Payload::GlobalSection(r) => {
                for g in r {
                    let g = g?;
                    m.globals.push(GlobalDef {
                        ty: global_type(&m.gc, &g.ty),
                        init: const_expr(&m.gc, &g.init_expr)?,
                    });
                }
            }
            Payload::TagSection(r) => {
                for t in r {
                    m.tag_types.push(t?.func_type_idx);
                }
            }
            Payload::ExportSection(r) => {
                for e in r {
                    m.exports.push(export(e?));
                }
            }
            Payload::StartSection { func, .. } => m.start = Some(func),
            Payload::ElementSection(r) => {
                for e in r {
                    let e = elem_segment(&m.gc, e?)?;
                    m.elems.push(e);
                }
            }
            Payload::DataSection(r) => {
                for d in r {
                    m.datas.push(data_segment(&m.gc, d?)?);
                }
            }
            Payload::CodeSectionEntry(body) => m.read_body_header(&body)?,
            Payload::CustomSection(c) => {
                if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                    // A malformed name section is ignored, as the spec requires.
                    let _ = read_names(names, m);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn read_types(&mut self, r: wasmparser::TypeSectionReader<'_>) -> Result<(), LoadError> {
        for rec in r {
            let rec = rec?;
            self.gc.push_group(&rec);
            let start = self.types.len() as u32;
            let n = rec.types().len() as u32;
            self.rec_groups
                .extend(std::iter::repeat_n(start..start + n, n as usize));
            for sub in rec.types() {
                self.types.push(match &sub.composite_type.inner {
                    wasmparser::CompositeInnerType::Func(f) => FuncType::new(
                        f.params()
                            .iter()
                            .map(|t| self.gc.val(*t))
                            .collect::<Vec<_>>(),
                        f.results()
                            .iter()
                            .map(|t| self.gc.val(*t))
                            .collect::<Vec<_>>(),
                    ),
                    _ => FuncType::default(),
                });
            }
        }
        self.gc.check_subtypes().map_err(|message| LoadError {
            kind: LoadErrorKind::Invalid,
            offset: None,
            message,
        })
    }

    fn read_import(&mut self, imp: wasmparser::Import<'_>) {
        let m = self;
        let desc = match imp.ty {
            wasmparser::TypeRef::Func(t) => {
                m.func_types.push(t);
                m.num_imported_funcs += 1;
                ImportDesc::Func(t)
            }
            wasmparser::TypeRef::Table(t) => {
                m.num_imported_tables += 1;
                ImportDesc::Table(table_type(&m.gc, &t))
            }
            wasmparser::TypeRef::Memory(mt) => {
                m.num_imported_memories += 1;
                ImportDesc::Memory(memory_type(&mt))
            }
            wasmparser::TypeRef::Global(g) => {
                m.num_imported_globals += 1;
                ImportDesc::Global(global_type(&m.gc, &g))
            }
            wasmparser::TypeRef::Tag(t) => {
                m.num_imported_tags += 1;
                m.tag_types.push(t.func_type_idx);
                ImportDesc::Tag(t.func_type_idx)
            }
        };
        m.imports.push(Import {
            module: imp.module.to_string(),
            name: imp.name.to_string(),
            desc,
        });
    }

    /// A code entry's range and locals (its code is the translator's).
    fn read_body_header(&mut self, body: &wasmparser::FunctionBody<'_>) -> Result<(), LoadError> {
        let range = body.range();
        let mut locals = Vec::new();
        let mut lr = body.get_locals_reader()?;
        for _ in 0..lr.get_count() {
            let (n, t) = lr.read()?;
            let t = self.gc.val(t);
            locals.extend(std::iter::repeat_n(t, n as usize));
        }
        let code_start = (lr.original_position() - range.start) as u32;
        self.bodies.push(FuncBody {
            range,
            locals,
            code_start,
        });
        Ok(())
    }
}

fn export(e: wasmparser::Export<'_>) -> Export {
    let kind = match e.kind {
        wasmparser::ExternalKind::Func => ExternKind::Func,
        wasmparser::ExternalKind::Table => ExternKind::Table,
        wasmparser::ExternalKind::Memory => ExternKind::Memory,
        wasmparser::ExternalKind::Global => ExternKind::Global,
        wasmparser::ExternalKind::Tag => ExternKind::Tag,
    };
    Export {
        name: e.name.to_string(),
        kind,
        index: e.index,
    }
}

fn elem_segment(gc: &ModuleTypes, e: wasmparser::Element<'_>) -> Result<ElemSegment, LoadError> {
    let mode = match e.kind {
        wasmparser::ElementKind::Passive => ElemMode::Passive,
        wasmparser::ElementKind::Declared => ElemMode::Declared,
        wasmparser::ElementKind::Active {
            table_index,
            offset_expr,
        } => ElemMode::Active {
            table: table_index.unwrap_or(0),
            offset: const_expr(gc, &offset_expr)?,
        },
    };
    let (ty, items) = match e.items {
        wasmparser::ElementItems::Functions(fs) => {
            let mut items = Vec::new();
            for f in fs {
                items.push(ConstExpr(vec![ConstOp::RefFunc(f?)]));
            }
            (ValType::FuncRef, items)
        }
        wasmparser::ElementItems::Expressions(rt, es) => {
            let mut items = Vec::new();
            for x in es {
                items.push(const_expr(gc, &x?)?);
            }
            (gc.val_of_ref(rt), items)
        }
    };
    Ok(ElemSegment { ty, mode, items })
}

fn data_segment(gc: &ModuleTypes, d: wasmparser::Data<'_>) -> Result<DataSegment, LoadError> {
    let start = d.range.end - d.data.len();
    let mode = match d.kind {
        wasmparser::DataKind::Passive => DataMode::Passive,
        wasmparser::DataKind::Active {
            memory_index,
            offset_expr,
        } => DataMode::Active {
            memory: memory_index,
            offset: const_expr(gc, &offset_expr)?,
        },
    };
    Ok(DataSegment {
        mode,
        range: start..start + d.data.len(),
    })
}

fn read_names(
    names: wasmparser::NameSectionReader<'_>,
    m: &mut ModuleInfo,
) -> wasmparser::Result<()> {
    for n in names {
        match n? {
            wasmparser::Name::Module { name, .. } => m.name = Some(name.to_string()),
            wasmparser::Name::Function(map) => {
                for naming in map {
                    let naming = naming?;
                    m.func_names.insert(naming.index, naming.name.to_string());
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer constants read without the decoder are the decoder's;
    /// anything else (several operators, other types, a trailing byte)
    /// is left to it.
    #[test]
    fn integer_constants_read_directly_are_the_decoders() {
        use wasm_encoder::{ConstExpr as E, GlobalSection, GlobalType, Module as M, ValType as V};
        let mut globals = GlobalSection::new();
        let ty = |t| GlobalType {
            val_type: t,
            mutable: true,
            shared: false,
        };
        let exprs = [
            (V::I32, E::i32_const(0)),
            (V::I32, E::i32_const(-1)),
            (V::I32, E::i32_const(i32::MIN)),
            (V::I32, E::i32_const(i32::MAX)),
            (V::I64, E::i64_const(0)),
            (V::I64, E::i64_const(i64::MIN)),
            (V::I64, E::i64_const(0x1234_5678_9abc)),
            (V::F32, E::f32_const(1.5)),
            (V::I32, E::global_get(0)),
            (V::I32, E::i32_const(5).with_i32_const(3).with_i32_add()),
        ];
        for (t, e) in &exprs {
            globals.global(ty(*t), e);
        }
        let mut m = M::new();
        m.section(&globals);
        let bytes = m.finish();
        let gc = ModuleTypes::default();
        let mut direct = 0;
        for payload in wasmparser::Parser::new(0).parse_all(&bytes) {
            let wasmparser::Payload::GlobalSection(r) = payload.unwrap() else {
                continue;
            };
            for g in r {
                let e = g.unwrap().init_expr;
                let decoded = read_const_expr(&gc, &e).unwrap();
                if let Some(op) = integer_const(&e) {
                    assert_eq!(vec![op], decoded.0);
                    direct += 1;
                }
                assert_eq!(const_expr(&gc, &e).unwrap().0, decoded.0);
            }
        }
        assert_eq!(direct, 7, "the seven single integer constants");
    }
}
