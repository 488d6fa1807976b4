//! Parameter rules, event catalogue and provided imports.

use monitor_abi::catalogue::{
    self, data_size, find_event, opcode_event, AbiHook, LangType, ProbeMode, Target, VarType,
};
use monitor_abi::imports::{self, AbiPart, PROVIDED_IMPORTS};
use monitor_abi::params::*;
use monitor_abi::pattern::{parse_pattern, Event, Mode, OpcodeMatch, Param};
use monitor_abi::{Opcode, ValType};

fn errors(name: &str) -> Vec<ParamError> {
    validate_pattern(&parse_pattern(name).expect(name))
}

#[test]
fn param_info() {
    assert_eq!(Param::Fid.fixed_types(), Some(&[ValType::I32][..]));
    assert_eq!(Param::Pc.fixed_types(), Some(&[ValType::I32][..]));
    assert_eq!(Param::Offset.fixed_types(), Some(&[ValType::I64][..]));
    assert_eq!(Param::Frame.fixed_types(), Some(&[ValType::ExternRef][..]));
    assert_eq!(
        Param::Opname.fixed_types(),
        Some(&[ValType::I32, ValType::I32][..])
    );
    assert_eq!(
        Param::Fname.fixed_types(),
        Some(&[ValType::I32, ValType::I32][..])
    );
    assert_eq!(Param::Arg(0).info().binding, Binding::OperandType);
    assert_eq!(Param::Local(0).info().binding, Binding::LocalType);
    assert_eq!(Param::Imm(0).info().binding, Binding::ImmediateType);
    for p in [
        Param::Fid,
        Param::Pc,
        Param::Imm(1),
        Param::Offset,
        Param::NumTargets,
        Param::InstrCount,
        Param::AtFuncEnd,
        Param::Opname,
        Param::Fname,
        Param::ProbeId,
    ] {
        assert!(p.is_static() && p.info().in_static_call, "{p}");
    }
    for p in [Param::Arg(0), Param::Local(0), Param::Frame] {
        assert!(
            !p.is_static() && !p.info().in_static_call && p.info().in_probe,
            "{p}"
        );
    }
    assert!(!Param::Opname.info().in_probe);
}

#[test]
fn validation() {
    assert!(errors("wasm:opcode:call/$p(fid,pc,imm0,offset,num_targets,at_func_end,opname,fname,probe_id)/($a(fid,pc),arg0,local1,frame,pc)").is_empty());
    assert!(errors("wasm:block:end/$p(instr_count)/(instr_count)").is_empty());

    let e = errors("wasm:opcode:call/$p(frame)/");
    assert_eq!(
        e,
        vec![ParamError::DynamicInStaticCall {
            context: ParamContext::Predicate("$p".into()),
            param: "frame".into()
        }]
    );
    assert!(e[0].to_string().contains("frame"));
    assert!(matches!(
        errors("wasm:opcode:call($a(arg0))")[0],
        ParamError::DynamicInStaticCall { .. }
    ));
    assert!(matches!(
        errors("wasm:opcode:call/$p(local0)/")[0],
        ParamError::DynamicInStaticCall { .. }
    ));
    assert!(matches!(
        errors("wasm:opcode:call/$p($q())/")[0],
        ParamError::NestedCall { .. }
    ));
    assert!(matches!(
        errors("wasm:opcode:call($a($b(pc)))")[0],
        ParamError::NestedCall { .. }
    ));
    assert!(matches!(
        errors("wasm:opcode:call(opname)")[0],
        ParamError::OnlyInStaticCall { .. }
    ));
    assert!(matches!(
        errors("wasm:func:entry(fname)")[0],
        ParamError::OnlyInStaticCall { .. }
    ));
    assert!(matches!(
        errors("wasm:block:start(instr_count)")[0],
        ParamError::NotForEvent { .. }
    ));
    assert_eq!(
        errors("wasm:opcode:call/$p(frame)/(opname,$a(arg1))").len(),
        3
    );
    assert!(check_pattern(&parse_pattern("wasm:opcode:*(pc)").expect("ok")).is_ok());
}

