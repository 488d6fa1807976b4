// trace: every call and return, indented by call depth.
//
// `func:entry` prints `> NAME` and `func:exit` prints `< NAME`, indented by
// two spaces per active frame; functions without a name-section name print
// as `func[FID]`. A `return_call*` prints `^ NAME` (the frame is replaced:
// its callee's entry follows one level lower). A trap, `proc_exit` or an
// exception leaves frames without a return line; `wasm:exit` says how many.
//
// The lines are written while the app runs, interleaved with its output;
// `trace{file=PATH}` sends them to a file. `trace{instrs}` (the same as
// the `trace-instrs` monitor) also prints every instruction.
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

wasm:exit {
    if depth > 0 {
        println("trace: {} frame(s) left without returning", depth);
    }
}
