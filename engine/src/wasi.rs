//! WASI preview1 host functions.
