// `probe_id` (a small static id per site) and `use dyninstr;` without
// `--lib`, which names the engine's `whamm:dyninstr` module. As in Wizard,
// static and dynamic probe ids share one space: remove_probe(probe_id)
// detaches this static probe, so it fires once (the br_if runs 5 times;
// docs/monitor-abi.md#dynamic-probes).
use dyninstr;

wasm:opcode:br_if:before {
    report unshared var fired: u32;
    report unshared var id_seen: bool;
    fired++;
    id_seen = probe_id < 1000;
    dyninstr.remove_probe(probe_id);
}
