;; Empty: a monitor with no probes and no exit hook. Running an app with
;; `--monitors=examples/empty.wat` must cost nothing measurable against no
;; `--monitors` at all (same generated code, same speed): matching finds no
;; site, so nothing is woven. scripts/bench-monitors.sh shows it.
(module
  (memory (export "memory") 1)
)
