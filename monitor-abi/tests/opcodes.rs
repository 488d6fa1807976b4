//! Immediates flattening and stack effects on operators decoded from real bytes.

use monitor_abi::opcode::{flatten_immediates, opcode_of, Opcode};
use monitor_abi::stack::{stack_effect, NoContext, TypeResolver};
use monitor_abi::ConstValue::{self, *};
use wasmparser::{FuncType, Operator, Parser, Payload, ValType};

/// Decodes every operator of the first function body of `wat`, passing each
/// to `f` (owned data only, since the operators borrow the bytes).
fn with_ops<R>(wat: &str, f: impl Fn(&[Operator<'_>]) -> R) -> R {
    let bytes = wat::parse_str(wat).expect("valid wat");
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Ok(Payload::CodeSectionEntry(body)) = payload {
            let ops: Vec<Operator<'_>> = body
                .get_operators_reader()
                .expect("ops")
                .into_iter()
                .collect::<Result<_, _>>()
                .expect("decode");
            return f(&ops);
        }
    }
    panic!("no function body")
}

fn imms_of(wat_body: &str) -> Vec<(String, Vec<ConstValue>)> {
    let wat = format!(
        "(module (type $t (func (param i32 i64) (result f32))) (memory 1) (memory $m2 1) (table 2 funcref) \
         (func $f (param i32 i64) (result f32) f32.const 0) (elem declare func $f) (data $d \"\") \
         (func (param i32 i64) (local f64) {wat_body}))"
    );
    let bytes = wat::parse_str(&wat).expect("valid wat");
    let mut bodies = Vec::new();
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Ok(Payload::CodeSectionEntry(body)) = payload {
            bodies.push(body);
        }
    }
    let body = bodies.last().expect("body");
    body.get_operators_reader()
        .expect("ops")
        .into_iter()
        .map(|op| {
            let op = op.expect("decode");
            (
                opcode_of(&op).mnemonic().to_string(),
                flatten_immediates(&op),
            )
        })
        .collect()
}

#[test]
fn immediates_flattened_per_abi() {
    let got = imms_of(
        "i32.const -7 drop i64.const 1234567890123 drop f32.const 1.5 drop f64.const -2.25 drop \
         local.get 0 i32.load offset=16 align=2 drop \
         local.get 0 i64.load32_u $m2 offset=8 drop \
         block $a (result i32) block $b block $c local.get 0 br_table $a $b $c $a end end i32.const 1 end drop \
         local.get 0 if end \
         loop (param) end \
         i32.const 0 call_indirect (type $t) drop \
         local.get 0 local.get 1 call $f drop \
         memory.size $m2 drop \
         i32.const 0 i32.const 0 i32.const 0 memory.copy $m2 0 \
         i32.const 0 i32.const 0 i32.const 0 memory.init $d \
         ref.null extern drop ref.func $f drop \
         i32.const 0 i32.const 1 i32.const 1 select (result i32) drop \
         v128.const i32x4 1 2 3 4 v128.const i64x2 0 0 i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 \
         drop \
         atomic.fence \
         f32.const 0",
    );
    let find = |m: &str| {
        got.iter()
            .find(|(n, _)| n == m)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{m}"))
    };
    assert_eq!(find("i32.const"), vec![I32(-7)]);
    assert_eq!(find("i64.const"), vec![I64(1234567890123)]);
    assert_eq!(find("f32.const"), vec![F32Bits(1.5f32.to_bits())]);
    assert_eq!(find("f64.const"), vec![F64Bits((-2.25f64).to_bits())]);
    assert_eq!(find("local.get"), vec![I32(0)]);
    assert_eq!(find("i32.load"), vec![I32(1), I32(0), I32(16)]); // align=2 -> log2 1
    assert_eq!(find("i64.load32_u"), vec![I32(0x40 | 2), I32(1), I32(8)]);
    assert_eq!(
        find("br_table"),
        vec![I32(3), I32(2), I32(1), I32(0), I32(2)]
    );
    assert_eq!(find("block"), vec![I32(-1)]); // (result i32)
    assert_eq!(find("if"), vec![I32(-64)]); // empty
    assert_eq!(find("call_indirect"), vec![I32(0), I32(0)]);
    assert_eq!(find("call"), vec![I32(0)]);
    assert_eq!(find("memory.size"), vec![I32(1)]);
    assert_eq!(find("memory.copy"), vec![I32(1), I32(0)]);
    assert_eq!(find("memory.init"), vec![I32(0), I32(0)]);
    assert_eq!(find("ref.null"), vec![I32(-17)]);
    assert_eq!(find("ref.func"), vec![I32(0)]);
    // `select t`: no immediates, as in Wizard (it reads none).
    assert_eq!(find("select"), Vec::<monitor_abi::ConstValue>::new());
    let v = 1u128 | (2u128 << 32) | (3u128 << 64) | (4u128 << 96);
    assert_eq!(find("v128.const"), vec![V128(v)]);
    assert_eq!(find("i8x16.shuffle"), (0..16).map(I32).collect::<Vec<_>>());
    assert_eq!(find("drop"), vec![]);
    // Its reserved zero byte, which Wizard reads as imm0.
    assert_eq!(find("atomic.fence"), vec![I32(0)]);
}

