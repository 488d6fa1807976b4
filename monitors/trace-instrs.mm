// trace-instrs: every call, return and instruction, indented by call depth.
//
// The `trace` monitor (see monitors/trace.mm) plus a line per executed
// instruction: `+PC MNEMONIC` at the depth of its function's frame.
// `trace{instrs}` selects it.
var depth: u32;

fn indent() {
    for (var i: u32 = 0; i < depth; i++) {
        print("  ");
    }
}

wasm:func:entry / fname.len() > 0 / {
    indent();
    println("> {}", fname);
    depth++;
}

wasm:func:entry / fname.len() == 0 / {
    indent();
    println("> func[{}]", fid);
    depth++;
}

wasm:func:exit / fname.len() > 0 / {
    if depth > 0 { depth--; }
    indent();
    println("< {}", fname);
}

wasm:func:exit / fname.len() == 0 / {
    if depth > 0 { depth--; }
    indent();
    println("< func[{}]", fid);
}

wasm:opcode:return_call|return_call_indirect|return_call_ref:before {
    if depth > 0 { depth--; }
    indent();
    if fname.len() > 0 {
        println("^ {}", fname);
    } else {
        println("^ func[{}]", fid);
    }
}

wasm:opcode:*:before {
    indent();
    println("+{} {}", pc, opname);
}

wasm:exit {
    if depth > 0 {
        println("trace: {} frame(s) left without returning", depth);
    }
}
