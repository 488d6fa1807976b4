//! The context of one generated function: its locals, code, scopes, the
//! labels of enclosing blocks, and how bound, per-site and `@static` values
//! are read in it.

use super::bound::Bound;
use super::repr::Var;
use crate::types::Type;
use std::collections::HashMap;
use wasm_encoder::{Function, Instruction as I, ValType as VT};

#[derive(PartialEq, Clone, Copy)]
pub(super) enum Label {
    Other,
    Break,
    Continue,
}

pub(super) struct FnCx {
    pub(super) locals: Vec<VT>,
    pub(super) nparams: u32,
    pub(super) code: Vec<I<'static>>,
    pub(super) scopes: Vec<HashMap<String, Var>>,
    pub(super) labels: Vec<Label>,
    pub(super) ret: Option<Type>,
    pub(super) bound: HashMap<String, Bound>,
    /// Per-site variables visible in this function.
    pub(super) site_vars: HashMap<String, Var>,
    /// `@static` calls evaluated at match time: span -> their value's place.
    pub(super) statics: HashMap<(usize, usize), Var>,
    /// Flags not stored: their one read evaluates a copy of the expression
    /// (`forward.rs`; boxed, so its address, which keys its types, stays),
    /// innermost last.
    pub(super) forward: Vec<(String, Box<crate::ast::Expr>)>,
}

impl FnCx {
    pub(super) fn new(params: &[VT], ret: Option<Type>) -> FnCx {
        FnCx {
            locals: params.to_vec(),
            nparams: params.len() as u32,
            code: vec![],
            scopes: vec![HashMap::new()],
            labels: vec![],
            ret,
            bound: HashMap::new(),
            site_vars: HashMap::new(),
            statics: HashMap::new(),
            forward: Vec::new(),
        }
    }
    pub(super) fn local(&mut self, t: VT) -> u32 {
        self.locals.push(t);
        self.locals.len() as u32 - 1
    }
    pub(super) fn e(&mut self, i: I<'static>) {
        self.code.push(i);
    }
    /// Pop values of types `ts` (top of stack last) into fresh locals.
    pub(super) fn spill(&mut self, ts: &[VT]) -> Vec<u32> {
        let ls: Vec<u32> = ts.iter().map(|t| self.local(*t)).collect();
        for l in ls.iter().rev() {
            self.e(I::LocalSet(*l));
        }
        ls
    }
    pub(super) fn finish(mut self) -> Function {
        self.e(I::End);
        let locals: Vec<(u32, VT)> = self.locals[self.nparams as usize..]
            .iter()
            .map(|t| (1, *t))
            .collect();
        let mut f = Function::new(locals);
        for i in &self.code {
            f.instruction(i);
        }
        f
    }
    pub(super) fn lookup(&self, n: &str) -> Option<Var> {
        for s in self.scopes.iter().rev() {
            if let Some(v) = s.get(n) {
                return Some(v.clone());
            }
        }
        self.site_vars.get(n).cloned()
    }
    pub(super) fn depth_of(&self, l: Label) -> Option<u32> {
        self.labels
            .iter()
            .rev()
            .position(|x| *x == l)
            .map(|p| p as u32)
    }
}
