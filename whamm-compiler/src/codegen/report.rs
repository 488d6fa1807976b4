//! The report: `report` variables (global and per-site) and the default
//! `wasm:exit` report, a CSV flush of every one of them.

use super::fn_cx::FnCx;
use super::repr::*;
use super::Cg;
use crate::types::Type;
use wasm_encoder::{BlockType, Instruction as I, ValType as VT};

/// A global `report` variable.
#[allow(dead_code)]
pub(super) struct ReportVar {
    pub(super) name: String,
    pub(super) ty: Type,
    /// global: (id, loc); per-site: probe index + record offset
    pub(super) global: Option<(u32, Loc)>,
    pub(super) site: Option<(usize, u32)>,
}

/// The site records of one probe: a linked list from `head` to `tail`
/// (globals), and the `report` variables in each record (name, type,
/// offset).
#[allow(dead_code)]
pub(super) struct ProbeSites {
    pub(super) head: u32,
    pub(super) tail: u32,
    pub(super) report: Vec<(String, Type, u32)>,
}

// The record header the allocators write (`probe.rs`) is the one the
// layout section describes.
const _: () = {
    use monitor_abi::report as abi;
    assert!(abi::RECORD_NEXT == 0 && abi::RECORD_FID == 4 && abi::RECORD_PC == 8);
    assert!(abi::RECORD_FNAME == super::bound::REC_FNAME && abi::RECORD_PROBE_ID == 16);
};

const CSV_HEADER: &str = "\n================================= REPORT CSV FLUSH ====================================\nid, id_type, name, whamm_type, wasm_type, script_id, fname, fid, pc, probe_id, value(s)\n";

