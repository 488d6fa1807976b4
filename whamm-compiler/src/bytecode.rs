//! whamm's `bytecode` bound variable: the bytes that identify an
//! instruction in the binary format, as a number: the opcode byte, or for a
//! prefixed instruction the prefix byte times 256 plus its sub-opcode
//! (`memory.copy`, 0xFC 10, is 0xFC0A).
//!
//! The table is derived by decoding every one- and two-part opcode with
//! wasmparser (immediates read as zero bytes), so it follows the decoder
//! rather than a hand-written list.

use monitor_abi::opcode::{opcode_of, Opcode};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The prefix bytes of the multi-byte opcodes (GC, misc/bulk, SIMD, threads).
const PREFIXES: [u8; 4] = [0xFB, 0xFC, 0xFD, 0xFE];

/// `bytecode` of an instruction (`None` for one the decoder never yields).
/// A SIMD sub-opcode above 255 does not fit whamm's `u16`: the value keeps
/// its low 16 bits.
pub fn of(op: Opcode) -> Option<u32> {
    table().get(&op.index()).copied()
}

fn table() -> &'static HashMap<u16, u32> {
    static TABLE: OnceLock<HashMap<u16, u32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = HashMap::new();
        for b in 0..=0xFFu8 {
            if PREFIXES.contains(&b) {
                for sub in 0..0x200u32 {
                    let mut bytes = vec![b];
                    leb(sub, &mut bytes);
                    if let Some(op) = decode(&bytes) {
                        t.entry(op.index())
                            .or_insert((u32::from(b) << 8 | sub) & 0xFFFF);
                    }
                }
            } else if let Some(op) = decode(&[b]) {
                t.entry(op.index()).or_insert(u32::from(b));
            }
        }
        t
    })
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

/// The instruction these opcode bytes start, followed by zero immediates.
fn decode(opcode: &[u8]) -> Option<Opcode> {
    let mut bytes = opcode.to_vec();
    bytes.extend([0u8; 24]);
    let mut r = wasmparser::BinaryReader::new(&bytes, 0);
    r.set_features(wasmparser::WasmFeatures::all());
    let op = r.read_operator().ok()?;
    Some(opcode_of(&op))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        for (m, b) in [
            ("unreachable", 0x00),
            ("block", 0x02),
            ("local.get", 0x20),
            ("i64.eq", 0x51),
            ("i32.const", 0x41),
            ("end", 0x0B),
            ("i32.trunc_sat_f32_s", 0xFC00),
            ("memory.copy", 0xFC0A),
            ("ref.test", 0xFB14),
            ("memory.atomic.notify", 0xFE00),
        ] {
            assert_eq!(of(Opcode::from_mnemonic(m).unwrap()), Some(b), "{m}");
        }
    }
}
