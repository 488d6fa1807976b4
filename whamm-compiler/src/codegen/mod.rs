//! The middle and back end: checked AST -> one monitor module.
//!
//! See docs/whamm-backend.md for the module layout, the export and parameter
//! conventions, and the value representation. In short:
//!
//! * every scalar is one Wasm value (`u8..i32`, `bool`, `str`, maps: i32;
//!   `u64`/`i64`: i64; floats and `v128` as such), tuples are flattened
//!   into several values (multi-value), strings are pointers to
//!   `[len][bytes]`, maps are pointers to the runtime hash table of `rt.wat`;
//! * in memory (map keys/values, per-site records) each scalar leaf takes 8
//!   bytes, a `v128` 16;
//! * each matched (event, mode) of a probe is one export; matches whose code
//!   would be identical share one function.
//!
//! The parts, in pipeline order:
//!
//! * `layout`: the module's imports, globals, user functions, start
//!   function, `wasm:begin`/`wasm:exit` hooks and memory exports;
//! * `plan`: per probe, the predicate split, the bound variables each
//!   part reads and the site-record layout; per match, how bound variables
//!   are read; grouping of matches with identical code;
//! * `probe`: a probe's predicate, body and allocator functions and its
//!   exports; `star`: the one `wasm:opcode:*` export of a probe whose code
//!   is the same for every opcode;
//! * `bound`: bound variables: ABI parameters, derived values, constants;
//! * `stmt`, `expr`, `places`, `arith`, `fold`: lowering of
//!   statements, expressions, places, operators and constant folding;
//! * `print`, `report`: printing and the default CSV report;
//! * `repr`, `fn_cx`, `walk`: the value representation, the
//!   per-function context, and walks over the AST.

mod arith;
mod bound;
mod expr;
mod fn_cx;
mod fold;
mod forward;
mod layout;
mod memory;
mod places;
mod plan;
mod print;
mod probe;
mod report;
mod repr;
mod star;
mod stmt;
mod walk;

pub use fold::Const;
pub use repr::type_name;

use crate::ast::*;
use crate::check::CheckResult;
use crate::diag::Diag;
use crate::span::Span;
use crate::types::Type;
use crate::wasm::{self, ModB};
use report::{ProbeSites, ReportVar};
use repr::Var;
use std::collections::{BTreeSet, HashMap};
use wasm_encoder::ValType as VT;

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Restrict the output to monitor ABI Part A (docs/monitor-abi.md#part-a).
    pub portable: bool,
    /// Signatures of the monitor libraries given with `--lib`.
    pub libs: crate::libs::Libs,
    /// Describe where the per-site `report` variables are (the custom
    /// section `monitor_abi::report::SECTION`) when `wasm:exit` only prints
    /// the default report of them, so that an engine can read them from
    /// memory instead (docs/monitor-abi.md#report-layout). Off by default:
    /// the engine's built-in monitors are built with it.
    pub report_layout: bool,
    /// One export (and allocator) per opcode even where a single
    /// `wasm:opcode:*` export would do (`star.rs`): the form of earlier
    /// versions, for comparisons.
    pub per_opcode: bool,
}

const SCRATCH_SIZE: u32 = 4096;

