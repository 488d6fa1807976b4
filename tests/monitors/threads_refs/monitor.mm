// Counts the executions of each atomic and typed-reference instruction site.
wasm:opcode:*atomic*:before {
    report unshared var atomic: u64;
    atomic++;
}
wasm:opcode:call_ref:before {
    report unshared var call_ref: u64;
    call_ref++;
}
wasm:opcode:return_call_ref:before {
    report unshared var return_call_ref: u64;
    return_call_ref++;
}
wasm:opcode:br_on_null:before {
    report unshared var br_on_null: u64;
    br_on_null++;
}
wasm:opcode:br_on_non_null:before {
    report unshared var br_on_non_null: u64;
    br_on_non_null++;
}
wasm:opcode:ref.as_non_null:before {
    report unshared var as_non_null: u64;
    as_non_null++;
}
