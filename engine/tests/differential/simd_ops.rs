//! Op-level differential test of SIMD: every v128 instruction (Wasm 2.0 SIMD
//! and relaxed SIMD) in a function of its own, called in `Tier::Int` and
//! `Tier::Jit` with the same operands, drawn lane by lane from edge values
//! (NaNs of both classes and signs with payloads, infinities, signed zeros,
//! subnormals, rounding ties, the float bounds of the integer ranges, integer
//! extremes) and random bits, in every lane width. Results must be bit for
//! bit the same, NaNs included (the interpreter mirrors the NaN bits of
//! Cranelift's x86-64 lowering), except for float add/sub/mul/div, which
//! may propagate the other of two NaN operands: those compare under the
//! harness's rule (`harness::same_value`: a v128 lane may differ only where
//! both sides hold a NaN of the same class). Traps (memory forms with
//! out-of-bounds addresses) must agree in kind and site; the memory, written
//! by the stores, must agree byte for byte.
//!
//! Where the `wasm-smith` modules of the main differential test exercise
//! SIMD in context (control flow, locals, OSR, traps) but rarely show a
//! v128 result, this one checks each operator's semantics on many inputs.

use std::sync::Arc;

use wizeng::{Config, Module, Store, Tier, Trap, Value};

use crate::harness::same_value;

/// Ops taking one v128 and returning one.
const UNARY: &[&str] = &[
    "v128.not",
    "i8x16.abs",
    "i8x16.neg",
    "i8x16.popcnt",
    "i16x8.abs",
    "i16x8.neg",
    "i32x4.abs",
    "i32x4.neg",
    "i64x2.abs",
    "i64x2.neg",
    "i16x8.extadd_pairwise_i8x16_s",
    "i16x8.extadd_pairwise_i8x16_u",
    "i32x4.extadd_pairwise_i16x8_s",
    "i32x4.extadd_pairwise_i16x8_u",
    "i16x8.extend_low_i8x16_s",
    "i16x8.extend_high_i8x16_s",
    "i16x8.extend_low_i8x16_u",
    "i16x8.extend_high_i8x16_u",
    "i32x4.extend_low_i16x8_s",
    "i32x4.extend_high_i16x8_s",
    "i32x4.extend_low_i16x8_u",
    "i32x4.extend_high_i16x8_u",
    "i64x2.extend_low_i32x4_s",
    "i64x2.extend_high_i32x4_s",
    "i64x2.extend_low_i32x4_u",
    "i64x2.extend_high_i32x4_u",
    "f32x4.ceil",
    "f32x4.floor",
    "f32x4.trunc",
    "f32x4.nearest",
    "f32x4.abs",
    "f32x4.neg",
    "f32x4.sqrt",
    "f64x2.ceil",
    "f64x2.floor",
    "f64x2.trunc",
    "f64x2.nearest",
    "f64x2.abs",
    "f64x2.neg",
    "f64x2.sqrt",
    "i32x4.trunc_sat_f32x4_s",
    "i32x4.trunc_sat_f32x4_u",
    "f32x4.convert_i32x4_s",
    "f32x4.convert_i32x4_u",
    "i32x4.trunc_sat_f64x2_s_zero",
    "i32x4.trunc_sat_f64x2_u_zero",
    "f64x2.convert_low_i32x4_s",
    "f64x2.convert_low_i32x4_u",
    "f32x4.demote_f64x2_zero",
    "f64x2.promote_low_f32x4",
    "i32x4.relaxed_trunc_f32x4_s",
    "i32x4.relaxed_trunc_f32x4_u",
    "i32x4.relaxed_trunc_f64x2_s_zero",
    "i32x4.relaxed_trunc_f64x2_u_zero",
];

