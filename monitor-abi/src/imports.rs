//! Imports the engine provides to monitors (`docs/monitor-abi.md#provided-imports`).
//!
//! The engine binds every entry of [`PROVIDED_IMPORTS`]; the compiler's
//! `--portable` check asserts that a module imports only entries whose
//! [`AbiPart`] is [`AbiPart::A`] (see [`is_portable_import`]).

use crate::valtype::ValType::{self, ExternRef, FuncRef, F32, F64, I32, I64, V128};

/// Module `wizeng` (Part A).
pub const MODULE_WIZENG: &str = "wizeng";
/// Module `whamm:dyninstr` (Part A).
pub const MODULE_DYNINSTR: &str = "whamm:dyninstr";
/// Module `whamm:reflect` (Part A): questions about the application's module.
pub const MODULE_REFLECT: &str = "whamm:reflect";
/// Module `wizeng:frame_accessor` (Part B).
pub const MODULE_FRAME_ACCESSOR: &str = "wizeng:frame_accessor";
/// Module `wizeng:app` (Part B): read-only facts about the application's state.
pub const MODULE_APP: &str = "wizeng:app";
/// Module `wizeng:lib` (Part B): reads of a monitor library's memory.
pub const MODULE_LIB: &str = "wizeng:lib";

/// Exported memory the engine writes `opname`/`fname` strings into
/// (`docs/monitor-abi.md#whamm_buffer`).
pub const EXPORT_WHAMM_BUFFER: &str = "whamm_buffer";
/// Exported i32 global: address in [`EXPORT_WHAMM_BUFFER`] to write at.
pub const EXPORT_WHAMM_BUFFER_START: &str = "whamm_buffer:start";
/// Exported i32 global: maximum number of bytes to write.
pub const EXPORT_WHAMM_BUFFER_MAX: &str = "whamm_buffer:max";

/// Which part of the ABI a provided import belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AbiPart {
    /// The de-facto standard (portable) part.
    A,
    /// This project's additions.
    B,
}

/// A function signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature {
    /// Parameter types.
    pub params: &'static [ValType],
    /// Result types.
    pub results: &'static [ValType],
}

impl std::fmt::Display for Signature {
    /// `(i32, i32) -> i64` style.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |ts: &[ValType]| ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ");
        write!(f, "({})", list(self.params))?;
        if !self.results.is_empty() {
            write!(f, " -> {}", list(self.results))?;
        }
        Ok(())
    }
}

/// A reference in a provided import's signature whose type is one of the
/// importer's own types (Wizard's `new_funcref` and `puta`): [`Signature`]
/// shows its abstract supertype, and the engine provides the function at
/// whichever such type the importer declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImporterTyped {
    /// The result is `(ref null? $f)` for a function type `$f` of the
    /// importer (shown as `funcref`).
    FuncResult,
    /// The first parameter is `(ref null $a)` for an array type `$a` of `i8`
    /// elements (shown as `externref`, the engine's representation of every
    /// non-function reference).
    I8ArrayParam,
}

/// One function the engine provides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProvidedImport {
    /// Import module name.
    pub module: &'static str,
    /// Import field name.
    pub name: &'static str,
    /// Exact Wasm signature.
    pub sig: Signature,
    /// Part A or Part B.
    pub part: AbiPart,
    /// One-line description.
    pub doc: &'static str,
    /// A reference whose type is the importer's (`None`: `sig` is exact).
    pub importer_typed: Option<ImporterTyped>,
}

macro_rules! imp {
    ($m:expr, $n:expr, [$($p:expr),*] -> [$($r:expr),*], $part:ident, $doc:expr) => {
        ProvidedImport {
            module: $m,
            name: $n,
            sig: Signature { params: &[$($p),*], results: &[$($r),*] },
            part: AbiPart::$part,
            doc: $doc,
            importer_typed: None,
        }
    };
    ($m:expr, $n:expr, [$($p:expr),*] -> [$($r:expr),*], $part:ident, $doc:expr, $typed:ident) => {
        ProvidedImport {
            importer_typed: Some(ImporterTyped::$typed),
            ..imp!($m, $n, [$($p),*] -> [$($r),*], $part, $doc)
        }
    };
}

