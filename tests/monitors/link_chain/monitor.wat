;; Libraries listed in any order: `first` imports from `second`, which comes
;; after it on the command line, and also uses WASI (fd_write, args_sizes_get).
(module
  (import "first" "count" (func $count (param i32)))
  (import "first" "report" (func $report))
  (func (export "wasm:opcode:br_if(fid)") (param i32) (call $count (local.get 0)))
  (export "wasm:exit" (func $report)))