#[test]
fn site_checks() {
    let call = SiteFacts {
        opcode: Some(Opcode::CALL),
        num_operands: Some(2),
        num_immediates: 1,
        num_locals: 3,
        is_block_end: false,
    };
    assert_eq!(check_param_at_site(&Param::Arg(1), &call), SiteCheck::Ok);
    assert_eq!(
        check_param_at_site(&Param::Arg(2), &call),
        SiteCheck::NoMatch
    );
    let add = SiteFacts {
        opcode: Some(Opcode::I32_ADD),
        num_immediates: 0,
        ..call
    };
    assert!(matches!(
        check_param_at_site(&Param::Arg(2), &add),
        SiteCheck::Error(_)
    ));
    assert!(matches!(
        check_param_at_site(&Param::Imm(0), &add),
        SiteCheck::Error(_)
    ));
    assert!(matches!(
        check_param_at_site(&Param::Offset, &add),
        SiteCheck::Error(_)
    ));
    assert!(matches!(
        check_param_at_site(&Param::NumTargets, &add),
        SiteCheck::Error(_)
    ));
    assert_eq!(
        check_param_at_site(&Param::Local(3), &add),
        SiteCheck::NoMatch
    );
    let brt = SiteFacts {
        opcode: Some(Opcode::BR_TABLE),
        num_immediates: 3,
        ..call
    };
    assert_eq!(
        check_param_at_site(&Param::Imm(3), &brt),
        SiteCheck::NoMatch
    );
    assert_eq!(check_param_at_site(&Param::NumTargets, &brt), SiteCheck::Ok);
    let load = SiteFacts {
        opcode: Some(Opcode::I32_LOAD),
        ..call
    };
    assert_eq!(check_param_at_site(&Param::Offset, &load), SiteCheck::Ok);
}

#[test]
fn part_b_params() {
    // Parse, canonical print, placement.
    let name = "wasm:opcode:br_table/$p(opidx,default_target,targets,argty0,localty2,opcode)/($a(target_fn_name,target_fn_type,target_imp_module,opcode),opidx,default_target,argty1,localty0,opcode)";
    let p = parse_pattern(name).expect("parses");
    assert_eq!(p.to_string(), name);
    assert!(validate_pattern(&p).is_empty());
    assert!(p.params.iter().all(|q| q.is_part_b()));
    assert!(p.params[0].is_part_b() && !Param::Fname.is_part_b());
    for q in [
        Param::Opidx,
        Param::Opcode,
        Param::DefaultTarget,
        Param::ArgTy(0),
        Param::LocalTy(0),
    ] {
        assert!(
            q.is_static() && q.info().in_probe && q.info().in_static_call,
            "{q}"
        );
        assert_eq!(q.fixed_types(), Some(&[ValType::I32][..]));
    }
    for q in [
        Param::Targets,
        Param::TargetFnName,
        Param::TargetFnType,
        Param::TargetImpModule,
    ] {
        assert!(
            q.is_static() && !q.info().in_probe && q.info().in_static_call,
            "{q}"
        );
        assert_eq!(q.fixed_types(), Some(&[ValType::I32, ValType::I32][..]));
    }
    assert!(matches!(
        errors("wasm:opcode:call(target_fn_name)")[0],
        ParamError::OnlyInStaticCall { .. }
    ));
    assert!(parse_pattern("wasm:opcode:call(argty)").is_err());
    // Site checks.
    let site = |op, n| SiteFacts {
        opcode: Some(op),
        num_operands: n,
        num_immediates: 1,
        num_locals: 2,
        is_block_end: false,
    };
    let call = site(Opcode::CALL, Some(2));
    let add = site(Opcode::I32_ADD, Some(2));
    let brt = site(Opcode::BR_TABLE, Some(1));
    let unknown = site(Opcode::SELECT, None);
    let ok = |p: Param, s: &SiteFacts| check_param_at_site(&p, s) == SiteCheck::Ok;
    let err = |p: Param, s: &SiteFacts| matches!(check_param_at_site(&p, s), SiteCheck::Error(_));
    assert!(ok(Param::TargetFnName, &call) && err(Param::TargetFnName, &add));
    assert!(ok(Param::Targets, &brt) && err(Param::Targets, &call));
    assert!(ok(Param::DefaultTarget, &brt) && err(Param::DefaultTarget, &add));
    assert!(ok(Param::ArgTy(1), &add) && err(Param::ArgTy(2), &add));
    assert_eq!(
        check_param_at_site(&Param::ArgTy(2), &call),
        SiteCheck::NoMatch
    );
    assert!(
        ok(Param::ArgTy(0), &unknown),
        "argtyN is 0 where types are unknown"
    );
    assert_eq!(
        check_param_at_site(&Param::LocalTy(2), &add),
        SiteCheck::NoMatch
    );
    assert!(ok(Param::Opidx, &add));
    assert!(ok(Param::Opcode, &add) && ok(Param::Opcode, &brt) && ok(Param::Opcode, &unknown));
    // Type codes.
    assert_eq!(type_code(Some(ValType::I32)), 0x7F);
    assert_eq!(type_code(Some(ValType::F64)), 0x7C);
    assert_eq!(type_code(None), 0);
}

