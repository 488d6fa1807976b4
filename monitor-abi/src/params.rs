//! Parameter kinds (`docs/monitor-abi.md#parameters`): static vs dynamic, where each param is
//! allowed, the Wasm types it binds to, and validation of parsed patterns.

use thiserror::Error;

use crate::pattern::{Event, Param, Pattern, StaticCall};
use crate::valtype::ValType;

/// When a parameter's value is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Timing {
    /// Known at match time (a constant per site).
    Static,
    /// Read at run time, every time the probe fires.
    Dynamic,
}

/// The Wasm type(s) a parameter binds to in the probe function's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binding {
    /// Exactly these Wasm types, in order (`opname` is two i32: ptr, len).
    Fixed(&'static [ValType]),
    /// The type of the N-th operand from the top (or result, for `:after`).
    OperandType,
    /// The declared type of local N.
    LocalType,
    /// The type of immediate N: i32, except i64 for `i64.const`, f32/f64 for
    /// float constants (see [`crate::opcode::flatten_immediates`]).
    ImmediateType,
    /// The single result type of the called function.
    CallResult,
}

/// Static description of one parameter kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamInfo {
    /// Known at match time or at run time.
    pub timing: Timing,
    /// Allowed directly in a probe's parameter list.
    pub in_probe: bool,
    /// Allowed inside a static call (predicate or call param).
    pub in_static_call: bool,
    /// What it binds to.
    pub binding: Binding,
}

const I32: &[ValType] = &[ValType::I32];
const I64: &[ValType] = &[ValType::I64];
const EXTERNREF: &[ValType] = &[ValType::ExternRef];
const PTR_LEN: &[ValType] = &[ValType::I32, ValType::I32];

impl Param {
    /// The ABI's rules for this parameter kind.
    pub fn info(&self) -> ParamInfo {
        use Binding::*;
        use Timing::*;
        let (timing, in_probe, in_static_call, binding) = match self {
            Param::Pc
            | Param::Fid
            | Param::ProbeId
            | Param::NumTargets
            | Param::InstrCount
            | Param::AtFuncEnd
            | Param::Opidx
            | Param::RefFuncBefore
            | Param::Opcode
            | Param::DefaultTarget
            | Param::ArgTy(_)
            | Param::LocalTy(_) => (Static, true, true, Fixed(I32)),
            Param::Offset => (Static, true, true, Fixed(I64)),
            Param::Imm(_) => (Static, true, true, ImmediateType),
            Param::Opname
            | Param::Fname
            | Param::Targets
            | Param::TargetFnName
            | Param::TargetFnType
            | Param::TargetImpModule => (Static, false, true, Fixed(PTR_LEN)),
            Param::Frame => (Dynamic, true, false, Fixed(EXTERNREF)),
            Param::Arg(_) => (Dynamic, true, false, OperandType),
            Param::Local(_) => (Dynamic, true, false, LocalType),
            Param::Call(_) => (Static, true, false, CallResult),
        };
        ParamInfo {
            timing,
            in_probe,
            in_static_call,
            binding,
        }
    }

    /// True if the value is known at match time.
    pub fn is_static(&self) -> bool {
        self.info().timing == Timing::Static
    }