/// The state of one compilation.
struct Cg<'a> {
    m: ModB,
    checked: &'a CheckResult,
    diags: Vec<Diag>,
    globals: HashMap<String, Var>,
    global_order: Vec<String>,
    export_names: std::collections::HashSet<String>,
    fns: HashMap<String, u32>,
    fn_sigs: HashMap<String, (Vec<Type>, Type)>,
    libs: HashMap<(String, String), u32>,
    libraries: BTreeSet<String>,
    print_fns: HashMap<(Type, bool), u32>,
    cmp_fns: HashMap<Type, u32>,
    scratch: u32,
    zero: u32,
    reports: Vec<ReportVar>,
    sites: Vec<ProbeSites>,
    counter: u32,
    /// The allocators' cache of the last site function's name: globals
    /// (fid, name string), created by the first allocator that needs them.
    fname_cache: Option<(u32, u32)>,
    /// Allocator code (parameter types, encoded body) -> its function.
    alloc_cores: HashMap<(String, Vec<u8>), u32>,
    /// The checked types of the copies of forwarded flags (`forward.rs`),
    /// by address as the checker's are; present while the copy lives.
    copy_types: HashMap<usize, Type>,
    opts: Options,
    /// Function index of the `wizeng:app.table_fid` import, if imported.
    app_table_fid: Option<u32>,
    /// Function index of the `wizeng.rdtsc` import (the builtin `rdtsc()`).
    rdtsc: Option<u32>,
    /// `wizeng:app.memory_read`, `data_read`, `memory_size`, `page_size`,
    /// `active_data_start` and `active_data_len`, for `dup_at`, `memcpy`
    /// from the app, `mem_size`, `page_size` and the `active_data_*`
    /// functions.
    app_memory: Option<[u32; 6]>,
    /// `wizeng:lib.memory_read`, for `read_str(memid(LIB), ...)`.
    lib_memory_read: Option<u32>,
    /// The event catalogue of the target (site-dependent variable types).
    cat: crate::catalog::AbiCatalog,
    /// Upstream whamm's probe numbers, for the report's `probe_id`.
    numbering: crate::numbering::Numbering,
}

/// Compile a checked script to a monitor module (validated), or return
/// every diagnostic.
pub fn compile(
    script: &Script,
    checked: &CheckResult,
    opts: &Options,
) -> Result<Vec<u8>, Vec<Diag>> {
    let libraries: BTreeSet<String> = checked.libraries.iter().cloned().collect();
    let mut diags = vec![];
    let mut lib_imports = layout::library_imports(script, checked, opts, &libraries, &mut diags);
    let extra = extra_imports(checked, opts, &mut lib_imports);
    // `use dyninstr;` without `--lib`: the engine's `whamm:dyninstr`
    let module_imports: Vec<layout::Import> = lib_imports
        .iter()
        .map(|(l, n, p, r)| {
            let module = if l == crate::libs::DYNINSTR && !opts.libs.contains_key(l) {
                crate::libs::DYNINSTR_MODULE.to_string()
            } else {
                l.clone()
            };
            (module, n.clone(), p.clone(), r.clone())
        })
        .collect();
    let m = ModB::new(&module_imports);
    let mut libs = HashMap::new();
    for (i, (l, n, _, _)) in lib_imports.iter().enumerate() {
        libs.insert((l.clone(), n.clone()), 4 + i as u32);
    }
    let mut cg = Cg {
        m,
        checked,
        diags,
        globals: HashMap::new(),
        global_order: vec![],
        export_names: Default::default(),
        fns: HashMap::new(),
        fn_sigs: HashMap::new(),
        libs,
        libraries,
        print_fns: HashMap::new(),
        cmp_fns: HashMap::new(),
        scratch: 0,
        zero: 0,
        reports: vec![],
        sites: vec![],
        counter: 0,
        fname_cache: None,
        alloc_cores: HashMap::new(),
        copy_types: HashMap::new(),
        opts: opts.clone(),
        app_table_fid: extra.app_table_fid,
        rdtsc: extra.rdtsc,
        app_memory: extra.app_memory,
        lib_memory_read: extra.lib_memory_read,
        cat: if opts.portable {
            crate::catalog::AbiCatalog::portable()
        } else {
            crate::catalog::AbiCatalog::engine()
        },
        numbering: crate::numbering::Numbering::new(&checked.probes),
    };
    cg.scratch = cg.m.static_alloc(SCRATCH_SIZE);
    cg.zero = cg.m.static_alloc(SCRATCH_SIZE);
    cg.run(script);
    if !cg.diags.is_empty() {
        return Err(cg.diags);
    }
    let bytes = cg.m.finish(0);
    check_output(&bytes, opts.portable)?;
    Ok(bytes)
}