#[test]
fn catalogue_contents() {
    let cat = catalogue::catalogue();
    assert_eq!(
        cat.iter().filter(|e| e.package == "opcode").count(),
        Opcode::all().count()
    );
    for (pkg, ev) in [
        ("func", Some("entry")),
        ("func", Some("exit")),
        ("block", Some("start")),
        ("block", Some("end")),
        ("begin", None),
        ("end", None),
        ("report", None),
        ("exit", None),
    ] {
        assert!(find_event(pkg, ev).is_some(), "{pkg}:{ev:?}");
    }
    let call = find_event("opcode", Some("call")).expect("call");
    assert_eq!(
        call.rule(Some(ProbeMode::Before)),
        "wasm:opcode:call:before"
    );
    assert!(call.supported(None, Target::Portable));
    assert!(call.supported(Some(ProbeMode::After), Target::Engine));
    assert!(!call.supported(Some(ProbeMode::After), Target::Portable));
    assert!(!call.supported(Some(ProbeMode::Alt), Target::Engine));
    assert!(call.mode(ProbeMode::AtTarget).is_none());
    assert_eq!(
        call.var("target_fn_name").map(|v| v.ty),
        Some(VarType::Lang(LangType::Str))
    );
    assert_eq!(
        call.var("arg3").map(|v| (v.ty, v.timing)),
        Some((VarType::Operand, Timing::Dynamic))
    );
    assert_eq!(call.var("imm0").map(|v| v.timing), Some(Timing::Static));
    assert!(call.var("arg").is_none());
    assert_eq!(
        call.var("fid").map(|v| v.ty),
        Some(VarType::Lang(LangType::U32))
    );
    assert_eq!(
        call.abi_hook(Some(ProbeMode::After)),
        Some(AbiHook::Probe(Event::Opcode {
            matches: OpcodeMatch::One(Opcode::CALL),
            mode: Mode::After
        }))
    );
    let blk = opcode_event(Opcode::BLOCK).expect("block");
    assert!(blk.mode(ProbeMode::Entry).is_some() && blk.mode(ProbeMode::SemanticAfter).is_some());
    assert!(opcode_event(Opcode::BR_IF)
        .and_then(|e| e.mode(ProbeMode::AtTarget))
        .is_some());
    let brt = opcode_event(Opcode::BR_TABLE).expect("br_table");
    assert_eq!(
        brt.var("targets").map(|v| v.ty),
        Some(VarType::Lang(LangType::Map(&LangType::U32, &LangType::U32)))
    );
    let load = find_event("opcode", Some("i64.load32_u")).expect("load");
    assert_eq!(
        load.var("offset").map(|v| v.ty),
        Some(VarType::Lang(LangType::U64))
    );
    assert!(find_event("block", Some("end"))
        .and_then(|e| e.var("instr_count"))
        .is_some());
    assert!(
        find_event("begin", None).is_some_and(
            |e| e.supported(None, Target::Engine) && !e.supported(None, Target::Portable)
        )
    );
    assert_eq!(
        find_event("end", None).and_then(|e| e.abi_hook(None)),
        Some(AbiHook::Exit)
    );
    // Part B: every opcode has `resN` in mode `after` (and only there).
    for e in cat.iter().filter(|e| e.package == "opcode") {
        let res = e.var("res0").expect("resN");
        assert_eq!(
            (res.ty, res.only_mode),
            (VarType::Result, Some(ProbeMode::After))
        );
    }
    assert!(opcode_event(Opcode::MEMORY_GROW)
        .and_then(|e| e.var("failed"))
        .is_some_and(|v| v.only_mode == Some(ProbeMode::After)));
    assert_eq!(
        ProbeMode::from_name("SEMANTIC_AFTER"),
        Some(ProbeMode::SemanticAfter)
    );
}

