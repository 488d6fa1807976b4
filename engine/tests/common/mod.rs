//! Helpers shared by integration tests (each test file includes this module).

#[allow(dead_code)]
pub mod process;
#[allow(dead_code)]
pub mod suite;
#[allow(dead_code)]
pub mod wast;
