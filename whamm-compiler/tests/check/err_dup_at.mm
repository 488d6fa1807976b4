// `dup_at` takes (memory id, address) and applies only to bulk memory
// instructions.
use whamm_core;
wasm:opcode:memory.copy:before {
    dup_at(memid(whamm_core));
}