const FA: &str = MODULE_FRAME_ACCESSOR;
const RF: &str = MODULE_REFLECT;

/// Every provided import, grouped by module. Signatures are exact, except
/// where [`ProvidedImport::importer_typed`] says a reference is of the
/// importer's type.
pub static PROVIDED_IMPORTS: &[ProvidedImport] = &[
    imp!(MODULE_WIZENG, "puts", [I32, I32] -> [], A, "write bytes (ptr, len) of the caller's memory 0 to stdout"),
    imp!(MODULE_WIZENG, "puti", [I32] -> [], A, "write a signed decimal"),
    imp!(MODULE_WIZENG, "putc", [I32] -> [], A, "write one byte"),
    imp!(MODULE_WIZENG, "error", [I32, I32] -> [], A, "print the message (ptr, len) and trap"),
    imp!(MODULE_WIZENG, "rdtsc", [] -> [I64], A, "a monotonic cycle/nanosecond counter"),
    imp!(MODULE_WIZENG, "ref_id", [ExternRef] -> [I32], A,
        "an opaque app reference's id (>= 1, the same for the same reference while it lives); 0 for null, -1 for any other externref"),
    imp!(MODULE_WIZENG, "invoke0", [FuncRef] -> [], A,
        "call a function without parameters or results; null or another type traps"),
    imp!(MODULE_WIZENG, "tail_invoke0", [FuncRef] -> [], A, "invoke0 as a tail call"),
    imp!(MODULE_WIZENG, "crash", [] -> [], A, "end the run with an error"),
    imp!(MODULE_WIZENG, "force_gc", [] -> [], A, "ask for a garbage collection"),
    imp!(MODULE_WIZENG, "new_funcref", [I32, I32] -> [FuncRef], A,
        "(ptr, len): a new function of the result's type $f from the body at ptr, validated in the importer; null if invalid",
        FuncResult),
    imp!(MODULE_WIZENG, "puta", [ExternRef, I32, I32] -> [], A,
        "(array, offset, len): write elements of an i8 array to stdout", I8ArrayParam),
    imp!(MODULE_DYNINSTR, "insert_new_probe", [I32, I32, FuncRef] -> [I32], A,
        "attach a function (no params/results) at (fid, pc); new probe id or negative error"),
    imp!(MODULE_DYNINSTR, "remove_probe", [I32] -> [], A, "detach the probe with this id"),
    imp!(RF, "get_module_size", [] -> [I32], A, "bytes of the app's binary"),
    imp!(RF, "get_num_types", [] -> [I32], A, "entries of the app's type section"),
    imp!(RF, "get_num_imports", [] -> [I32], A, "entries of the app's import section"),
    imp!(RF, "get_num_functions", [] -> [I32], A, "functions of the app, imports included"),
    imp!(RF, "get_num_tables", [] -> [I32], A, "tables of the app, imports included"),
    imp!(RF, "get_num_memories", [] -> [I32], A, "memories of the app, imports included"),
    imp!(RF, "get_num_globals", [] -> [I32], A, "globals of the app, imports included"),
    imp!(RF, "get_num_tags", [] -> [I32], A, "tags of the app, imports included"),
    imp!(RF, "get_num_exports", [] -> [I32], A, "entries of the app's export section"),
    imp!(RF, "get_num_elements", [] -> [I32], A, "entries of the app's element section"),
    imp!(RF, "get_num_data", [] -> [I32], A, "entries of the app's data section"),
    imp!(RF, "get_num_custom_sections", [] -> [I32], A, "custom sections of the app"),
    imp!(RF, "get_import_index", [I32, I32] -> [I32], A, "(section, i): import position of entry i of an index space, -1 if defined"),
    imp!(RF, "read_module_path", [I32, I32] -> [I32], A, "(ptr, len): the app's path; full length"),
    imp!(RF, "read_module_name", [I32, I32] -> [I32], A, "(ptr, len): the name section's module name; full length"),
    imp!(RF, "read_module_def", [I32, I32] -> [I32], A, "(ptr, len): the app's binary; full length"),
    imp!(RF, "read_section", [I32, I32, I32, I32] -> [I32], A, "(section, ptr, len, unused): a section's contents; full length"),
    imp!(RF, "read_type_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of type section entry i"),
    imp!(RF, "read_import_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of import i"),
    imp!(RF, "read_function_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): function section entry of function i (empty if imported)"),
    imp!(RF, "read_function_name", [I32, I32, I32] -> [I32], A, "(fid, ptr, len): name-section name of fid"),
    imp!(RF, "read_function_body", [I32, I32, I32] -> [I32], A, "(fid, ptr, len): body bytes of fid (empty if imported)"),
    imp!(RF, "read_table_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of table i (empty if imported)"),
    imp!(RF, "read_memory_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of memory i (empty if imported)"),
    imp!(RF, "read_global_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of global i (empty if imported)"),
    imp!(RF, "read_tag_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of tag i (empty if imported)"),
    imp!(RF, "read_export_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of export i"),
    imp!(RF, "read_element_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of element segment i"),
    imp!(RF, "read_data_def", [I32, I32, I32] -> [I32], A, "(i, ptr, len): bytes of data segment i"),
    imp!(RF, "read_custom_section", [I32, I32, I32] -> [I32], A, "(i, ptr, len): custom section i (name and payload)"),
    imp!(FA, "get_pc", [ExternRef] -> [I32], B, "current pc"),
    imp!(FA, "get_fid", [ExternRef] -> [I32], B, "function index"),
    imp!(FA, "get_depth", [ExternRef] -> [I32], B, "call depth (entry function is 0)"),
    imp!(FA, "get_caller", [ExternRef] -> [ExternRef], B, "the caller's frame, or null"),
    imp!(FA, "get_frame_id", [ExternRef] -> [I64], B, "a stable id of the activation"),
    imp!(FA, "get_num_locals", [ExternRef] -> [I32], B, "number of locals (params first)"),
    imp!(FA, "get_local_i32", [ExternRef, I32] -> [I32], B, "local idx as i32"),
    imp!(FA, "get_local_i64", [ExternRef, I32] -> [I64], B, "local idx as i64"),
    imp!(FA, "get_local_f32", [ExternRef, I32] -> [F32], B, "local idx as f32"),
    imp!(FA, "get_local_f64", [ExternRef, I32] -> [F64], B, "local idx as f64"),
    imp!(FA, "get_local_v128", [ExternRef, I32] -> [V128], B, "local idx as v128"),
    imp!(FA, "get_num_operands", [ExternRef] -> [I32], B, "operand stack height at the probe"),
    imp!(FA, "get_operand_i32", [ExternRef, I32] -> [I32], B, "i-th operand from the top as i32"),
    imp!(FA, "get_operand_i64", [ExternRef, I32] -> [I64], B, "i-th operand from the top as i64"),
    imp!(FA, "get_operand_f32", [ExternRef, I32] -> [F32], B, "i-th operand from the top as f32"),
    imp!(FA, "get_operand_f64", [ExternRef, I32] -> [F64], B, "i-th operand from the top as f64"),
    imp!(FA, "get_operand_v128", [ExternRef, I32] -> [V128], B, "i-th operand from the top as v128"),
    imp!(FA, "set_local_i32", [ExternRef, I32, I32] -> [], B, "set local idx"),
    imp!(FA, "set_local_i64", [ExternRef, I32, I64] -> [], B, "set local idx"),
    imp!(FA, "set_local_f32", [ExternRef, I32, F32] -> [], B, "set local idx"),
    imp!(FA, "set_local_f64", [ExternRef, I32, F64] -> [], B, "set local idx"),
    imp!(FA, "set_local_v128", [ExternRef, I32, V128] -> [], B, "set local idx"),
    imp!(FA, "set_operand_i32", [ExternRef, I32, I32] -> [], B, "set i-th operand from the top"),
    imp!(FA, "set_operand_i64", [ExternRef, I32, I64] -> [], B, "set i-th operand from the top"),
    imp!(FA, "set_operand_f32", [ExternRef, I32, F32] -> [], B, "set i-th operand from the top"),
    imp!(FA, "set_operand_f64", [ExternRef, I32, F64] -> [], B, "set i-th operand from the top"),
    imp!(FA, "set_operand_v128", [ExternRef, I32, V128] -> [], B, "set i-th operand from the top"),
    imp!(MODULE_APP, "table_fid", [I32, I32] -> [I32], B,
        "(table, index) of the app: the index of the function stored there, -1 if null, out of bounds or not an app function"),
    imp!(MODULE_APP, "memory_read", [I32, I32, I32, I32] -> [I32], B,
        "(mem, src, dst, len): copy len bytes of the app's memory mem at src to the caller's memory 0 at dst (its initial contents until the app is instantiated); 0, or -1 if out of bounds"),
    imp!(MODULE_APP, "memory_read64", [I32, I64, I32, I32] -> [I32], B,
        "(mem, src, dst, len): memory_read with an i64 src, for a 64-bit app memory"),
    imp!(MODULE_APP, "data_read", [I32, I32, I32, I32] -> [I32], B,
        "(seg, off, dst, len): copy len bytes of the app's data segment seg from off to the caller's memory 0 at dst; 0, or -1 if out of bounds"),
    imp!(MODULE_APP, "memory_size", [I32] -> [I32], B,
        "(mem): the app's memory mem's size in pages (declared initial size until the app is instantiated); -1 if there is no such memory"),
    imp!(MODULE_APP, "active_data_start", [I32] -> [I32], B,
        "(mem): the lowest offset of the app's active data segments of memory mem (0 if none); -1 if there is no such memory"),
    imp!(MODULE_APP, "active_data_len", [I32] -> [I32], B,
        "(mem): the length of the union of those segments, from the lowest offset to the highest end; -1 if there is no such memory"),
    imp!(MODULE_LIB, "memory_read", [I32, I32, I32, I32, I32] -> [I32], B,
        "(name_ptr, name_len, src, dst, len): copy len bytes from src of the memory the monitor's library `name` exports to the caller's memory 0 at dst; 0, or -1 if there is none or out of bounds"),
    imp!(MODULE_APP, "page_size", [I32] -> [I32], B,
        "(mem): the page size of the app's memory mem in bytes (65536, or 1 with custom-page-sizes); -1 if there is no such memory"),
];

/// Looks up a provided import by module and name.
pub fn find_import(module: &str, name: &str) -> Option<&'static ProvidedImport> {
    PROVIDED_IMPORTS
        .iter()
        .find(|i| i.module == module && i.name == name)
}

/// The provided imports of one module.
pub fn imports_of_module(module: &str) -> impl Iterator<Item = &'static ProvidedImport> + '_ {
    PROVIDED_IMPORTS.iter().filter(move |i| i.module == module)
}

/// Whether `module` is one of the engine-provided modules.
pub fn is_provided_module(module: &str) -> bool {
    matches!(
        module,
        MODULE_WIZENG
            | MODULE_DYNINSTR
            | MODULE_REFLECT
            | MODULE_FRAME_ACCESSOR
            | MODULE_APP
            | MODULE_LIB
    )
}

/// Whether importing `module.name` keeps a monitor portable (Part A only).
/// Imports from modules other than the provided ones (monitor libraries) are
/// not judged here and return `true`.
pub fn is_portable_import(module: &str, name: &str) -> bool {
    if !is_provided_module(module) {
        return true;
    }
    find_import(module, name).is_some_and(|i| i.part == AbiPart::A)
}