    /// The Wasm types when they do not depend on the site, else `None`.
    pub fn fixed_types(&self) -> Option<&'static [ValType]> {
        match self.info().binding {
            Binding::Fixed(t) => Some(t),
            _ => None,
        }
    }

    /// The parameters without an index or arguments, in grammar order.
    pub const SIMPLE: &'static [Param] = &[
        Param::Pc,
        Param::Fid,
        Param::Frame,
        Param::ProbeId,
        Param::Opname,
        Param::Fname,
        Param::NumTargets,
        Param::Offset,
        Param::InstrCount,
        Param::AtFuncEnd,
        Param::Opidx,
        Param::RefFuncBefore,
        Param::Opcode,
        Param::DefaultTarget,
        Param::Targets,
        Param::TargetFnName,
        Param::TargetFnType,
        Param::TargetImpModule,
    ];

    /// Whether this is one of this project's additions (ABI Part B), which a
    /// portable monitor must not use.
    pub fn is_part_b(&self) -> bool {
        match self {
            Param::Opidx
            | Param::RefFuncBefore
            | Param::Opcode
            | Param::DefaultTarget
            | Param::Targets
            | Param::TargetFnName
            | Param::TargetFnType
            | Param::TargetImpModule
            | Param::ArgTy(_)
            | Param::LocalTy(_) => true,
            Param::Call(c) => c.params.iter().any(Param::is_part_b),
            _ => false,
        }
    }

    /// The parameter's keyword (`pc`, `arg`, `call` for static calls).
    pub fn keyword(&self) -> &'static str {
        match self {
            Param::Pc => "pc",
            Param::Fid => "fid",
            Param::Frame => "frame",
            Param::ProbeId => "probe_id",
            Param::Opname => "opname",
            Param::Fname => "fname",
            Param::NumTargets => "num_targets",
            Param::Offset => "offset",
            Param::InstrCount => "instr_count",
            Param::AtFuncEnd => "at_func_end",
            Param::Opidx => "opidx",
            Param::RefFuncBefore => "ref_func_before",
            Param::Opcode => "opcode",
            Param::DefaultTarget => "default_target",
            Param::Targets => "targets",
            Param::TargetFnName => "target_fn_name",
            Param::TargetFnType => "target_fn_type",
            Param::TargetImpModule => "target_imp_module",
            Param::Arg(_) => "arg",
            Param::Imm(_) => "imm",
            Param::Local(_) => "local",
            Param::ArgTy(_) => "argty",
            Param::LocalTy(_) => "localty",
            Param::Call(_) => "call",
        }
    }
}

/// The value of `argtyN` / `localtyN` (Part B): the type's code in the Wasm
/// binary format as a positive i32 (`i32` 0x7F, `i64` 0x7E, `f32` 0x7D,
/// `f64` 0x7C, `v128` 0x7B, `funcref` 0x70, `externref` 0x6F), 0 when the
/// type is unknown (unreachable code).
pub fn type_code(t: Option<ValType>) -> i32 {
    match t {
        Some(t) => t.code() as i32,
        None => 0,
    }
}

/// Where in a pattern a parameter was found.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ParamContext {
    /// The probe function's own parameter list.
    Probe,
    /// Inside the predicate call named here.
    Predicate(String),
    /// Inside a static call (among the probe params) named here.
    Call(String),
}

impl std::fmt::Display for ParamContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamContext::Probe => f.write_str("the probe's parameters"),
            ParamContext::Predicate(n) => write!(f, "predicate `{n}`"),
            ParamContext::Call(n) => write!(f, "static call `{n}`"),
        }
    }
}

/// Why a parameter is not allowed where it is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Error)]
pub enum ParamError {
    /// A dynamic param (`argN`, `localN`, `frame`) inside a static call.
    #[error("`{param}` in {context}: static calls take only static parameters")]
    DynamicInStaticCall {
        /// Where.
        context: ParamContext,
        /// The offending param (canonical text).
        param: String,
    },
    /// A call inside a static call.
    #[error("nested call `{param}` in {context}: static calls cannot be nested")]
    NestedCall {
        /// Where.
        context: ParamContext,
        /// The offending call (canonical text).
        param: String,
    },
    /// `opname` / `fname` among the probe's own params.
    #[error("`{param}` is only allowed inside a static call, not in {context}")]
    OnlyInStaticCall {
        /// Where.
        context: ParamContext,
        /// The offending param.
        param: String,
    },
    /// A param that can never apply to the pattern's event
    /// (e.g. `instr_count` outside `block:end`).
    #[error("`{param}` does not apply to event `{event}`")]
    NotForEvent {
        /// The event (canonical text).
        event: String,
        /// The offending param.
        param: String,
    },
}