#[test]
fn data_sizes() {
    let ds = |m: &str| data_size(Opcode::from_mnemonic(m).expect(m));
    assert_eq!(ds("i32.load"), Some(4));
    assert_eq!(ds("i64.load"), Some(8));
    assert_eq!(ds("i64.load32_u"), Some(4));
    assert_eq!(ds("i32.store8"), Some(1));
    assert_eq!(ds("f64.store"), Some(8));
    assert_eq!(ds("v128.load"), Some(16));
    assert_eq!(ds("v128.load8x8_s"), Some(8));
    assert_eq!(ds("v128.load16_lane"), Some(2));
    assert_eq!(ds("v128.load64_splat"), Some(8));
    assert_eq!(ds("v128.load32_zero"), Some(4));
    assert_eq!(ds("i64.atomic.rmw16.add_u"), Some(2));
    assert_eq!(ds("i64.atomic.rmw.add"), Some(8));
    assert_eq!(ds("memory.atomic.wait64"), Some(8));
    assert_eq!(ds("i32.add"), None);
    for op in Opcode::all().filter(|o| o.has_memarg()) {
        assert!(
            ds(op.mnemonic()).is_some_and(|n| [1, 2, 4, 8, 16].contains(&n)),
            "{op}"
        );
    }
}

#[test]
fn provided_imports() {
    use ValType::*;
    let puts = imports::find_import("wizeng", "puts").expect("puts");
    assert_eq!(
        (puts.sig.params, puts.sig.results, puts.part),
        (&[I32, I32][..], &[][..], AbiPart::A)
    );
    assert_eq!(
        imports::find_import("wizeng", "rdtsc").map(|i| i.sig.results),
        Some(&[I64][..])
    );
    let ins = imports::find_import("whamm:dyninstr", "insert_new_probe").expect("insert");
    assert_eq!(ins.sig.params, &[I32, I32, FuncRef]);
    assert_eq!(ins.sig.to_string(), "(i32, i32, funcref) -> i32");
    assert_eq!(
        imports::find_import("wizeng", "ref_id").map(|i| i.sig.to_string()),
        Some("(externref) -> i32".to_string())
    );
    assert_eq!(imports::imports_of_module("wizeng").count(), 12);
    // Wizard's reflector: twelve counts, get_import_index and seventeen reads.
    assert_eq!(
        imports::imports_of_module("whamm:reflect").count(),
        12 + 1 + 17
    );
    assert_eq!(
        imports::find_import("whamm:reflect", "read_section").map(|i| i.sig.to_string()),
        Some("(i32, i32, i32, i32) -> i32".to_string())
    );
    assert_eq!(imports::imports_of_module("whamm:dyninstr").count(), 2);
    let fa: Vec<_> = imports::imports_of_module("wizeng:frame_accessor").collect();
    // Seven frame-wide functions, and a getter and a setter of locals and of
    // operands for each of the five value types.
    assert_eq!(fa.len(), 7 + 4 * 5);
    for t in ["i32", "i64", "f32", "f64", "v128"] {
        for f in ["get_local", "set_local", "get_operand", "set_operand"] {
            let name = format!("{f}_{t}");
            assert!(fa.iter().any(|i| i.name == name), "no {name}");
        }
    }
    assert!(fa
        .iter()
        .all(|i| i.part == AbiPart::B && i.sig.params.first() == Some(&ExternRef)));
    assert_eq!(
        imports::find_import("wizeng:frame_accessor", "set_operand_f64").map(|i| i.sig.params),
        Some(&[ExternRef, I32, F64][..])
    );
    assert_eq!(
        imports::find_import("wizeng:frame_accessor", "get_caller").map(|i| i.sig.results),
        Some(&[ExternRef][..])
    );
    let tf = imports::find_import("wizeng:app", "table_fid").expect("table_fid");
    assert_eq!(
        (tf.sig.params, tf.sig.results, tf.part),
        (&[I32, I32][..], &[I32][..], AbiPart::B)
    );
    assert!(!imports::is_portable_import("wizeng:app", "table_fid"));
    assert!(imports::is_portable_import("wizeng", "puti"));
    assert!(!imports::is_portable_import(
        "wizeng:frame_accessor",
        "get_pc"
    ));
    assert!(!imports::is_portable_import("wizeng", "nonexistent"));
    assert!(imports::is_portable_import("mylib", "anything"));
    let mut keys: Vec<_> = PROVIDED_IMPORTS
        .iter()
        .map(|i| (i.module, i.name))
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), PROVIDED_IMPORTS.len());
    for i in PROVIDED_IMPORTS {
        for t in i.sig.params.iter().chain(i.sig.results) {
            assert_eq!(ValType::from_wasmparser(t.to_wasmparser()), Some(*t));
        }
    }
}