impl Cg<'_> {
    /// The layout section of the per-site `report` variables, when the
    /// engine can read every one of them (scalars and maps of integers and
    /// bools) and there is no global `report` variable (their rows are
    /// printed, not read).
    pub(super) fn report_layout(&self) -> Option<monitor_abi::report::ReportLayout> {
        use monitor_abi::report::{ProbeRecords, Var, VarType};
        if self.reports.iter().any(|r| r.global.is_some()) {
            return None;
        }
        let mut probes = vec![];
        for s in self.sites.iter().filter(|s| !s.report.is_empty()) {
            let mut vars = vec![];
            for (name, ty, offset) in &s.report {
                let ty = match ty {
                    Type::Map(k, v) => VarType::Map(layout_scalar(k)?, layout_scalar(v)?),
                    t => VarType::Scalar(layout_scalar(t)?),
                };
                vars.push(Var {
                    name: name.clone(),
                    ty,
                    offset: *offset,
                });
            }
            probes.push(ProbeRecords {
                head_global: s.head,
                vars,
            });
        }
        Some(monitor_abi::report::ReportLayout { probes })
    }

    pub(super) fn default_report(&mut self, cx: &mut FnCx) {
        // As whamm: nothing at all when there is no row to print (only
        // per-site `report` variables, and no site was matched).
        let has_globals = self.reports.iter().any(|r| r.global.is_some());
        let heads: Vec<u32> = self
            .sites
            .iter()
            .filter(|s| !s.report.is_empty())
            .map(|s| s.head)
            .collect();
        let guarded = !has_globals;
        if guarded {
            cx.e(I::I32Const(0));
            for h in &heads {
                cx.e(I::GlobalGet(*h));
                cx.e(I::I32Or);
            }
            cx.e(I::If(BlockType::Empty));
        }
        self.default_report_rows(cx);
        if guarded {
            cx.e(I::End);
        }
    }

    fn default_report_rows(&mut self, cx: &mut FnCx) {
        self.puts_const(cx, CSV_HEADER);
        // 1. per-site scalars, 2. global scalars, 3. maps (global, then per-site)
        for pass in 0..3 {
            if pass == 1 || pass == 2 {
                self.report_globals(cx, pass == 2);
            }
            if pass == 0 || pass == 2 {
                for si in 0..self.sites.len() {
                    self.report_sites(cx, si, pass == 2);
                }
            }
        }
    }

    /// One row per global `report` variable: the maps or the scalars.
    fn report_globals(&mut self, cx: &mut FnCx, maps: bool) {
        let reports: Vec<(String, Type, u32, Loc)> = self
            .reports
            .iter()
            .filter_map(|r| {
                r.global
                    .clone()
                    .map(|(id, loc)| (r.name.clone(), r.ty.clone(), id, loc))
            })
            .collect();
        for (name, ty, id, loc) in reports {
            if matches!(ty, Type::Map(..)) != maps {
                continue;
            }
            // as whamm: a value of several Wasm values (a string, a tuple)
            // is that many globals, `(id; id+1)`, `(global_id; global_id)`
            let n = if maps {
                1
            } else {
                wasm_type_name(&ty).split(';').count() as u32
            };
            let kind = if maps { "map_id" } else { "global_id" };
            let (id, kind) = if n == 1 {
                (id.to_string(), kind.to_string())
            } else {
                let ids: Vec<String> = (id..id + n).map(|i| i.to_string()).collect();
                (
                    format!("({})", ids.join("; ")),
                    format!("({})", vec![kind; n as usize].join("; ")),
                )
            };
            self.puts_const(
                cx,
                &format!(
                    "{id}, {kind}, {name}, {}, {}, script0, , , , , ",
                    type_name(&ty),
                    wasm_type_name(&ty)
                ),
            );
            self.load(cx, &ty, &loc);
            self.print_value(cx, &ty, false);
            self.puts_const(cx, "\n");
        }
    }

    /// One row per site of probe `si` and per-site `report` variable (the
    /// maps or the scalars): a loop over the probe's site records.
    fn report_sites(&mut self, cx: &mut FnCx, si: usize, maps: bool) {
        let vars: Vec<(String, Type, u32)> = self.sites[si]
            .report
            .iter()
            .filter(|v| matches!(v.1, Type::Map(..)) == maps)
            .cloned()
            .collect();
        if vars.is_empty() {
            return;
        }
        let rec = cx.local(VT::I32);
        cx.e(I::GlobalGet(self.sites[si].head));
        cx.e(I::LocalSet(rec));
        cx.e(I::Block(BlockType::Empty));
        cx.e(I::Loop(BlockType::Empty));
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Eqz);
        cx.e(I::BrIf(1));
        for (name, ty, off) in &vars {
            self.report_site_var(cx, rec, name, ty, *off, maps);
        }
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Load(mem8(0, 2)));
        cx.e(I::LocalSet(rec));
        cx.e(I::Br(0));
        cx.e(I::End);
        cx.e(I::End);
    }

    /// The row of one per-site variable of the record in local `rec`.
    fn report_site_var(
        &mut self,
        cx: &mut FnCx,
        rec: u32,
        name: &str,
        ty: &Type,
        off: u32,
        map: bool,
    ) {
        // whamm: every per-site variable, maps included, is a `memaddr` row
        let _ = map;
        let kind = "memaddr";
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Const(off as i32));
        cx.e(I::I32Add);
        self.print_value(cx, &Type::U32, false);
        self.puts_const(
            cx,
            &format!(
                ", {kind}, {name}, {}, {}, script0, ",
                type_name(ty),
                wasm_type_name(ty)
            ),
        );
        // fname (`#fid` for a function without a name, as whamm's engine
        // target prints it), then fid, pc, probe_id from the record header
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Load(mem8(12, 2)));
        cx.e(I::Call(self.m.rt("str_len")));
        cx.e(I::If(BlockType::Empty));
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Load(mem8(12, 2)));
        self.print_value(cx, &Type::Str, false);
        cx.e(I::Else);
        self.puts_const(cx, "#");
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Load(mem8(4, 2)));
        self.print_value(cx, &Type::U32, false);
        cx.e(I::End);
        // `, fid`, `, pc`, then the probe id, stored with its separators
        // (`, 0_wasm:opcode:nop:before, `): fewer pieces of output per row
        for o in [4u32, 8] {
            cx.e(I::LocalGet(rec));
            cx.e(I::I32Load(mem8(o, 2)));
            cx.e(I::I64ExtendI32U);
            cx.e(I::Call(self.m.rt("print_sep_u64")));
        }
        cx.e(I::LocalGet(rec));
        cx.e(I::I32Load(mem8(16, 2)));
        self.print_value(cx, &Type::Str, false);
        self.load(cx, ty, &Loc::Mem(Base::Local(rec), off));
        self.print_value(cx, ty, false);
        self.puts_const(cx, "\n");
    }
}

/// The layout type of a report variable's scalar type, if the engine reads it.
fn layout_scalar(t: &Type) -> Option<monitor_abi::report::Scalar> {
    use monitor_abi::report::Scalar;
    Some(match t {
        Type::U32 => Scalar::U32,
        Type::I32 => Scalar::I32,
        Type::U64 => Scalar::U64,
        Type::I64 => Scalar::I64,
        Type::Bool => Scalar::Bool,
        _ => return None,
    })
}
