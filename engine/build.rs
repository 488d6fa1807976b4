fn main() {
    // The interpreter's handlers tail-call each other (`interp/hot.rs`); that
    // needs LLVM's sibling-call optimisation, which runs when optimising, on
    // targets known to lower it. Elsewhere they return to a dispatch loop.
    println!("cargo:rustc-check-cfg=cfg(wizeng_tail_calls)");
    println!("cargo:rerun-if-env-changed=OPT_LEVEL");
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if matches!(opt.as_str(), "2" | "3" | "s" | "z")
        && matches!(arch.as_str(), "x86_64" | "aarch64")
    {
        println!("cargo:rustc-cfg=wizeng_tail_calls");
    }
    // The JIT tiers (Cranelift code, our signal handling and `trap_catch.c`)
    // are built for x86-64 Linux; elsewhere the engine is the interpreter.
    println!("cargo:rustc-check-cfg=cfg(wizeng_jit)");
    // WIZENG_NO_JIT=1 builds the interpreter-only engine here too (to test it).
    println!("cargo:rerun-if-env-changed=WIZENG_NO_JIT");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let no_jit = std::env::var("WIZENG_NO_JIT").is_ok_and(|v| v == "1");
    if arch != "x86_64" || os != "linux" || no_jit {
        return;
    }
    println!("cargo:rustc-cfg=wizeng_jit");
    println!("cargo:rerun-if-changed=src/exec/jit/trap_catch.c");
    cc::Build::new()
        .file("src/exec/jit/trap_catch.c")
        .warnings(true)
        .compile("wizeng_trap_catch");
}
