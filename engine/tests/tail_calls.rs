//! The interpreter's op handlers (`interp/hot.rs`) must dispatch the next op
//! with a tail call (a `jmp`), never a `call`: a handler that calls its
//! successor grows the host stack with every op it runs and overflows it in
//! a long loop. LLVM's sibling-call optimisation is what turns `return
//! handler(...)` into a jump, and a change to a handler (an argument that no
//! longer fits in registers, a local whose address escapes) can silently
//! turn it off. This test disassembles the `wizeng` binary and checks every
//! handler. It reads x86_64 disassembly, so it exists only on x86_64, and it
//! needs `objdump` (Debian's binutils, which the C toolchain brings): without
//! it the test fails rather than passing unchecked.
#![cfg(target_arch = "x86_64")]

use std::process::Command;

#[test]
fn interpreter_handlers_dispatch_by_jump() {
    let exe = env!("CARGO_BIN_EXE_wizeng");
    let out = match Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-C", exe])
        .output()
    {
        Ok(o) if o.status.success() => o,
        Ok(o) => panic!(
            "objdump -d {exe} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("objdump is needed for this check (apt-get install binutils): {e}"),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut handlers = 0;
    let mut bad = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        // A symbol header: `0000000000265520 <wizeng::exec::interp::hot::floats::h_F64Add3>`
        // (handlers are in one module per group under `hot`; `h_cold` is in `hot`).
        if let Some(start) = line.find(" <") {
            if line.ends_with(">:") {
                let name = &line[start + 2..line.len() - 2];
                current = name
                    .strip_prefix("wizeng::exec::interp::hot::")
                    .map(|rest| rest.rsplit_once("::").map_or(rest, |(_, f)| f))
                    .and_then(|f| f.strip_prefix("h_"))
                    .map(|n| n.to_string());
                if current.is_some() {
                    handlers += 1;
                }
                continue;
            }
        }
        let Some(name) = &current else { continue };
        // An indirect call through a register or the handler table
        // (`call *%r11`, `call *(%r10,%rax,8)`) is a dispatch that did not
        // become a jump. Direct calls and calls through the GOT
        // (`call *0x...(%rip)`: libm, panics) are fine.
        if line.contains("\tcall") && line.contains('*') && !line.contains("(%rip)") {
            bad.push(format!("{name}: {}", line.trim()));
        }
    }
    assert!(
        handlers > 200,
        "found only {handlers} interpreter handlers in {exe}; did the symbol names change?"
    );
    assert!(
        bad.is_empty(),
        "interpreter handlers that call their successor instead of jumping to it:\n{}",
        bad.join("\n")
    );
    eprintln!("{handlers} interpreter handlers, all dispatch by jump");
}