#[test]
fn opcode_of_decoded_operators() {
    let names: Vec<&str> = with_ops(
        "(module (func (param i32) (result i32) local.get 0 i32.const 1 i32.add))",
        |ops| ops.iter().map(|o| opcode_of(o).mnemonic()).collect(),
    );
    assert_eq!(names, ["local.get", "i32.const", "i32.add", "end"]);
    let bytes = wat::parse_str(
        "(module (func (result i32) (local i32) i32.const 1 local.tee 0 i32.extend8_s i32.const 0 i32.const 1 select (result i32) ref.null func ref.is_null i32.add))",
    )
    .expect("wat");
    let mut seen = Vec::new();
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Ok(Payload::CodeSectionEntry(body)) = payload {
            for op in body.get_operators_reader().expect("ops") {
                seen.push(opcode_of(&op.expect("op")).mnemonic());
            }
        }
    }
    assert_eq!(
        seen,
        [
            "i32.const",
            "local.tee",
            "i32.extend8_s",
            "i32.const",
            "i32.const",
            "select",
            "ref.null",
            "ref.is_null",
            "i32.add",
            "end"
        ]
    );
    assert_eq!(
        opcode_of(&Operator::TypedSelect { ty: ValType::I32 }),
        Opcode::SELECT
    );
}

struct Ctx;
impl TypeResolver for Ctx {
    fn function_type(&self, idx: u32) -> Option<FuncType> {
        (idx == 0).then(|| FuncType::new([ValType::I32, ValType::I64], [ValType::F32]))
    }
    fn type_at(&self, idx: u32) -> Option<FuncType> {
        self.function_type(idx)
    }
    fn local_type(&self, idx: u32) -> Option<ValType> {
        [ValType::I32, ValType::I64, ValType::F64]
            .get(idx as usize)
            .copied()
    }
    fn label_types(&self, _depth: u32) -> Option<Vec<ValType>> {
        Some(vec![ValType::I64])
    }
    fn memory_is_64(&self, idx: u32) -> bool {
        idx == 1
    }
}

