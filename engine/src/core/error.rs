//! Typed errors of the engine library. The CLI maps each to an exit status.

use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// The file could not be read.
    Io,
    /// The bytes are not a well-formed module (decoding failed).
    Malformed,
    /// Well-formed but does not validate.
    Invalid,
    /// Valid, but needs a feature this engine does not implement.
    Unsupported,
    /// A monitor's probe could not be bound to a site of the application.
    MonitorBind,
}

/// A module could not be loaded: decode, validation or unsupported feature.
#[derive(Clone, Debug, thiserror::Error)]
pub struct LoadError {
    pub kind: LoadErrorKind,
    /// Byte offset in the module where the problem was found.
    pub offset: Option<usize>,
    pub message: String,
}

impl LoadError {
    pub(crate) fn from_parser(e: wasmparser::BinaryReaderError) -> LoadError {
        // wasmparser does not distinguish malformed from invalid in its type; its
        // decoding errors are the ones produced before validation rules apply.
        let msg = e.message().to_string();
        let kind = if is_malformed_message(&msg) {
            LoadErrorKind::Malformed
        } else {
            LoadErrorKind::Invalid
        };
        LoadError {
            kind,
            offset: Some(e.offset()),
            message: msg,
        }
    }
}

fn is_malformed_message(msg: &str) -> bool {
    const MARKERS: &[&str] = &[
        "unexpected end",
        "malformed",
        "magic header",
        "unknown binary version",
        "invalid leb",
        "integer representation too long",
        "integer too large",
        "section size mismatch",
        "unexpected content after last section",
        "out of bounds",
        "invalid utf-8",
        "too many locals",
        "function and code section have inconsistent lengths",
        "data count and data section have inconsistent lengths",
        "section out of order",
        "invalid section",
        "illegal opcode",
        "unknown ",
        "zero byte expected",
        "data count section required",
    ];
    MARKERS.iter().any(|m| msg.contains(m))
}

impl From<wasmparser::BinaryReaderError> for LoadError {
    fn from(e: wasmparser::BinaryReaderError) -> LoadError {
        LoadError::from_parser(e)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            LoadErrorKind::Io => "load error",
            LoadErrorKind::Malformed => "malformed module",
            LoadErrorKind::Invalid => "invalid module",
            LoadErrorKind::Unsupported => "unsupported module",
            LoadErrorKind::MonitorBind => "monitor bind error",
        };
        match self.offset {
            Some(o) => write!(f, "{what}: {} (at byte offset 0x{o:x})", self.message),
            None => write!(f, "{what}: {}", self.message),
        }
    }
}

/// Linking failed: an import could not be resolved or has the wrong type.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LinkError {
    #[error("unknown import: {module}.{name} ({kind}) is not provided")]
    UnknownImport {
        module: String,
        name: String,
        kind: crate::core::types::ExternKind,
    },
    #[error("incompatible import type for {module}.{name}: {detail}")]
    IncompatibleImport {
        module: String,
        name: String,
        detail: String,
    },
}

/// Why execution trapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TrapKind {
    Unreachable,
    MemoryOutOfBounds,
    TableOutOfBounds,
    /// call_indirect through a null table entry.
    UninitializedElement,
    /// call_indirect with an index beyond the table.
    UndefinedElement,
    IndirectCallTypeMismatch,
    IntegerDivideByZero,
    IntegerOverflow,
    InvalidConversionToInteger,
    CallStackExhausted,
    NullReference,
    /// `call_ref`/`return_call_ref` of a null reference.
    NullFunctionReference,
    /// An atomic access at an address that is not a multiple of its size.
    UnalignedAtomic,
    /// `memory.atomic.wait` on a memory that is not shared.
    WaitOnUnsharedMemory,
    /// `memory.atomic.wait` with an infinite timeout whose value matched: in
    /// a single-threaded store nothing can ever notify it.
    WaitForever,
    /// Wasm GC: a struct, array or i31 access through null.
    NullStructReference,
    NullArrayReference,
    NullI31Reference,
    /// `ref.cast` of a value not of the target type.
    CastFailure,
    /// An array index or range beyond the array's length.
    ArrayOutOfBounds,
    /// An allocation larger than the engine allows.
    OutOfMemory,
    /// A Wasm exception (exception handling) that no handler caught. While
    /// it propagates, `Trap`s of this kind carry it between frames and
    /// tiers; no other trap is ever caught by a handler.
    Exception(Exception),
    /// A host function failed.
    Host(String),
    /// `proc_exit` (or an equivalent) asked the program to end with this status.
    Exit(i32),
}

