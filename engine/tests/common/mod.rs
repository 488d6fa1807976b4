//! Helpers shared by integration tests (each test file includes this module).

pub mod suite;
