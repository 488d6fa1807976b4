//! The naming rules of the opcode table: a wasmparser operator's text-format
//! mnemonic from its CamelCase name, and its category. Plain `std` code:
//! `build.rs` includes this file too, so that the table's names are computed
//! when the crate is built (`OPCODE_NAMES` in `opcode.rs`), not by every
//! process that loads a monitor; `opcode.rs` checks in its tests that the
//! two agree.

/// First words that are followed by `.` in a mnemonic (rule 2).
const NAMESPACES: &[&str] = &[
    "i32", "i64", "f32", "f64", "v128", "i8x16", "i16x8", "i32x4", "i64x2", "f32x4", "f64x2",
    "local", "global", "memory", "table", "ref", "data", "elem", "struct", "array", "i31", "any",
    "extern", "atomic",
];

/// Substring fix-ups applied after joining (rule 3).
pub(crate) const FIXUPS: &[(&str, &str)] = &[
    ("and_not", "andnot"),
    ("ext_add", "extadd"),
    ("ext_mul", "extmul"),
    ("q15_mulr", "q15mulr"),
    ("p_min", "pmin"),
    ("p_max", "pmax"),
];

/// Whole-name exceptions (rule 4).
pub(crate) const EXCEPTIONS: &[(&str, &str)] = &[
    ("TypedSelect", "select"),
    ("RefTestNonNull", "ref.test"),
    ("RefTestNullable", "ref.test null"),
    ("RefCastNonNull", "ref.cast"),
    ("RefCastNullable", "ref.cast null"),
];

/// Converts a wasmparser CamelCase operator name to its text-format mnemonic
/// using the documented rules. Exposed for tests and tools.
pub fn camel_to_mnemonic(camel: &str) -> String {
    if let Some((_, m)) = EXCEPTIONS.iter().find(|(c, _)| *c == camel) {
        return (*m).to_string();
    }
    // Words start at each uppercase letter; they are compared ignoring case
    // and written lowercased (no allocation per word: this runs for every
    // operator when the table is first used).
    let mut words: Vec<&str> = Vec::with_capacity(8);
    let mut start = 0;
    for (i, b) in camel.bytes().enumerate() {
        if i > 0 && b.is_ascii_uppercase() {
            words.push(&camel[start..i]);
            start = i;
        }
    }
    if !camel.is_empty() {
        words.push(&camel[start..]);
    }
    let is = |w: &str, lower: &str| w.eq_ignore_ascii_case(lower);
    let mut out = String::with_capacity(camel.len() + 4);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            let prev = words[i - 1];
            let dot = (i == 1 && NAMESPACES.iter().any(|n| is(prev, n)))
                || is(prev, "atomic")
                || (prev.get(..3).is_some_and(|p| is(p, "rmw"))
                    && i >= 2
                    && is(words[i - 2], "atomic"));
            out.push(if dot { '.' } else { '_' });
        }
        out.extend(w.chars().map(|c| c.to_ascii_lowercase()));
    }
    // (every fix-up has an `_` and is of a vector instruction, whose
    // namespace is `v128` or a lane shape such as `i16x8`: most mnemonics
    // need no search at all)
    let namespace = out.split('.').next().unwrap_or_default();
    let vector = namespace == "v128" || namespace.contains('x');
    if vector && out.contains('_') {
        for (from, to) in FIXUPS {
            if out.contains(from) {
                out = out.replace(from, to);
            }
        }
    }
    out
}

const CONTROL: &[&str] = &[
    "unreachable",
    "nop",
    "block",
    "loop",
    "if",
    "else",
    "end",
    "br",
    "br_if",
    "br_table",
    "return",
    "call",
    "call_indirect",
    "return_call",
    "return_call_indirect",
    "try_table",
    "throw",
    "throw_ref",
    "try",
    "catch",
    "rethrow",
    "delegate",
    "catch_all",
    "br_on_cast",
    "br_on_cast_fail",
    "call_ref",
    "return_call_ref",
    "br_on_null",
    "br_on_non_null",
];
const VECTOR_PREFIXES: &[&str] = &[
    "v128.", "i8x16.", "i16x8.", "i32x4.", "i64x2.", "f32x4.", "f64x2.",
];

/// The category of mnemonic `m` (of wasmparser's `proposal`), as its id
/// (`Category::id`, the position in `Category::ALL`).
pub fn category_id(proposal: &str, m: &str, has_memarg: bool) -> u8 {
    if proposal == "threads" || proposal == "shared_everything_threads" || m.contains("atomic") {
        return 9 /* atomic */;
    }
    if CONTROL.contains(&m) {
        return 0 /* control */;
    }
    if m == "drop" || m == "select" {
        return 1 /* parametric */;
    }
    if m.starts_with("local.") || m.starts_with("global.") {
        return 2 /* variable */;
    }
    if has_memarg || m.starts_with("memory.") || m == "data.drop" {
        return 4 /* memory */;
    }
    if m.starts_with("table.") || m == "elem.drop" {
        return 3 /* table */;
    }
    if m.starts_with("struct.")
        || m.starts_with("array.")
        || m.starts_with("i31.")
        || m == "ref.i31"
        || m == "ref.i31_shared"
        || m == "any.convert_extern"
        || m == "extern.convert_any"
    {
        return 8 /* aggregate */;
    }
    if m.starts_with("ref.") {
        return 7 /* reference */;
    }
    if VECTOR_PREFIXES.iter().any(|p| m.starts_with(p)) {
        return 6 /* vector */;
    }
    5 /* numeric */
}

/// One operator's row of the opcode table, by the rules above.
pub struct Row {
    pub mnemonic: String,
    /// The probe language's event name: the mnemonic with `_` for ` `.
    pub event: String,
    /// [`category_id`].
    pub category: u8,
    pub has_memarg: bool,
}

/// The row of wasmparser's operator `camel` (of `proposal`, with immediate
/// field names `args`).
pub fn row(proposal: &str, camel: &str, args: &str) -> Row {
    let mnemonic = camel_to_mnemonic(camel);
    let has_memarg = args.split_whitespace().any(|a| a == "memarg");
    let event = mnemonic.replace(' ', "_");
    let category = category_id(proposal, &mnemonic, has_memarg);
    Row {
        mnemonic,
        event,
        category,
        has_memarg,
    }
}