/// Ops taking two v128s and returning one.
const BINARY: &[&str] = &[
    "i8x16.swizzle",
    "i8x16.relaxed_swizzle",
    "v128.and",
    "v128.andnot",
    "v128.or",
    "v128.xor",
    "i8x16.eq",
    "i8x16.ne",
    "i8x16.lt_s",
    "i8x16.lt_u",
    "i8x16.gt_s",
    "i8x16.gt_u",
    "i8x16.le_s",
    "i8x16.le_u",
    "i8x16.ge_s",
    "i8x16.ge_u",
    "i16x8.eq",
    "i16x8.ne",
    "i16x8.lt_s",
    "i16x8.lt_u",
    "i16x8.gt_s",
    "i16x8.gt_u",
    "i16x8.le_s",
    "i16x8.le_u",
    "i16x8.ge_s",
    "i16x8.ge_u",
    "i32x4.eq",
    "i32x4.ne",
    "i32x4.lt_s",
    "i32x4.lt_u",
    "i32x4.gt_s",
    "i32x4.gt_u",
    "i32x4.le_s",
    "i32x4.le_u",
    "i32x4.ge_s",
    "i32x4.ge_u",
    "i64x2.eq",
    "i64x2.ne",
    "i64x2.lt_s",
    "i64x2.gt_s",
    "i64x2.le_s",
    "i64x2.ge_s",
    "f32x4.eq",
    "f32x4.ne",
    "f32x4.lt",
    "f32x4.gt",
    "f32x4.le",
    "f32x4.ge",
    "f64x2.eq",
    "f64x2.ne",
    "f64x2.lt",
    "f64x2.gt",
    "f64x2.le",
    "f64x2.ge",
    "i8x16.narrow_i16x8_s",
    "i8x16.narrow_i16x8_u",
    "i8x16.add",
    "i8x16.add_sat_s",
    "i8x16.add_sat_u",
    "i8x16.sub",
    "i8x16.sub_sat_s",
    "i8x16.sub_sat_u",
    "i8x16.min_s",
    "i8x16.min_u",
    "i8x16.max_s",
    "i8x16.max_u",
    "i8x16.avgr_u",
    "i16x8.q15mulr_sat_s",
    "i16x8.narrow_i32x4_s",
    "i16x8.narrow_i32x4_u",
    "i16x8.add",
    "i16x8.add_sat_s",
    "i16x8.add_sat_u",
    "i16x8.sub",
    "i16x8.sub_sat_s",
    "i16x8.sub_sat_u",
    "i16x8.mul",
    "i16x8.min_s",
    "i16x8.min_u",
    "i16x8.max_s",
    "i16x8.max_u",
    "i16x8.avgr_u",
    "i16x8.extmul_low_i8x16_s",
    "i16x8.extmul_high_i8x16_s",
    "i16x8.extmul_low_i8x16_u",
    "i16x8.extmul_high_i8x16_u",
    "i16x8.relaxed_q15mulr_s",
    "i16x8.relaxed_dot_i8x16_i7x16_s",
    "i32x4.add",
    "i32x4.sub",
    "i32x4.mul",
    "i32x4.min_s",
    "i32x4.min_u",
    "i32x4.max_s",
    "i32x4.max_u",
    "i32x4.dot_i16x8_s",
    "i32x4.extmul_low_i16x8_s",
    "i32x4.extmul_high_i16x8_s",
    "i32x4.extmul_low_i16x8_u",
    "i32x4.extmul_high_i16x8_u",
    "i64x2.add",
    "i64x2.sub",
    "i64x2.mul",
    "i64x2.extmul_low_i32x4_s",
    "i64x2.extmul_high_i32x4_s",
    "i64x2.extmul_low_i32x4_u",
    "i64x2.extmul_high_i32x4_u",
    "f32x4.add",
    "f32x4.sub",
    "f32x4.mul",
    "f32x4.div",
    "f32x4.min",
    "f32x4.max",
    "f32x4.pmin",
    "f32x4.pmax",
    "f64x2.add",
    "f64x2.sub",
    "f64x2.mul",
    "f64x2.div",
    "f64x2.min",
    "f64x2.max",
    "f64x2.pmin",
    "f64x2.pmax",
    "f32x4.relaxed_min",
    "f32x4.relaxed_max",
    "f64x2.relaxed_min",
    "f64x2.relaxed_max",
];

/// Ops taking three v128s.
const TERNARY: &[&str] = &[
    "v128.bitselect",
    "f32x4.relaxed_madd",
    "f32x4.relaxed_nmadd",
    "f64x2.relaxed_madd",
    "f64x2.relaxed_nmadd",
    "i8x16.relaxed_laneselect",
    "i16x8.relaxed_laneselect",
    "i32x4.relaxed_laneselect",
    "i64x2.relaxed_laneselect",
    "i32x4.relaxed_dot_i8x16_i7x16_add_s",
];

