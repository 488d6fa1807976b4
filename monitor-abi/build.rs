//! Computes the opcode table's names when the crate is built: every
//! wasmparser operator's mnemonic, event name, category and whether it has a
//! memarg, by the rules of `src/names.rs`, written to
//! `$OUT_DIR/opcode_names.rs` as `OPCODE_NAMES` (see `src/opcode.rs`). A
//! process that loads a monitor then builds its table without string work.

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
    let dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(std::path::Path::new(&dir).join("opcode_names.rs"), out)
        .expect("OUT_DIR is writable");
}