#[test]
fn stack_effects() {
    let wat = "(module (type (func (param i32 i64) (result f32))) (memory 1) (memory i64 1) (table 1 funcref)
        (func (param i32 i64) (result f32) f32.const 0)
        (func (param i32 i64) (result i64) (local f64)
          i32.const 1 i32.const 2 i32.add drop
          i64.const 1 i64.eqz drop
          f64.const 1 i32.trunc_sat_f64_u drop
          i32.const 0 i64.const 5 i64.store32
          i64.const 0 i64.load32_u 1 drop
          local.get 0 local.get 1 call 0 drop
          local.get 0 local.get 1 i32.const 0 call_indirect (type 0) drop
          i32.const 0 i8x16.splat i32.const 3 i8x16.shl i8x16.extract_lane_s 3 drop
          i32.const 0 v128.load32_zero drop
          i32.const 0 v128.const i64x2 0 0 v128.load16_lane 1 drop
          local.get 2 drop
          i64.const 0 i32.const 1 br_if 0 drop
          i64.const 7))";
    let bytes = wat::parse_str(wat).expect("wat");
    let mut effects = Vec::new();
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Ok(Payload::CodeSectionEntry(body)) = payload {
            effects.clear();
            for op in body.get_operators_reader().expect("ops") {
                let op = op.expect("op");
                effects.push((
                    opcode_of(&op).mnemonic(),
                    stack_effect(&op, &Ctx),
                    stack_effect(&op, &NoContext),
                ));
            }
        }
    }
    use ValType::*;
    let get = |m: &str| {
        effects
            .iter()
            .find(|(n, _, _)| *n == m)
            .unwrap_or_else(|| panic!("{m}"))
            .clone()
    };
    let eff = |m: &str| get(m).1.map(|e| (e.params, e.results));
    assert_eq!(eff("i32.add"), Some((vec![I32, I32], vec![I32])));
    assert_eq!(eff("i64.eqz"), Some((vec![I64], vec![I32])));
    assert_eq!(eff("i32.trunc_sat_f64_u"), Some((vec![F64], vec![I32])));
    assert_eq!(eff("i64.store32"), Some((vec![I32, I64], vec![])));
    assert_eq!(eff("i64.load32_u"), Some((vec![I64], vec![I64]))); // memory 1 is 64-bit
    assert_eq!(eff("call"), Some((vec![I32, I64], vec![F32])));
    assert_eq!(eff("call_indirect"), Some((vec![I32, I64, I32], vec![F32])));
    assert_eq!(eff("i8x16.splat"), Some((vec![I32], vec![V128])));
    assert_eq!(eff("i8x16.shl"), Some((vec![V128, I32], vec![V128])));
    assert_eq!(eff("i8x16.extract_lane_s"), Some((vec![V128], vec![I32])));
    assert_eq!(eff("v128.load32_zero"), Some((vec![I32], vec![V128])));
    assert_eq!(eff("v128.load16_lane"), Some((vec![I32, V128], vec![V128])));
    assert_eq!(eff("local.get"), Some((vec![], vec![I32])));
    assert_eq!(eff("br_if"), Some((vec![I64, I32], vec![I64])));
    // For a store, arg0 is the value and arg1 the address.
    let store = get("i64.store32").1.expect("store");
    assert_eq!(
        (store.arg(0), store.arg(1), store.arg(2)),
        (Some(I64), Some(I32), None)
    );
    // For call f(a, b), arg0 = b.
    let call = get("call").1.expect("call");
    assert_eq!(
        (call.arg(0), call.arg(1), call.result(0)),
        (Some(I64), Some(I32), Some(F32))
    );
    // Without context, context-free instructions still resolve; calls do not.
    assert!(get("i32.add").2.is_some());
    assert!(get("call").2.is_none());
    assert!(get("local.get").2.is_none());
}

#[test]
fn every_context_free_instruction_has_an_effect_without_panicking() {
    // Build one instance of many operators by decoding the SIMD / numeric
    // mnemonics that take no immediates is not possible generically, so check
    // a spread of decoded instructions from a module using many proposals.
    let wat = "(module (memory 1 1 shared) (func (local v128)
        i32.const 0 i32.const 0 i32.atomic.rmw8.add_u drop
        i32.const 0 i64.const 0 i64.const 0 i64.atomic.rmw.cmpxchg drop
        i32.const 0 i32.const 0 memory.atomic.notify drop
        atomic.fence
        local.get 0 local.get 0 local.get 0 v128.bitselect drop
        local.get 0 local.get 0 i16x8.q15mulr_sat_s drop
        local.get 0 i32x4.trunc_sat_f64x2_s_zero drop
        local.get 0 i64x2.all_true drop
        local.get 0 f32x4.demote_f64x2_zero drop))";
    let bytes = wat::parse_str(wat).expect("wat");
    use ValType::*;
    let mut got = Vec::new();
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Ok(Payload::CodeSectionEntry(body)) = payload {
            for op in body.get_operators_reader().expect("ops") {
                let op = op.expect("op");
                let m = opcode_of(&op).mnemonic();
                if !matches!(m, "i32.const" | "i64.const" | "local.get" | "drop" | "end") {
                    got.push((
                        m,
                        stack_effect(&op, &NoContext).map(|e| (e.params, e.results)),
                    ));
                }
            }
        }
    }
    assert_eq!(
        got,
        vec![
            ("i32.atomic.rmw8.add_u", Some((vec![I32, I32], vec![I32]))),
            (
                "i64.atomic.rmw.cmpxchg",
                Some((vec![I32, I64, I64], vec![I64]))
            ),
            ("memory.atomic.notify", Some((vec![I32, I32], vec![I32]))),
            ("atomic.fence", Some((vec![], vec![]))),
            ("v128.bitselect", Some((vec![V128, V128, V128], vec![V128]))),
            ("i16x8.q15mulr_sat_s", Some((vec![V128, V128], vec![V128]))),
            (
                "i32x4.trunc_sat_f64x2_s_zero",
                Some((vec![V128], vec![V128]))
            ),
            ("i64x2.all_true", Some((vec![V128], vec![I32]))),
            ("f32x4.demote_f64x2_zero", Some((vec![V128], vec![V128]))),
        ]
    );
}

