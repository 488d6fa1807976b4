//! # monitor-abi: the contract between the wizeng engine and the whamm compiler
//!
//! A *monitor* is a core Wasm module that instruments an application. This
//! crate is the one place that defines how the engine reads a monitor and how
//! the compiler writes one (`docs/monitor-abi.md` in the repository, Parts A
//! and B), plus the event catalogue of the probe-script language
//! (`docs/probe-language.md`, rules and bound variables). It has no engine
//! or compiler logic.
//!
//! ## Module map
//!
//! | module | contents | `docs/monitor-abi.md` |
//! |---|---|---|
//! | [`pattern`] | export-name grammar: [`parse_export_name`] → [`ExportMeaning`] (probe [`Pattern`], `wasm:exit`, `wasm:begin`, not-a-probe) or a [`PatternError`] with a byte column (syntax vs. ignorable unknown event/opcode); [`render_caret`]; canonical `Display` | `#export-names` |
//! | [`params`] | per-[`Param`] rules ([`Param::info`]: static/dynamic, where allowed, Wasm binding); [`validate_pattern`]; per-site [`check_param_at_site`] and which parameters it checks ([`checked_at_site`]); the Part B params (`opidx`, `opcode`, `default_target`, `targets`, `target_fn_*`, `argtyN`, `localtyN`: [`Param::is_part_b`], [`type_code`]) | `#parameters`, `#static-calls` |
//! | [`opcode`] | [`Opcode`] ids and mnemonics derived from `wasmparser::for_each_operator!`; [`opcode_of`]; [`binary_opcode`] (`opcode`); [`flatten_immediates`] (`immN`); [`Category`] | `#events`, `#immediates` |
//! | [`stack`] | operand/result types per instruction ([`stack_effect`] with a [`TypeResolver`]) for `argN` | `#parameters` |
//! | [`catalogue`](mod@catalogue) | probe-language events, modes, bound variables and target support | `docs/probe-language.md#probe-rules`, `#bound-variables` |
//! | [`imports`] | provided import modules/functions with exact signatures and Part A/B (`wizeng:app.table_fid` is a Part B addition) | `#provided-imports` |
//! | [`report`](mod@report) | the report layout section: where a compiled monitor's per-site `report` variables are, for the engine to read them from its memory | `#report-layout` |
//! | [`valtype`] | the ABI's small [`ValType`] and typed [`ConstValue`] | — |
//!
//! ## Example
//!
//! ```
//! use monitor_abi::{parse_export_name, render_caret, Event, ExportMeaning, Mode, Param};
//! use monitor_abi::{stack::NoContext, validate_pattern};
//!
//! let Ok(ExportMeaning::Probe(p)) = parse_export_name("wasm:opcode:call:after / $pred(fid) / (pc, arg0)")
//! else { unreachable!() };
//! assert!(matches!(p.event, Event::Opcode { mode: Mode::After, .. }));
//! assert_eq!(p.params, vec![Param::Pc, Param::Arg(0)]);
//! assert!(validate_pattern(&p).is_empty());
//! assert_eq!(p.to_string(), "wasm:opcode:call:after/$pred(fid)/(pc,arg0)");
//!
//! // Unknown opcodes are ignorable; syntax errors carry a column.
//! assert!(parse_export_name("wasm:opcode:i32.future_op").unwrap_err().is_ignorable());
//! let name = "wasm:opcode:call(pc,,fid)";
//! let err = parse_export_name(name).unwrap_err();
//! assert_eq!(err.column, 20);
//! eprintln!("{}", render_caret(name, &err));
//!
//! // Immediates and operand types of a decoded instruction.
//! let op = wasmparser::Operator::I32Const { value: 7 };
//! assert_eq!(monitor_abi::flatten_immediates(&op), vec![monitor_abi::ConstValue::I32(7)]);
//! let eff = monitor_abi::stack_effect(&op, &NoContext).unwrap();
//! assert_eq!(eff.results, vec![wasmparser::ValType::I32]);
//! ```
//!
//! ## Decisions where the ABI is silent
//!
//! * Grammar details (whitespace, `:before`, `wasm:exit()`, unknown modes,
//!   `$` in call names): see [`pattern`].
//! * `immN` encodings of memarg flags, block types, heap types, and the
//!   non-ABI proposals: see [`flatten_immediates`].
//! * Category names and ids: see [`opcode`].
//! * Operators that share one mnemonic (`select`/typed `select`) share one
//!   [`Opcode`]; the nullable `ref.test`/`ref.cast` are `ref.test null` and
//!   `ref.cast null`, as in Wizard (`ref.test_null`, `ref.cast_null` in the
//!   probe language: [`Opcode::event_name`]).
//! * `instr_count` outside `block:end` is a pattern-level error; the other
//!   site-dependent rules are in [`check_param_at_site`].
//!
//! Nothing in this crate panics on any input; it contains no `unsafe`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod catalogue;
pub mod imports;
mod names;
pub mod opcode;
pub mod params;
pub mod pattern;
pub mod report;
pub mod stack;
pub mod valtype;

pub use catalogue::{catalogue, EventSpec, LangType, ProbeMode, Target};
pub use imports::{AbiPart, ImporterTyped, ProvidedImport, PROVIDED_IMPORTS};
pub use opcode::{binary_opcode, flatten_immediates, memarg, opcode_of, Category, Opcode};
pub use params::{
    check_param_at_site, checked_at_site, type_code, validate_pattern, ParamError, ParamInfo,
    Timing,
};
pub use pattern::{
    parse_export_name, parse_pattern, render_caret, Event, ExportMeaning, Mode, OpcodeMatch, Param,
    Pattern, PatternError, PatternErrorKind, StaticCall,
};
pub use stack::{stack_effect, StackEffect, TypeResolver};
pub use valtype::{ConstValue, ValType};

/// The wasmparser version this crate derives its opcode table from (0.217.1).
pub use wasmparser;
