//! Monitor libraries (`use NAME;` + `whamm build --lib NAME=path.wasm`): the
//! function exports of a library module, as language types, so calls
//! `NAME.f(...)` are type-checked against them and imported with the
//! library's exact signatures. At run time the library is linked with
//! `wizeng --monitors=mon.wasm+path.wasm` (docs/monitor-abi.md#libraries).

use std::collections::HashMap;

use crate::types::Type;

/// The signature of one exported library function, in language types
/// (`i32`, `i64`, `f32`, `f64`, `v128`: the Wasm types).
#[derive(Clone, Debug, PartialEq)]
pub struct LibFn {
    pub params: Vec<Type>,
    pub results: Vec<Type>,
}

impl LibFn {
    /// The type of a call: nothing, the single result, or a tuple.
    pub fn result_type(&self) -> Type {
        match self.results.as_slice() {
            [] => Type::Unit,
            [t] => t.clone(),
            ts => Type::Tuple(ts.to_vec()),
        }
    }
}

/// Library name -> exported function name -> signature.
pub type Libs = HashMap<String, HashMap<String, LibFn>>;

/// whamm's core library, which `use whamm_core;` names: unless `--lib
/// whamm_core=...` gives another module, the compiler provides these
/// functions inside the monitor (docs/probe-language.md#libraries).
pub const CORE: &str = "whamm_core";

/// `use dyninstr;` without `--lib dyninstr=...` names the engine's dynamic
/// probe module (docs/monitor-abi.md#dynamic-probes), as whamm's
/// `dyninstr(whamm:dyninstr)` library mapping does.
pub const DYNINSTR: &str = "dyninstr";
pub const DYNINSTR_MODULE: &str = "whamm:dyninstr";

/// The signatures of [`DYNINSTR`]'s functions.
pub fn dyninstr_library() -> HashMap<String, LibFn> {
    let mut m = HashMap::new();
    m.insert(
        "remove_probe".to_string(),
        LibFn {
            params: vec![Type::I32],
            results: vec![],
        },
    );
    m
}

/// The signatures of the built-in [`CORE`] functions.
pub fn core_library() -> HashMap<String, LibFn> {
    let f = |params: &[Type], results: &[Type]| LibFn {
        params: params.to_vec(),
        results: results.to_vec(),
    };
    [
        ("mem_alloc", f(&[Type::I32], &[Type::I32])),
        ("mem_free", f(&[Type::I32], &[])),
        ("puts", f(&[Type::I32, Type::I32], &[])),
        ("putc", f(&[Type::I32], &[])),
        ("print_map_as_csv", f(&[Type::I32], &[])),
    ]
    .into_iter()
    .map(|(n, f)| (n.to_string(), f))
    .collect()
}

/// Why a library could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LibError {
    #[error("not a valid Wasm module: {0}")]
    Invalid(String),
}

fn lang(t: wasmparser::ValType) -> Option<Type> {
    Some(match t {
        wasmparser::ValType::I32 => Type::I32,
        wasmparser::ValType::I64 => Type::I64,
        wasmparser::ValType::F32 => Type::F32,
        wasmparser::ValType::F64 => Type::F64,
        wasmparser::ValType::V128 => Type::V128,
        _ => return None,
    })
}

/// The callable function exports of a library module (binary or text).
/// Exports whose signature uses a type the language has no value of
/// (references) are left out: scripts cannot call them.
pub fn read_library(bytes: &[u8]) -> Result<HashMap<String, LibFn>, LibError> {
    let bytes = wat::parse_bytes(bytes).map_err(|e| LibError::Invalid(e.to_string()))?;
    wasmparser::Validator::new()
        .validate_all(&bytes)
        .map_err(|e| LibError::Invalid(e.to_string()))?;
    let mut types = vec![];
    let mut funcs = vec![];
    let mut out = HashMap::new();
    let invalid = |e: wasmparser::BinaryReaderError| LibError::Invalid(e.to_string());
    for payload in wasmparser::Parser::new(0).parse_all(&bytes) {
        match payload.map_err(invalid)? {
            wasmparser::Payload::TypeSection(r) => {
                for t in r.into_iter_err_on_gc_types() {
                    types.push(t.map_err(invalid)?);
                }
            }
            wasmparser::Payload::ImportSection(r) => {
                for i in r {
                    if let wasmparser::TypeRef::Func(t) = i.map_err(invalid)?.ty {
                        funcs.push(t);
                    }
                }
            }
            wasmparser::Payload::FunctionSection(r) => {
                for t in r {
                    funcs.push(t.map_err(invalid)?);
                }
            }
            wasmparser::Payload::ExportSection(r) => {
                for e in r {
                    let e = e.map_err(invalid)?;
                    if e.kind != wasmparser::ExternalKind::Func {
                        continue;
                    }
                    let Some(ft) = funcs
                        .get(e.index as usize)
                        .and_then(|t| types.get(*t as usize))
                    else {
                        continue;
                    };
                    let params: Option<Vec<Type>> = ft.params().iter().map(|t| lang(*t)).collect();
                    let results: Option<Vec<Type>> =
                        ft.results().iter().map(|t| lang(*t)).collect();
                    if let (Some(params), Some(results)) = (params, results) {
                        out.insert(e.name.to_string(), LibFn { params, results });
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}
