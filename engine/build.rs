fn main() {
    println!("cargo:rerun-if-changed=src/jit/trap_catch.c");
    cc::Build::new()
        .file("src/jit/trap_catch.c")
        .warnings(true)
        .compile("wizeng_trap_catch");
}
