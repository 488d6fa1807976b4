//! The layout of the monitor module: library imports, globals, user
//! functions, the start function (global initializers and top-level
//! statements), the `wasm:begin`/`wasm:exit` hooks, and the memory and
//! `whamm_buffer` exports.

use super::fn_cx::FnCx;
use super::report::ReportVar;
use super::repr::*;
use super::walk::visit_exprs;
use super::Cg;
use crate::ast::*;
use crate::check::CheckResult;
use crate::diag::Diag;
use crate::span::Span;
use crate::types::Type;
use crate::wasm;
use monitor_abi::catalogue::AbiHook;
use std::collections::{BTreeSet, HashMap};
use wasm_encoder::{BlockType, ExportKind, Instruction as I, ValType as VT};

/// An import: module, name, parameter and result types.
pub(super) type Import = (String, String, Vec<VT>, Vec<VT>);

/// The imports of library functions: every `lib.f(args)` of the script,
/// typed by the library's signature (`--lib`) or else by its arguments.
/// Reports a function called with different argument types.
pub(super) fn library_imports(
    script: &Script,
    checked: &CheckResult,
    opts: &super::Options,
    libraries: &BTreeSet<String>,
    diags: &mut Vec<Diag>,
) -> Vec<Import> {
    let mut lib_imports: Vec<Import> = vec![];
    let mut seen: HashMap<(String, String), Vec<VT>> = HashMap::new();
    visit_exprs(script, &mut |e: &Expr| {
        let ExprKind::Method { recv, name, args } = &e.kind else {
            return;
        };
        let ExprKind::Var(lib) = &recv.kind else {
            return;
        };
        if !libraries.contains(lib) || Cg::builtin_core(opts, lib) {
            return;
        }
        let sig = opts.libs.get(lib).and_then(|l| l.get(&name.name));
        let (ps, rs): (Vec<VT>, Vec<VT>) = match sig {
            Some(f) => (
                f.params.iter().map(vt).collect(),
                f.results.iter().map(vt).collect(),
            ),
            None => (
                args.iter().flat_map(|a| vts(&checked.type_of(a))).collect(),
                vec![],
            ),
        };
        let key = (lib.clone(), name.name.clone());
        match seen.get(&key) {
            Some(prev) if *prev != ps => diags.push(Diag::error(
                format!(
                    "`{lib}.{}` is called with different argument types",
                    name.name
                ),
                e.span,
            )),
            Some(_) => {}
            None => {
                seen.insert(key, ps.clone());
                lib_imports.push((lib.clone(), name.name.clone(), ps, rs));
            }
        }
    });
    lib_imports
}

