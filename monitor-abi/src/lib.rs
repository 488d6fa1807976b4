//! The monitor ABI: export-name grammar, events, parameter kinds, opcode names, provided imports.
