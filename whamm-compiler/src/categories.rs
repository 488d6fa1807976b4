//! whamm's instruction categories, as its `category_name` and
//! `category_id` bind them (docs/probe-language.md#instruction-categories):
//! finer than the specification's sections the engine reports use
//! (`monitor_abi::opcode::Category`), with constants, comparisons and
//! conversions apart from arithmetic, and loads, stores and other memory
//! instructions apart.

use monitor_abi::opcode::{Category, Opcode};

/// The categories in id order (`category_id` is the position).
pub const NAMES: [&str; 17] = [
    "arith", "atomic", "compare", "const", "control", "convert", "exn", "gc", "global", "load",
    "local", "memory", "misc", "ref", "simd", "store", "table",
];

/// The category of an instruction: (id, name).
pub fn of(op: Opcode) -> (u32, &'static str) {
    let name = name_of(op);
    let id = NAMES.iter().position(|n| *n == name).unwrap_or(0);
    (id as u32, name)
}

fn name_of(op: Opcode) -> &'static str {
    let m = op.mnemonic();
    match op.category() {
        Category::Atomic => return "atomic",
        Category::Vector => return "simd",
        Category::Aggregate => return "gc",
        _ => {}
    }
    if op.has_memarg() && m.starts_with("v128.") {
        return "simd";
    }
    match m {
        "unreachable" | "nop" | "drop" => return "misc",
        "select" | "try_table" => return "control",
        "throw" | "throw_ref" | "try" | "catch" | "catch_all" | "rethrow" | "delegate" => {
            return "exn"
        }
        "ref.as_non_null" => return "convert",
        "data.drop" => return "memory",
        "elem.drop" => return "table",
        _ => {}
    }
    let (ns, op_name) = m.split_once('.').unwrap_or(("", m));
    match ns {
        "local" => "local",
        "global" => "global",
        "table" => "table",
        "memory" => "memory",
        "ref" => "gc",
        "i32" | "i64" | "f32" | "f64" => numeric(op, op_name),
        _ => "control",
    }
}

/// Scalar numeric instructions and scalar loads and stores.
fn numeric(op: Opcode, name: &str) -> &'static str {
    if op.has_memarg() {
        return if name.starts_with("store") {
            "store"
        } else {
            "load"
        };
    }
    const COMPARE: [&str; 14] = [
        "eqz", "eq", "ne", "lt", "lt_s", "lt_u", "gt", "gt_s", "gt_u", "le", "le_s", "le_u", "ge",
        "ge_s",
    ];
    const CONVERT: [&str; 6] = [
        "wrap",
        "extend",
        "convert",
        "demote",
        "promote",
        "reinterpret",
    ];
    if name == "const" {
        "const"
    } else if COMPARE.contains(&name) || name == "ge_u" {
        "compare"
    } else if CONVERT.iter().any(|c| name.starts_with(c)) || name.starts_with("trunc_") {
        "convert"
    } else {
        "arith"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat(m: &str) -> &'static str {
        of(Opcode::from_mnemonic(m).unwrap()).1
    }

    #[test]
    fn whamm_categories() {
        for (m, c) in [
            ("i32.add", "arith"),
            ("f32.trunc", "arith"),
            ("i32.trunc_f32_s", "convert"),
            ("i64.trunc_sat_f64_u", "convert"),
            ("i32.extend8_s", "convert"),
            ("i64.eqz", "compare"),
            ("f64.ge", "compare"),
            ("i32.const", "const"),
            ("i64.load32_u", "load"),
            ("f64.store", "store"),
            ("memory.grow", "memory"),
            ("data.drop", "memory"),
            ("local.tee", "local"),
            ("global.get", "global"),
            ("br_table", "control"),
            ("select", "control"),
            ("call_ref", "control"),
            ("drop", "misc"),
            ("throw", "exn"),
            ("ref.func", "gc"),
            ("ref.as_non_null", "convert"),
            ("struct.get", "gc"),
            ("table.get", "table"),
            ("i32.atomic.rmw.add", "atomic"),
            ("v128.load", "simd"),
            ("i32x4.add", "simd"),
        ] {
            assert_eq!(cat(m), c, "{m}");
        }
        assert_eq!(of(Opcode::from_mnemonic("i32.add").unwrap()).0, 0);
        assert_eq!(of(Opcode::from_mnemonic("local.get").unwrap()).0, 10);
    }
}
