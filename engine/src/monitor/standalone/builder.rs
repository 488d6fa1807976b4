//! What the merge adds beside the source modules: function types, function
//! imports (WASI, kept host imports of monitors) and helper functions.

use super::unsupported;
use crate::core::error::LoadError;
use crate::core::types::{FuncType, ValType};

pub(super) use wasm_encoder::ValType::{I32 as W32, I64 as W64};

/// Function types of the helpers and added imports, after every source module's types.
pub(super) struct TypeList {
    base: u32,
    pub(super) list: Vec<(Vec<wasm_encoder::ValType>, Vec<wasm_encoder::ValType>)>,
}

impl TypeList {
    pub(super) fn get(
        &mut self,
        params: &[wasm_encoder::ValType],
        results: &[wasm_encoder::ValType],
    ) -> u32 {
        let key = (params.to_vec(), results.to_vec());
        let i = match self.list.iter().position(|t| *t == key) {
            Some(i) => i,
            None => {
                self.list.push(key);
                self.list.len() - 1
            }
        };
        self.base + i as u32
    }
    pub(super) fn of(&mut self, ty: &FuncType) -> Result<u32, LoadError> {
        let conv = |v: &[ValType]| v.iter().map(|t| enc_val(*t)).collect::<Result<Vec<_>, _>>();
        Ok(self.get(&conv(&ty.params)?, &conv(&ty.results)?))
    }
}

fn enc_val(t: ValType) -> Result<wasm_encoder::ValType, LoadError> {
    use wasm_encoder::ValType as E;
    Ok(match t {
        ValType::I32 => E::I32,
        ValType::I64 => E::I64,
        ValType::F32 => E::F32,
        ValType::F64 => E::F64,
        ValType::FuncRef => E::FUNCREF,
        ValType::ExternRef => E::EXTERNREF,
        ValType::ExnRef => E::EXNREF,
        ValType::V128 => return Err(unsupported("v128 values")),
    })
}

/// The merged module, being built.
pub(super) struct Builder {
    pub(super) types: TypeList,
    /// Added function imports (module, name, type), after the app's.
    pub(super) added_imports: Vec<(String, String, u32)>,
    /// Helper functions (name, type, body), after every source module's functions.
    pub(super) helpers: Vec<(String, u32, wasm_encoder::Function)>,
    pub(super) helpers_base: u32,
}

impl Builder {
    /// A builder whose types come after the `num_types` of the source modules.
    pub(super) fn new(num_types: u32) -> Builder {
        Builder {
            types: TypeList {
                base: num_types,
                list: Vec::new(),
            },
            added_imports: Vec::new(),
            helpers: Vec::new(),
            helpers_base: 0,
        }
    }

    pub(super) fn helper(&mut self, name: &str, ty: u32, f: wasm_encoder::Function) -> u32 {
        self.helpers
            .push((format!("wizeng:standalone:{name}"), ty, f));
        self.helpers_base + self.helpers.len() as u32 - 1
    }
}
