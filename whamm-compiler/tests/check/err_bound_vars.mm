wasm:opcode:call:before {
    var a: u32 = arg0;
    var b: str = fname;
    var c: u32 = effective_addr;
}
wasm:opcode:*:before { var x: u64 = effective_addr; }
wasm:opcode:call:before { var r: u32 = res0; }
wasm:opcode:i32.load|i64.store:before { var w: bool = is_write; var z: u32 = num_targets; }
wasm:func:entry { var o: str = opname; }