/// Checks placement rules for every parameter of `pattern`
/// (`docs/monitor-abi.md#where-parameters-are-allowed`) and
/// event applicability that is known without looking at a site:
///
/// * `argN`, `localN`, `frame` and nested calls are errors inside static calls;
/// * `opname`, `fname` are errors among the probe's own params;
/// * `instr_count` only for `block:end`.
///
/// Rules that depend on the instruction at a site (`offset`, `num_targets`,
/// `argN`/`immN`/`localN` ranges) are decided per site by
/// [`check_param_at_site`]: `block:*` and `func:exit` fire at an instruction
/// too, so they are not rejected here.
///
/// Returns every error found (empty = valid), in order.
pub fn validate_pattern(pattern: &Pattern) -> Vec<ParamError> {
    let mut errs = Vec::new();
    if let Some(pred) = &pattern.predicate {
        check_call(
            pred,
            ParamContext::Predicate(pred.name.clone()),
            &pattern.event,
            &mut errs,
        );
    }
    for p in &pattern.params {
        match p {
            Param::Call(c) => check_call(
                c,
                ParamContext::Call(c.name.clone()),
                &pattern.event,
                &mut errs,
            ),
            _ if !p.info().in_probe => errs.push(ParamError::OnlyInStaticCall {
                context: ParamContext::Probe,
                param: p.to_string(),
            }),
            _ => check_event(p, &pattern.event, &mut errs),
        }
    }
    errs
}

/// Like [`validate_pattern`] but returns the first error.
pub fn check_pattern(pattern: &Pattern) -> Result<(), ParamError> {
    match validate_pattern(pattern).into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn check_call(call: &StaticCall, ctx: ParamContext, event: &Event, errs: &mut Vec<ParamError>) {
    for p in &call.params {
        match p {
            Param::Call(_) => errs.push(ParamError::NestedCall {
                context: ctx.clone(),
                param: p.to_string(),
            }),
            _ if !p.info().in_static_call => errs.push(ParamError::DynamicInStaticCall {
                context: ctx.clone(),
                param: p.to_string(),
            }),
            _ => check_event(p, event, errs),
        }
    }
}

fn check_event(p: &Param, event: &Event, errs: &mut Vec<ParamError>) {
    let ok = match p {
        Param::InstrCount => *event == Event::BlockEnd,
        _ => true,
    };
    if !ok {
        errs.push(ParamError::NotForEvent {
            event: event.to_string(),
            param: p.to_string(),
        });
    }
}

/// What a parameter means at one concrete site: "error" vs "no match"
/// (`docs/monitor-abi.md#site-rules`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SiteCheck {
    /// The parameter can be bound here.
    Ok,
    /// Silently skip this site.
    NoMatch,
    /// A bind error (exit status 3) with this message.
    Error(String),
}

/// Facts about one candidate site that decide [`check_param_at_site`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SiteFacts {
    /// The instruction's opcode (`None` for `func:entry`).
    pub opcode: Option<crate::opcode::Opcode>,
    /// Number of operands (or results, in `:after` mode) if known.
    pub num_operands: Option<u32>,
    /// Number of flattened immediates.
    pub num_immediates: u32,
    /// Number of locals (params first) of the function.
    pub num_locals: u32,
    /// Whether the event is `block:end`.
    pub is_block_end: bool,
}

