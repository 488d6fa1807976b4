fn main() {
    build_monitors();
    cranelift_version();
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

/// `WIZENG_CRANELIFT_VERSION`: the version of cranelift-codegen in the
/// workspace's lock file (part of the JIT's trampoline cache key; "unknown"
/// without one).
fn cranelift_version() {
    let lock =
        std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let version = text
        .split("[[package]]")
        .find(|p| p.contains("name = \"cranelift-codegen\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map_or("unknown", |v| v.trim_matches('"'));
    println!("cargo:rustc-env=WIZENG_CRANELIFT_VERSION={version}");
}

/// The built-in monitors (`monitors/NAME.mm` at the repository root),
/// compiled with our whamm compiler into `OUT_DIR/NAME.wasm`, and
/// `OUT_DIR/builtin_monitors.rs`, the table `monitor/builtin.rs` includes:
/// `(name, one-line help, the script's source, the module's bytes)`.
fn build_monitors() {
    use std::fmt::Write as _;
    let dir =
        std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("../monitors");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mm"))
        .collect();
    // By name (`trace` before `trace-instrs`).
    scripts.sort_by(|a, b| a.file_stem().cmp(&b.file_stem()));
    let mut table = String::from("&[\n");
    for path in scripts {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(&path).unwrap();
        let opts = whamm_compiler::codegen::Options {
            report_layout: true,
            ..Default::default()
        };
        let bytes = match whamm_compiler::build(&src, &opts) {
            Ok((bytes, _)) => bytes,
            Err(diags) => {
                let shown = path.display().to_string();
                panic!("{}", whamm_compiler::diag::render(&shown, &src, &diags));
            }
        };
        let wasm = out.join(format!("{name}.wasm"));
        std::fs::write(&wasm, bytes).unwrap();
        // The help line: the first comment line, `// NAME: what it reports`.
        let help = src
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// "))
            .and_then(|l| l.split_once(": "))
            .map(|(_, h)| h.trim_end_matches(['.', ',']).to_string())
            .unwrap_or_default();
        writeln!(
            table,
            "    ({name:?}, {help:?}, include_str!({:?}), include_bytes!({:?})),",
            path.canonicalize().unwrap().display(),
            wasm.display()
        )
        .unwrap();
    }
    table.push(']');
    std::fs::write(out.join("builtin_monitors.rs"), table).unwrap();
}