/// v128 -> i32.
const TEST: &[&str] = &[
    "v128.any_true",
    "i8x16.all_true",
    "i8x16.bitmask",
    "i16x8.all_true",
    "i16x8.bitmask",
    "i32x4.all_true",
    "i32x4.bitmask",
    "i64x2.all_true",
    "i64x2.bitmask",
];

/// v128 i32 -> v128.
const SHIFT: &[&str] = &[
    "i8x16.shl",
    "i8x16.shr_s",
    "i8x16.shr_u",
    "i16x8.shl",
    "i16x8.shr_s",
    "i16x8.shr_u",
    "i32x4.shl",
    "i32x4.shr_s",
    "i32x4.shr_u",
    "i64x2.shl",
    "i64x2.shr_s",
    "i64x2.shr_u",
];

/// Lane shapes: (prefix, lane count, scalar type).
const SHAPES: &[(&str, u32, &str)] = &[
    ("i8x16", 16, "i32"),
    ("i16x8", 8, "i32"),
    ("i32x4", 4, "i32"),
    ("i64x2", 2, "i64"),
    ("f32x4", 4, "f32"),
    ("f64x2", 2, "f64"),
];

/// Plain loads (address -> v128).
const LOADS: &[&str] = &[
    "v128.load",
    "v128.load8x8_s",
    "v128.load8x8_u",
    "v128.load16x4_s",
    "v128.load16x4_u",
    "v128.load32x2_s",
    "v128.load32x2_u",
    "v128.load8_splat",
    "v128.load16_splat",
    "v128.load32_splat",
    "v128.load64_splat",
    "v128.load32_zero",
    "v128.load64_zero",
];

/// Lane loads and stores: (name, lane count).
const LANE_MEM: &[(&str, u32)] = &[
    ("v128.load8_lane", 16),
    ("v128.load16_lane", 8),
    ("v128.load32_lane", 4),
    ("v128.load64_lane", 2),
    ("v128.store8_lane", 16),
    ("v128.store16_lane", 8),
    ("v128.store32_lane", 4),
    ("v128.store64_lane", 2),
];

/// Offsets of the memory forms (the memory has one page).
const OFFSETS: [u32; 3] = [0, 3, 65530];

/// Shuffle patterns: identity, reversal, interleave, repeats, all from b.
const SHUFFLES: &[[u8; 16]] = &[
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [
        31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,
    ],
    [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23],
    [7, 7, 7, 7, 0, 0, 0, 0, 31, 31, 16, 16, 8, 9, 10, 11],
    [
        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    ],
    [4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11],
];

