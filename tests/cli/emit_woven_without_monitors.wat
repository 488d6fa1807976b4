;; args: --monitors= --emit-woven=target/emit_woven_without_monitors.wasm
;; --emit-woven with an empty monitor list is a usage error: nothing to weave.
(module (func (export "_start")))
