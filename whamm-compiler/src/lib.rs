//! The whamm probe-script compiler.