/// Decides whether `param` can be bound at a site
/// (`docs/monitor-abi.md#site-rules`): `argN` beyond the
/// operands is no match for `call`/`call_indirect` (not their tail or ref
/// variants: as in Wizard), an error otherwise; `immN` beyond the immediates
/// is no match for `br_table` and `try_table`, error otherwise; `localN` out of range is no match;
/// `offset` on an instruction without memarg, `num_targets` outside
/// `br_table`, `instr_count` outside `block:end` are errors.
///
/// Part B: `argtyN` / `localtyN` follow `argN` / `localN` (but `argtyN` is
/// also fine where the operand types are unknown: it is then 0);
/// `default_target`, `targets` outside `br_table` and `target_fn_*` outside
/// `call`/`return_call` are errors; `opidx` and `opcode` are always available.
pub fn check_param_at_site(param: &Param, site: &SiteFacts) -> SiteCheck {
    use crate::opcode::Opcode;
    let name = site
        .opcode
        .map(|o| o.mnemonic())
        .unwrap_or("(no instruction)");
    match param {
        Param::Arg(n) | Param::ArgTy(n) => match site.num_operands {
            Some(k) if *n < k => SiteCheck::Ok,
            Some(k) => {
                // As in Wizard: no match only for `call` and `call_indirect`
                // (their callees' arities vary); an error on any other.
                if matches!(site.opcode, Some(Opcode::CALL | Opcode::CALL_INDIRECT)) {
                    SiteCheck::NoMatch
                } else {
                    SiteCheck::Error(format!("arg{n} out of range: `{name}` has {k} operand(s)"))
                }
            }
            // `argtyN` reads the validator's operand type (0 if unknown).
            None if matches!(param, Param::ArgTy(_)) => SiteCheck::Ok,
            None => SiteCheck::Error(format!("arg{n}: operand types of `{name}` are unknown")),
        },
        Param::Imm(n) => {
            if *n < site.num_immediates {
                SiteCheck::Ok
            } else if matches!(site.opcode, Some(Opcode::BR_TABLE | Opcode::TRY_TABLE)) {
                // As in Wizard: their immediate counts vary with the site.
                SiteCheck::NoMatch
            } else {
                SiteCheck::Error(format!(
                    "imm{n} out of range: `{name}` has {} immediate(s)",
                    site.num_immediates
                ))
            }
        }
        Param::Local(n) | Param::LocalTy(n) => {
            if *n < site.num_locals {
                SiteCheck::Ok
            } else {
                SiteCheck::NoMatch
            }
        }
        Param::Offset => {
            if site.opcode.is_some_and(|o| o.has_memarg()) {
                SiteCheck::Ok
            } else {
                SiteCheck::Error(format!("offset: `{name}` is not a load or store"))
            }
        }
        Param::NumTargets | Param::DefaultTarget | Param::Targets => {
            if site.opcode == Some(Opcode::BR_TABLE) {
                SiteCheck::Ok
            } else {
                SiteCheck::Error(format!("{param}: `{name}` is not br_table"))
            }
        }
        Param::TargetFnName | Param::TargetFnType | Param::TargetImpModule => {
            if matches!(name, "call" | "return_call") {
                SiteCheck::Ok
            } else {
                SiteCheck::Error(format!(
                    "{param}: `{name}` is not a direct call (`call`, `return_call`)"
                ))
            }
        }
        Param::InstrCount => {
            if site.is_block_end {
                SiteCheck::Ok
            } else {
                SiteCheck::Error("instr_count is only available for block:end".to_string())
            }
        }
        _ => SiteCheck::Ok,
    }
}

/// Whether [`check_param_at_site`] can say anything but `Ok` for `param` at
/// some site: the parameters it checks against the site's facts. A matcher
/// may skip the site check for a rule none of whose parameters are. (No
/// wildcard: a new kind of parameter must be classified here.)
pub fn checked_at_site(param: &Param) -> bool {
    match param {
        Param::Arg(_)
        | Param::ArgTy(_)
        | Param::Imm(_)
        | Param::Local(_)
        | Param::LocalTy(_)
        | Param::Offset
        | Param::NumTargets
        | Param::DefaultTarget
        | Param::Targets
        | Param::TargetFnName
        | Param::TargetFnType
        | Param::TargetImpModule
        | Param::InstrCount => true,
        Param::Pc
        | Param::Fid
        | Param::Frame
        | Param::ProbeId
        | Param::Opname
        | Param::Fname
        | Param::AtFuncEnd
        | Param::Opidx
        | Param::RefFuncBefore
        | Param::Opcode
        | Param::Call(_) => false,
    }
}

#[cfg(test)]
mod site_check_tests {
    use super::*;

    /// A parameter [`checked_at_site`] says is never checked passes the site
    /// check everywhere; one it says is checked fails it somewhere.
    #[test]
    fn unchecked_parameters_pass_every_site_check() {
        let sites: Vec<SiteFacts> = [None, Some(crate::opcode::Opcode::I32_ADD)]
            .into_iter()
            .flat_map(|opcode| {
                [None, Some(0), Some(9)].map(|num_operands| SiteFacts {
                    opcode,
                    num_operands,
                    num_immediates: 0,
                    num_locals: 0,
                    is_block_end: false,
                })
            })
            .collect();
        let call = StaticCall {
            name: "$f".into(),
            params: vec![Param::Pc],
        };
        let mut ps = Param::SIMPLE.to_vec();
        ps.extend([
            Param::Arg(3),
            Param::Imm(3),
            Param::Local(3),
            Param::ArgTy(3),
            Param::LocalTy(3),
            Param::Call(call),
        ]);
        for p in ps {
            let all_ok =
                (sites.iter()).all(|s| matches!(check_param_at_site(&p, s), SiteCheck::Ok));
            assert_eq!(all_ok, !checked_at_site(&p), "{p:?}");
        }
    }
}
