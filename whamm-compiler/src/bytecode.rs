//! whamm's `bytecode` bound variable: the bytes that identify an
//! instruction in the binary format, as a number: the opcode byte, or for a
//! prefixed instruction the prefix byte times 256 plus its sub-opcode
//! (`memory.copy`, 0xFC 10, is 0xFC0A).
//!
//! It is the monitor ABI's binary opcode (`monitor_abi::binary_opcode`,
//! derived from the decoder when that crate is built) written in 16 bits.

use monitor_abi::opcode::Opcode;

/// `bytecode` of an instruction (`None` for one the decoder never yields).
/// A SIMD sub-opcode above 255 does not fit whamm's `u16`: the value keeps
/// its low 16 bits.
pub fn of(op: Opcode) -> Option<u32> {
    let code = op.binary_opcode()?;
    Some(match code >> 16 {
        0 => code,
        prefix => (prefix << 8 | (code & 0xFFFF)) & 0xFFFF,
    })
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