impl Cg<'_> {
    pub(super) fn run(&mut self, script: &Script) {
        self.declare_globals(script);
        self.declare_functions(script);
        let Some((begin, end, report)) = self.emit_probes(script) else {
            return;
        };
        self.start_function(script);
        self.export_hooks(&begin, &end, &report);
        self.export_memory();
    }

    /// One Wasm global per leaf of each global variable.
    fn declare_globals(&mut self, script: &Script) {
        let mut gid = 0u32;
        for item in &script.items {
            if let Item::Stmt(Stmt {
                kind:
                    StmtKind::Decl {
                        decorators,
                        name,
                        ty,
                        ..
                    },
                ..
            }) = item
            {
                let loc = if let Type::Tuple(_) = ty.ty {
                    Loc::Globals(
                        vts(&ty.ty)
                            .iter()
                            .map(|t| self.m.global(*t, zero_const(*t)))
                            .collect(),
                    )
                } else {
                    Loc::Globals(vec![self.m.global(vt(&ty.ty), zero_const(vt(&ty.ty)))])
                };
                if decorators.iter().any(|(d, _)| *d == Decorator::Report) {
                    self.reports.push(ReportVar {
                        name: name.name.clone(),
                        ty: ty.ty.clone(),
                        global: Some((gid, loc.clone())),
                        site: None,
                    });
                }
                self.globals.insert(
                    name.name.clone(),
                    Var {
                        ty: ty.ty.clone(),
                        loc,
                    },
                );
                self.global_order.push(name.name.clone());
                gid += 1;
            }
        }
    }

    /// Declare every user function, then emit their bodies.
    fn declare_functions(&mut self, script: &Script) {
        for item in &script.items {
            if let Item::Fn(f) = item {
                let ps: Vec<Type> = f.params.iter().map(|p| p.1.ty.clone()).collect();
                let ret = f.ret.as_ref().map(|t| t.ty.clone()).unwrap_or(Type::Unit);
                let pv: Vec<VT> = ps.iter().flat_map(vts).collect();
                let idx = self.m.declare(&pv, &vts(&ret));
                self.fns.insert(f.name.name.clone(), idx);
                self.fn_sigs.insert(f.name.name.clone(), (ps, ret));
            }
        }
        for item in &script.items {
            if let Item::Fn(f) = item {
                self.function(f);
            }
        }
    }

    fn function(&mut self, f: &FnDef) {
        let idx = self.fns[&f.name.name];
        let (ps, ret) = self.fn_sigs[&f.name.name].clone();
        let pv: Vec<VT> = ps.iter().flat_map(vts).collect();
        let mut cx = FnCx::new(&pv, Some(ret.clone()));
        let mut next = 0u32;
        for ((n, _), t) in f.params.iter().zip(&ps) {
            let k = nleaves(t);
            cx.scopes[0].insert(
                n.name.clone(),
                Var {
                    ty: t.clone(),
                    loc: Loc::Locals((next..next + k).collect()),
                },
            );
            next += k;
        }
        self.block(&mut cx, &f.body);
        if ret != Type::Unit {
            // The checker guarantees a return on every path.
            cx.e(I::Unreachable);
        }
        self.m.define(idx, cx.finish());
    }

    /// Emit every probe: instruction probes become exports; the functions
    /// of `wasm:begin`, `wasm:end` and `wasm:report` probes are returned,
    /// for the hooks. `None` after an internal error.
    #[allow(clippy::type_complexity)]
    fn emit_probes(&mut self, script: &Script) -> Option<(Vec<u32>, Vec<u32>, Vec<u32>)> {
        let mut begin = vec![];
        let mut end = vec![];
        let mut report = vec![];
        let probes: Vec<&Probe> = script
            .items
            .iter()
            .filter_map(|i| {
                if let Item::Probe(p) = i {
                    Some(p)
                } else {
                    None
                }
            })
            .collect();
        if probes.len() != self.checked.probes.len() {
            self.err(Diag::error(
                "internal compiler error: probe count mismatch",
                Span::default(),
            ));
            return None;
        }
        for (pi, p) in probes.iter().enumerate() {
            let info = &self.checked.probes[pi];
            let hook = info
                .matches
                .first()
                .and_then(|m| monitor_abi::catalogue().get(m.event.key))
                .and_then(|s| s.abi_hook(None));
            match (
                hook,
                info.matches.first().map(|m| m.event.parts[1].as_str()),
            ) {
                (Some(AbiHook::Begin), _) => begin.push(self.simple_probe(p)),
                (Some(AbiHook::Exit), Some("report")) => report.push(self.simple_probe(p)),
                (Some(AbiHook::Exit), _) => end.push(self.simple_probe(p)),
                _ => self.probe(pi, p),
            }
        }
        Some((begin, end, report))
    }

    /// A probe without an instruction site (`wasm:begin`, `wasm:end`, ...):
    /// a function of no parameters.
    fn simple_probe(&mut self, p: &Probe) -> u32 {
        let f = self.m.declare(&[], &[]);
        let mut cx = FnCx::new(&[], None);
        if let Some(pred) = &p.pred {
            self.expr_to(&mut cx, pred, &Type::Bool);
            cx.e(I::I32Eqz);
            cx.e(I::If(BlockType::Empty));
            cx.e(I::Return);
            cx.e(I::End);
        }
        self.block(&mut cx, &p.body);
        self.m.define(f, cx.finish());
        f
    }

    /// The start function: global maps, then top-level statements; none if
    /// there is nothing to run (an engine calls it when it instantiates the
    /// monitor).
    fn start_function(&mut self, script: &Script) {
        let mut cx = FnCx::new(&[], None);
        for name in self.global_order.clone() {
            let v = self.globals[&name].clone();
            self.init_maps(&mut cx, &v.ty, &v.loc);
        }
        for item in &script.items {
            if let Item::Stmt(s) = item {
                if let StmtKind::Decl { name, init, .. } = &s.kind {
                    if let Some(e) = init {
                        let v = self.globals[&name.name].clone();
                        self.expr_to(&mut cx, e, &v.ty);
                        self.store_from_stack(&mut cx, &v.ty, &v.loc);
                    }
                } else {
                    self.stmt(&mut cx, s);
                }
            }
        }
        if cx.code.is_empty() {
            return;
        }
        let start = self.m.declare(&[], &[]);
        self.m.define(start, cx.finish());
        self.m.start = Some(start);
    }

    /// `wasm:begin` calls the begin probes; `wasm:exit` the end probes, then
    /// the report probes or else the default report.
    fn export_hooks(&mut self, begin: &[u32], end: &[u32], report: &[u32]) {
        if !begin.is_empty() {
            let f = self.dispatcher(begin);
            self.m.export("wasm:begin", ExportKind::Func, f);
        }
        let has_report =
            !self.reports.is_empty() || self.sites.iter().any(|s| !s.report.is_empty());
        if !end.is_empty() || !report.is_empty() || has_report {
            let f = self.m.declare(&[], &[]);
            let mut cx = FnCx::new(&[], None);
            // Nothing else runs until the hook returns: its output (the
            // report) is buffered and written in a few large pieces.
            cx.e(I::Call(self.m.rt("buffer_on")));
            for g in end {
                cx.e(I::Call(*g));
            }
            if report.is_empty() {
                if has_report {
                    self.default_report(&mut cx);
                }
            } else {
                for g in report {
                    cx.e(I::Call(*g));
                }
            }
            cx.e(I::Call(self.m.rt("buffer_off")));
            self.m.define(f, cx.finish());
            self.m.export("wasm:exit", ExportKind::Func, f);
        }
        // The engine may read the report instead of calling `wasm:exit`
        // only if that prints the default report and does nothing else.
        let only_default = end.is_empty() && report.is_empty() && has_report;
        if self.opts.report_layout && only_default {
            if let Some(l) = self.report_layout() {
                let name = monitor_abi::report::SECTION.to_string();
                self.m.custom.push((name, l.encode()));
            }
        }
    }

    fn dispatcher(&mut self, fs: &[u32]) -> u32 {
        let f = self.m.declare(&[], &[]);
        let mut cx = FnCx::new(&[], None);
        for g in fs {
            cx.e(I::Call(*g));
        }
        self.m.define(f, cx.finish());
        f
    }

    /// The memory (also as `whamm_buffer`) and the buffer's bounds.
    fn export_memory(&mut self) {
        self.m.export("memory", ExportKind::Memory, 0);
        self.m.export(
            monitor_abi::imports::EXPORT_WHAMM_BUFFER,
            ExportKind::Memory,
            0,
        );
        for (value, name) in [
            (
                wasm::BUF_START,
                monitor_abi::imports::EXPORT_WHAMM_BUFFER_START,
            ),
            (wasm::BUF_MAX, monitor_abi::imports::EXPORT_WHAMM_BUFFER_MAX),
        ] {
            let s = self
                .m
                .global(VT::I32, wasm_encoder::ConstExpr::i32_const(value as i32));
            self.m.globals[s as usize].1 = false;
            self.m.export(name, ExportKind::Global, s);
        }
    }
}