impl fmt::Display for TrapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrapKind::Unreachable => f.write_str("unreachable"),
            TrapKind::MemoryOutOfBounds => f.write_str("out of bounds memory access"),
            TrapKind::TableOutOfBounds => f.write_str("out of bounds table access"),
            TrapKind::UninitializedElement => f.write_str("uninitialized element"),
            TrapKind::UndefinedElement => f.write_str("undefined element"),
            TrapKind::IndirectCallTypeMismatch => f.write_str("indirect call type mismatch"),
            TrapKind::IntegerDivideByZero => f.write_str("integer divide by zero"),
            TrapKind::IntegerOverflow => f.write_str("integer overflow"),
            TrapKind::InvalidConversionToInteger => f.write_str("invalid conversion to integer"),
            TrapKind::CallStackExhausted => f.write_str("call stack exhausted"),
            TrapKind::NullReference => f.write_str("null reference"),
            TrapKind::NullFunctionReference => f.write_str("null function reference"),
            TrapKind::UnalignedAtomic => f.write_str("unaligned atomic"),
            TrapKind::WaitOnUnsharedMemory => {
                f.write_str("expected shared memory (memory.atomic.wait on an unshared memory)")
            }
            TrapKind::WaitForever => f.write_str(
                "memory.atomic.wait with an infinite timeout would never return \
                 (a single-threaded store has no notifier)",
            ),
            TrapKind::NullStructReference => f.write_str("null structure reference"),
            TrapKind::NullArrayReference => f.write_str("null array reference"),
            TrapKind::NullI31Reference => f.write_str("null i31 reference"),
            TrapKind::CastFailure => f.write_str("cast failure"),
            TrapKind::ArrayOutOfBounds => f.write_str("out of bounds array access"),
            TrapKind::OutOfMemory => f.write_str("allocation too large"),
            TrapKind::Exception(e) => write!(f, "uncaught exception: tag {}", e.tag),
            TrapKind::Host(m) => f.write_str(m),
            TrapKind::Exit(c) => write!(f, "exit with status {c}"),
        }
    }
}

/// A thrown exception: the exception object's slot (what an `exnref` holds:
/// `core::refs::object` of its heap handle) and its tag, described for messages (its import or export
/// name, else its index and module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exception {
    pub exn: u32,
    pub tag: String,
}

/// Where a trap happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrapSite {
    /// Function index in its module's function index space.
    pub func: u32,
    /// Function name (name section or `func[N]`).
    pub func_name: String,
    /// Byte offset of the instruction in the original function body (monitor ABI pc).
    pub pc: u32,
}

/// A trap: a kind and, when it happened in Wasm code, the site.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Trap {
    pub kind: TrapKind,
    pub site: Option<TrapSite>,
}

impl Trap {
    pub fn new(kind: TrapKind) -> Trap {
        Trap { kind, site: None }
    }
    pub fn host(msg: impl Into<String>) -> Trap {
        Trap::new(TrapKind::Host(msg.into()))
    }
    pub fn exit(code: i32) -> Trap {
        Trap::new(TrapKind::Exit(code))
    }
    /// The exception this "trap" carries, if it is a thrown exception.
    pub fn exception(&self) -> Option<&Exception> {
        match &self.kind {
            TrapKind::Exception(e) => Some(e),
            _ => None,
        }
    }
    /// The exit status if this "trap" is a requested program exit.
    pub fn exit_code(&self) -> Option<i32> {
        match self.kind {
            TrapKind::Exit(c) => Some(c),
            _ => None,
        }
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        // An exception's site is where it was (last) thrown.
        let thrown = if self.exception().is_some() {
            ", thrown"
        } else {
            ""
        };
        if let Some(s) = &self.site {
            if s.func_name == format!("func[{}]", s.func) {
                write!(f, "{thrown} in func[{}] at pc 0x{:x}", s.func, s.pc)?;
            } else {
                write!(
                    f,
                    "{thrown} in {} (func {}) at pc 0x{:x}",
                    s.func_name, s.func, s.pc
                )?;
            }
        }
        Ok(())
    }
}

/// Instantiation failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum InstantiateError {
    #[error(transparent)]
    Link(#[from] LinkError),
    /// A segment initialisation or the start function trapped.
    #[error("{0}")]
    Trap(#[from] Trap),
}