/// How a function is called: its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Sig {
    /// (v128 x n)
    V(usize),
    /// (v128, i32)
    VI,
    /// (scalar)
    Scalar(&'static str),
    /// (v128, scalar) for replace_lane
    VScalar(&'static str),
    /// (i32 address)
    Addr,
    /// (i32 address, v128)
    AddrV,
}

/// The test module: one exported function per (op, immediate), with its
/// signature and op name.
fn module_text() -> (String, Vec<(String, Sig, String)>) {
    let mut funcs = Vec::new();
    let mut text = String::from("(module (memory (export \"mem\") 1)\n");
    let mut add = |body: String, params: &str, result: &str, sig: Sig, funcs: &mut Vec<_>| {
        let name = format!("f{}", funcs.len());
        text.push_str(&format!(
            "(func (export \"{name}\") {params} {result} {body})\n"
        ));
        // The op: the body's first dotted word but `local.get`.
        let op = body
            .split([' ', '(', ')'])
            .find(|w| w.contains('.') && *w != "local.get");
        funcs.push((name, sig, op.unwrap_or_default().to_string()));
    };
    let get = |n: usize| {
        (0..n)
            .map(|i| format!("(local.get {i})"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (ops, n) in [(UNARY, 1), (BINARY, 2), (TERNARY, 3)] {
        let params = format!("(param{})", " v128".repeat(n));
        for op in ops {
            add(
                format!("({op} {})", get(n)),
                &params,
                "(result v128)",
                Sig::V(n),
                &mut funcs,
            );
        }
    }
    for op in TEST {
        add(
            format!("({op} (local.get 0))"),
            "(param v128)",
            "(result i32)",
            Sig::V(1),
            &mut funcs,
        );
    }
    for op in SHIFT {
        add(
            format!("({op} {})", get(2)),
            "(param v128 i32)",
            "(result v128)",
            Sig::VI,
            &mut funcs,
        );
    }
    for &(shape, lanes, scalar) in SHAPES {
        add(
            format!("({shape}.splat (local.get 0))"),
            &format!("(param {scalar})"),
            "(result v128)",
            Sig::Scalar(scalar),
            &mut funcs,
        );
        let extracts: &[&str] = if shape.starts_with("i8") || shape.starts_with("i16") {
            &["extract_lane_s", "extract_lane_u"]
        } else {
            &["extract_lane"]
        };
        for lane in 0..lanes {
            for e in extracts {
                add(
                    format!("({shape}.{e} {lane} (local.get 0))"),
                    "(param v128)",
                    &format!("(result {scalar})"),
                    Sig::V(1),
                    &mut funcs,
                );
            }
            add(
                format!("({shape}.replace_lane {lane} {})", get(2)),
                &format!("(param v128 {scalar})"),
                "(result v128)",
                Sig::VScalar(scalar),
                &mut funcs,
            );
        }
    }
    for lanes in SHUFFLES {
        let imm: Vec<String> = lanes.iter().map(|l| l.to_string()).collect();
        add(
            format!("(i8x16.shuffle {} {})", imm.join(" "), get(2)),
            "(param v128 v128)",
            "(result v128)",
            Sig::V(2),
            &mut funcs,
        );
    }
    for offset in OFFSETS {
        for op in LOADS {
            add(
                format!("({op} offset={offset} align=1 (local.get 0))"),
                "(param i32)",
                "(result v128)",
                Sig::Addr,
                &mut funcs,
            );
        }
        add(
            format!("(v128.store offset={offset} align=1 {})", get(2)),
            "(param i32 v128)",
            "",
            Sig::AddrV,
            &mut funcs,
        );
        for &(op, lanes) in LANE_MEM {
            let mut picks = vec![0, lanes / 2 + 1, lanes - 1];
            picks.dedup();
            for lane in picks.into_iter().filter(|&l| l < lanes) {
                let store = op.contains("store");
                add(
                    format!("({op} offset={offset} align=1 {lane} {})", get(2)),
                    "(param i32 v128)",
                    if store { "" } else { "(result v128)" },
                    Sig::AddrV,
                    &mut funcs,
                );
            }
        }
    }
    text.push(')');
    (text, funcs)
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

const F32_EDGES: &[u32] = &[
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x3fc0_0000, // 1.5
    0x4020_0000, // 2.5
    0xc020_0000, // -2.5
    0x3eff_ffff, // 0.49999997
    0x4b00_0001, // 2^23 + 1
    0x7f80_0000, // inf
    0xff80_0000, // -inf
    0x7fc0_0000, // canonical NaN
    0xffc0_0000, // -canonical NaN
    0x7fc1_2345, // quiet NaN with payload
    0xffa0_0001, // -signalling NaN
    0x7f80_0001, // signalling NaN
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // -largest subnormal
    0x7f7f_ffff, // max
    0x4f00_0000, // 2^31
    0xcf00_0000, // -2^31
    0xcf00_0001, // just below -2^31
    0x4eff_ffff, // just below 2^31
    0x4f80_0000, // 2^32
    0x4f7f_ffff, // just below 2^32
    0xbf7f_ffff, // just above -1
];

const F64_EDGES: &[u64] = &[
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x3ff0_0000_0000_0000, // 1
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000, // 0.5
    0x4004_0000_0000_0000, // 2.5
    0xc004_0000_0000_0000,
    0x3fdf_ffff_ffff_ffff, // 0.49999999999999994
    0x7ff0_0000_0000_0000, // inf
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000, // canonical NaN
    0xfff8_0000_0000_0000,
    0x7ff8_dead_beef_0001, // quiet NaN with payload
    0x7ff0_0000_0000_0001, // signalling NaN
    0xfff4_0000_0000_0000, // -signalling NaN
    0x0000_0000_0000_0001, // subnormal
    0x7fef_ffff_ffff_ffff, // max
    0x41e0_0000_0000_0000, // 2^31
    0xc1e0_0000_0000_0000, // -2^31
    0xc1e0_0000_0020_0000, // -2^31 - 1
    0x41df_ffff_ffc0_0000, // 2^31 - 1
    0x41ef_ffff_ffe0_0000, // 2^32 - 1
    0x41f0_0000_0000_0000, // 2^32
    0x47ef_ffff_e000_0000, // f32 max
    0x47ef_ffff_f000_0000, // rounds to f32 inf or max (tie)
    0x3810_0000_0000_0000, // f32 min normal
    0x36a0_0000_0000_0000, // f32 min subnormal
    0x3690_0000_0000_0000, // half of it (ties to 0)
];

const INT_EDGES: &[u64] = &[
    0,
    1,
    2,
    3,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
    15,
    16,
    31,
    0x55,
    0xaa,
];

/// A random v128: lanes of one width from the edge tables or random bits.
fn v128(rng: &mut Rng) -> u128 {
    let (bits, kind) = match rng.next() % 8 {
        0 => (8, 0),
        1 => (16, 0),
        2 | 3 => (32, 1),
        4 | 5 => (64, 2),
        6 => (32, 0),
        _ => (64, 0),
    };
    let mut v = 0u128;
    for i in 0..128 / bits {
        let x = match (rng.next() % 4, kind) {
            (0, _) => rng.next(),
            (_, 1) => u64::from(rng.pick(F32_EDGES)),
            (_, 2) => rng.pick(F64_EDGES),
            _ => {
                let x = rng.pick(INT_EDGES);
                // Also their negations and neighbours.
                match rng.next() % 3 {
                    0 => x,
                    1 => x.wrapping_neg(),
                    _ => x.wrapping_add(1),
                }
            }
        };
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        v |= u128::from(x & mask) << (i * bits);
    }
    v
}

/// An argument for a parameter of type `ty`.
fn scalar(rng: &mut Rng, ty: &str) -> Value {
    match ty {
        "i32" => Value::I32(match rng.next() % 3 {
            0 => rng.next() as i32,
            1 => rng.pick(INT_EDGES) as i32,
            _ => (rng.next() % 200) as i32 - 70,
        }),
        "i64" => Value::I64(if rng.next() % 2 == 0 {
            rng.next() as i64
        } else {
            rng.pick(INT_EDGES) as i64
        }),
        "f32" => Value::F32(if rng.next() % 4 == 0 {
            rng.next() as u32
        } else {
            rng.pick(F32_EDGES)
        }),
        "f64" => Value::F64(if rng.next() % 4 == 0 {
            rng.next()
        } else {
            rng.pick(F64_EDGES)
        }),
        _ => unreachable!("{ty}"),
    }
}

/// A memory address: in bounds, near the end (out of bounds with most
/// widths and offsets), or far out.
fn addr(rng: &mut Rng) -> Value {
    Value::I32(match rng.next() % 4 {
        0 | 1 => (rng.next() % 65536) as i32,
        2 => 65536 - (rng.next() % 24) as i32,
        _ => rng.next() as i32,
    })
}

fn args(rng: &mut Rng, sig: Sig) -> Vec<Value> {
    match sig {
        Sig::V(n) => (0..n).map(|_| Value::V128(v128(rng))).collect(),
        Sig::VI => vec![Value::V128(v128(rng)), scalar(rng, "i32")],
        Sig::Scalar(t) => vec![scalar(rng, t)],
        Sig::VScalar(t) => vec![Value::V128(v128(rng)), scalar(rng, t)],
        Sig::Addr => vec![addr(rng)],
        Sig::AddrV => vec![addr(rng), Value::V128(v128(rng))],
    }
}

/// Whether the tiers may pick different NaNs for `op`: IEEE arithmetic with
/// two NaN operands (which one propagates depends on operand order, and both
/// the interpreter's compiled Rust and Cranelift may commute `add`/`mul`).
/// Every other op (min/max, relaxed madd/nmadd, rounding, conversions...)
/// must give the same bits in both tiers, NaNs included.
fn nan_bits_may_differ(op: &str) -> bool {
    (op.starts_with("f32x4.") || op.starts_with("f64x2."))
        && [".add", ".sub", ".mul", ".div"]
            .iter()
            .any(|s| op.ends_with(s))
}

fn same(op: &str, a: &Result<Vec<Value>, Trap>, b: &Result<Vec<Value>, Trap>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) if !nan_bits_may_differ(op) => x == y,
        (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q)),
        (Err(x), Err(y)) => {
            x.kind == y.kind && x.site.as_ref().map(|s| s.pc) == y.site.as_ref().map(|s| s.pc)
        }
        _ => false,
    }
}

/// Summary of a run: functions, calls (per tier), traps among them, v128
/// results whose bits differed in NaN lanes only.
pub struct Summary {
    pub funcs: usize,
    pub calls: u64,
    pub traps: u64,
    pub nan_lanes: u64,
    /// The ops whose results differed in NaN lanes, with counts.
    pub nan_ops: std::collections::BTreeMap<String, u64>,
}

/// Call every function `cases` times with operands from `seed` in both tiers;
/// Err(the differences, at most 20).
pub fn run(seed: u64, cases: usize) -> Result<Summary, Vec<String>> {
    let (text, funcs) = module_text();
    let wasm = wat::parse_str(&text).expect("the SIMD op module parses");
    let module = Arc::new(Module::new(&wasm).expect("the SIMD op module loads"));
    let mut stores: Vec<(Store, wizeng::InstanceId)> = [Tier::Int, Tier::Jit]
        .into_iter()
        .map(|tier| {
            let mut store = Store::new(Config {
                tier,
                ..Config::default()
            });
            let id = store.instantiate_with(&module, &[]).expect("instantiate");
            (store, id)
        })
        .collect();
    // Memory starts zeroed; the stores (same bits in both tiers) fill it
    // with operands for the loads of later rounds.
    let mut rng = Rng(seed);
    let mut errors = Vec::new();
    let mut summary = Summary {
        funcs: funcs.len(),
        calls: 0,
        traps: 0,
        nan_lanes: 0,
        nan_ops: Default::default(),
    };
    let addrs: Vec<Vec<wizeng::FuncAddr>> = stores
        .iter()
        .map(|(s, id)| {
            funcs
                .iter()
                .map(|(name, _, _)| s.export_func(*id, name).expect("export"))
                .collect()
        })
        .collect();
    for _ in 0..cases {
        for (k, (_, sig, op)) in funcs.iter().enumerate() {
            let a = args(&mut rng, *sig);
            let r: Vec<_> = stores
                .iter_mut()
                .zip(&addrs)
                .map(|((s, _), f)| s.invoke(f[k], &a))
                .collect();
            summary.calls += 1;
            summary.traps += u64::from(r[0].is_err());
            if !same(op, &r[0], &r[1]) {
                if errors.len() < 20 {
                    let op = text.lines().nth(k + 1).unwrap_or(op);
                    errors.push(format!(
                        "{op}\n    args {a:x?}\n    int {:x?}\n    jit {:x?}",
                        r[0], r[1]
                    ));
                }
            } else if let (Ok(x), Ok(y)) = (&r[0], &r[1]) {
                if x != y {
                    summary.nan_lanes += 1;
                    *summary.nan_ops.entry(op.clone()).or_default() += 1;
                }
            }
        }
    }
    let mems: Vec<Vec<u8>> = stores
        .iter()
        .map(|(s, _)| s.memories()[0].data().to_vec())
        .collect();
    if mems[0] != mems[1] {
        let i = (0..mems[0].len())
            .find(|&i| mems[0][i] != mems[1][i])
            .unwrap();
        let (s, e) = (i.saturating_sub(8), (i + 8).min(mems[0].len()));
        errors.push(format!(
            "memory differs at {i:#x}: int {:02x?}, jit {:02x?}",
            &mems[0][s..e],
            &mems[1][s..e]
        ));
    }
    if errors.is_empty() {
        Ok(summary)
    } else {
        Err(errors)
    }
}