/// Functions a script's features import beyond its libraries, where their
/// indices go.
struct ExtraImports {
    app_table_fid: Option<u32>,
    app_memory: Option<[u32; 6]>,
    lib_memory_read: Option<u32>,
    rdtsc: Option<u32>,
}

/// Append to `lib_imports` the engine's functions the script's features
/// need (Part B, unless portable; the clock, Part A), and say where each is.
fn extra_imports(
    checked: &CheckResult,
    opts: &Options,
    lib_imports: &mut Vec<layout::Import>,
) -> ExtraImports {
    // `resolved_fid` reads the app's table through `wizeng:app` (Part B).
    let uses_resolved = checked
        .probes
        .iter()
        .any(|p| p.used_bound.contains_key("resolved_fid"));
    let mut app_table_fid = None;
    if uses_resolved && !opts.portable {
        app_table_fid = Some(4 + lib_imports.len() as u32);
        lib_imports.push((
            monitor_abi::imports::MODULE_APP.into(),
            "table_fid".into(),
            vec![VT::I32, VT::I32],
            vec![VT::I32],
        ));
    }
    // `dup_at`, `memcpy` from the app, `mem_size`, `page_size` and the
    // `active_data_*` functions read the app's memories and data segments
    // (Part B).
    let mut app_memory = None;
    if checked.uses_app_memory && !opts.portable {
        let n = 4 + lib_imports.len() as u32;
        app_memory = Some([n, n + 1, n + 2, n + 3, n + 4, n + 5]);
        for (name, params) in [
            ("memory_read", 4),
            ("data_read", 4),
            ("memory_size", 1),
            ("page_size", 1),
            ("active_data_start", 1),
            ("active_data_len", 1),
        ] {
            lib_imports.push((
                monitor_abi::imports::MODULE_APP.into(),
                name.into(),
                vec![VT::I32; params],
                vec![VT::I32],
            ));
        }
    }
    // `read_str(memid(LIB), ...)` reads a library's memory (Part B).
    let mut lib_memory_read = None;
    if checked.uses_lib_memory && !opts.portable {
        lib_memory_read = Some(4 + lib_imports.len() as u32);
        lib_imports.push((
            monitor_abi::imports::MODULE_LIB.into(),
            "memory_read".into(),
            vec![VT::I32; 5],
            vec![VT::I32],
        ));
    }
    // The builtin clock `rdtsc()` is `wizeng.rdtsc` (Part A).
    let mut rdtsc = None;
    if checked.uses_rdtsc {
        rdtsc = Some(4 + lib_imports.len() as u32);
        lib_imports.push(("wizeng".into(), "rdtsc".into(), vec![], vec![VT::I64]));
    }
    ExtraImports {
        app_table_fid,
        app_memory,
        lib_memory_read,
        rdtsc,
    }
}

/// The emitted module must validate, and a portable one must import
/// nothing outside monitor ABI Part A (docs/monitor-abi.md#part-a).
fn check_output(bytes: &[u8], portable: bool) -> Result<(), Vec<Diag>> {
    let ice = |msg: String| vec![Diag::error(msg, Span::default())];
    if let Err(e) = wasm::validate(bytes) {
        return Err(ice(format!(
            "internal compiler error: the emitted module does not validate: {e}"
        )));
    }
    if !portable {
        return Ok(());
    }
    for imp in wasmparser::Parser::new(0).parse_all(bytes) {
        if let Ok(wasmparser::Payload::ImportSection(r)) = imp {
            for i in r.into_iter().flatten() {
                if !monitor_abi::imports::is_portable_import(i.module, i.name) {
                    return Err(ice(format!(
                        "internal compiler error: portable module imports {}.{}",
                        i.module, i.name
                    )));
                }
            }
        }
    }
    Ok(())
}

impl Cg<'_> {
    fn err(&mut self, d: Diag) {
        self.diags.push(d);
    }

    fn ty(&self, e: &Expr) -> Type {
        match self.copy_types.get(&(e as *const Expr as usize)) {
            Some(t) => t.clone(),
            None => self.checked.type_of(e),
        }
    }
}