/// The typed function references' instructions read the reference's type
/// from the operand stack and labels from the context.
#[test]
fn typed_reference_effects() {
    use monitor_abi::wasmparser::{HeapType, RefType};
    struct Refs;
    impl TypeResolver for Refs {
        fn type_at(&self, idx: u32) -> Option<FuncType> {
            (idx == 0).then(|| FuncType::new([ValType::I32], [ValType::F64]))
        }
        fn operand_type(&self, depth: u32) -> Option<ValType> {
            (depth == 0).then_some(ValType::FUNCREF)
        }
        fn label_types(&self, _depth: u32) -> Option<Vec<ValType>> {
            let func = RefType::new(false, HeapType::FUNC).unwrap();
            Some(vec![ValType::I64, ValType::Ref(func)])
        }
    }
    let non_null = ValType::Ref(RefType::new(false, HeapType::FUNC).unwrap());
    let effect = |op: Operator| stack_effect(&op, &Refs).map(|e| (e.params, e.results));
    use ValType::*;
    let fr = ValType::FUNCREF;
    assert_eq!(
        effect(Operator::CallRef { type_index: 0 }),
        Some((vec![I32, fr], vec![F64]))
    );
    assert_eq!(
        effect(Operator::ReturnCallRef { type_index: 0 }),
        Some((vec![I32, fr], vec![]))
    );
    assert_eq!(
        effect(Operator::RefAsNonNull),
        Some((vec![fr], vec![non_null]))
    );
    // Not taken: br_on_null keeps the (now non-null) reference above the
    // label's values; br_on_non_null drops the null one.
    assert_eq!(
        effect(Operator::BrOnNull { relative_depth: 0 }),
        Some((vec![I64, non_null, fr], vec![I64, non_null, non_null]))
    );
    assert_eq!(
        effect(Operator::BrOnNonNull { relative_depth: 0 }),
        Some((vec![I64, fr], vec![I64]))
    );
    // Without context they are unknown.
    assert_eq!(stack_effect(&Operator::RefAsNonNull, &NoContext), None);
}

/// Exception handling's stack effects: payloads come from the tag's type.
#[test]
fn exception_handling_effects() {
    struct Tags;
    impl TypeResolver for Tags {
        fn tag_type(&self, idx: u32) -> Option<FuncType> {
            (idx == 0).then(|| FuncType::new([ValType::I32, ValType::F64], []))
        }
        fn block_results(&self) -> Option<Vec<ValType>> {
            Some(vec![ValType::I64])
        }
        fn type_at(&self, _idx: u32) -> Option<FuncType> {
            None
        }
    }
    let wat = "(module (tag (param i32 f64))
        (func (result i64)
          (block (result exnref) (try_table (catch_all_ref 0) (throw 0 (i32.const 1) (f64.const 2))) unreachable)
          throw_ref)
        (func (result i64)
          try (result i64) i64.const 1 catch 0 drop drop i64.const 2 catch_all rethrow 0 end)
        (func (result i64)
          try (result i64) i64.const 1 delegate 0))";
    let bytes = wat::parse_str(wat).expect("wat");
    let mut got = Vec::new();
    for payload in Parser::new(0).parse_all(&bytes) {
        if let Ok(Payload::CodeSectionEntry(body)) = payload {
            for op in body.get_operators_reader().expect("ops") {
                let op = op.expect("op");
                let m = opcode_of(&op).mnemonic();
                if [
                    "throw",
                    "throw_ref",
                    "try_table",
                    "try",
                    "catch",
                    "catch_all",
                    "rethrow",
                    "delegate",
                ]
                .contains(&m)
                {
                    got.push((m, stack_effect(&op, &Tags)));
                }
            }
        }
    }
    use ValType::*;
    let fx = |p: Vec<ValType>, r: Vec<ValType>| {
        Some(monitor_abi::stack::StackEffect {
            params: p,
            results: r,
        })
    };
    assert_eq!(
        got,
        vec![
            ("try_table", fx(vec![], vec![])),
            ("throw", fx(vec![I32, F64], vec![])),
            ("throw_ref", fx(vec![ValType::EXNREF], vec![])),
            ("try", fx(vec![], vec![])),
            ("catch", fx(vec![I64], vec![I32, F64])),
            ("catch_all", fx(vec![I64], vec![])),
            ("rethrow", fx(vec![], vec![])),
            ("try", fx(vec![], vec![])),
            ("delegate", fx(vec![I64], vec![I64])),
        ]
    );
}
