//! Computes the opcode table's names when the crate is built: every
//! wasmparser operator's mnemonic, event name, category and whether it has a
//! memarg, by the rules of `src/names.rs`, written to
//! `$OUT_DIR/opcode_names.rs` as `OPCODE_NAMES` (see `src/opcode.rs`). A
//! process that loads a monitor then builds its table without string work.
//!
//! Also each operator's binary opcode (`OPCODE_CODES`, the `opcode` param of
//! docs/monitor-abi.md): found by decoding every one-byte opcode and every
//! prefixed one (sub-opcodes below 0x200) with this wasmparser, so it follows
//! the decoder rather than a hand-written list.

use std::fmt::Write as _;

#[path = "src/names.rs"]
#[allow(dead_code)]
mod names;

macro_rules! list_operators {
    ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* $(,)? })? => $visit:ident )*) => {
        /// `(proposal, CamelCase name, immediate field names)` in wasmparser's order.
        const OPERATORS: &[(&str, &str, &str)] = &[
            $( (stringify!($proposal), stringify!($op), stringify!($($($arg)*)?)), )*
        ];
    };
}

wasmparser::for_each_operator!(list_operators);

macro_rules! define_operator_index {
    ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* $(,)? })? => $visit:ident )*) => {
        #[allow(dead_code, clippy::enum_variant_names)]
        enum OpIndex { $($op,)* }

        /// The operator's index in wasmparser's order (as `OPERATORS`).
        fn operator_index(op: &wasmparser::Operator<'_>) -> usize {
            match op {
                $( wasmparser::Operator::$op { .. } => OpIndex::$op as usize, )*
            }
        }
    };
}

wasmparser::for_each_operator!(define_operator_index);

/// The prefix bytes of the multi-byte opcodes (GC, misc/bulk, SIMD, threads).
const PREFIXES: [u8; 4] = [0xFB, 0xFC, 0xFD, 0xFE];

/// The operator these opcode bytes start: first followed by zero bytes as
/// immediates, else by a one-type vector (`select t` needs exactly one).
fn decode(opcode: &[u8]) -> Option<usize> {
    for tail in [&[][..], &[1, 0x7F][..]] {
        let mut bytes = opcode.to_vec();
        bytes.extend_from_slice(tail);
        bytes.extend([0u8; 24]);
        let mut r = wasmparser::BinaryReader::new(&bytes, 0);
        r.set_features(wasmparser::WasmFeatures::all());
        if let Ok(op) = r.read_operator() {
            return Some(operator_index(&op));
        }
    }
    None
}

fn leb(mut v: u32, out: &mut Vec<u8>) {
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Per operator, its opcode: the byte, or prefix * 0x10000 + sub-opcode;
/// `u32::MAX` if no encoding decodes to it.
fn opcode_codes() -> Vec<u32> {
    let mut codes = vec![u32::MAX; OPERATORS.len()];
    let mut set = |i: usize, code: u32| {
        if codes[i] == u32::MAX {
            codes[i] = code;
        }
    };
    for b in 0..=0xFFu8 {
        if PREFIXES.contains(&b) {
            for sub in 0..0x200u32 {
                let mut bytes = vec![b];
                leb(sub, &mut bytes);
                if let Some(i) = decode(&bytes) {
                    set(i, u32::from(b) << 16 | sub);
                }
            }
        } else if let Some(i) = decode(&[b]) {
            set(i, u32::from(b));
        }
    }
    codes
}

fn main() {
    println!("cargo:rerun-if-changed=src/names.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let mut out = String::from(
        "/// `(mnemonic, event name, category id, has a memarg)` per wasmparser operator.\n\
         static OPCODE_NAMES: &[(&str, &str, u8, bool)] = &[\n",
    );
    for (proposal, camel, args) in OPERATORS {
        let names::Row {
            mnemonic,
            event,
            category,
            has_memarg,
        } = names::row(proposal, camel, args);
        writeln!(
            out,
            "    ({mnemonic:?}, {event:?}, {category}, {has_memarg}),"
        )
        .unwrap();
    }
    out.push_str("];\n");
    out.push_str(
        "/// The binary opcode per wasmparser operator (`u32::MAX`: none).\n\
         static OPCODE_CODES: &[u32] = &[\n",
    );
    for code in opcode_codes() {
        writeln!(out, "    {code:#x},").unwrap();
    }
    out.push_str("];\n");
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(std::path::Path::new(&dir).join("opcode_names.rs"), out)
        .expect("OUT_DIR is writable");
}
