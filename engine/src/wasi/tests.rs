//! Unit tests of the WASI implementation that don't need the interpreter.
