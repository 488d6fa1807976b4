fn main() {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("lalrpop grammar");
    // The monitor runtime (src/rt.wat), assembled once at build time.
    println!("cargo:rerun-if-changed=src/rt.wat");
    let src = std::fs::read_to_string("src/rt.wat").expect("src/rt.wat");
    let wasm = wat::parse_str(&src).unwrap_or_else(|e| panic!("src/rt.wat: {e}"));
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("rt.wasm");
    std::fs::write(out, wasm).unwrap();
}
