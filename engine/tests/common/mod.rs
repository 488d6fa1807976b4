//! Helpers shared by integration tests (each test file includes this module).

pub mod suite;
#[allow(dead_code)]
pub mod wast;
