;; An exception no handler catches ends the run like a trap (exit 134); the
;; message names the tag (its export name) and where it was thrown.
(module
  (tag $oops (export "oops") (param i32))
  (tag $other)
  (func $thrower (param i32) (throw $oops (local.get 0)))
  (func $middle (call $thrower (i32.const 7)))
  (func (export "_start")
    ;; a handler for another tag does not take it
    (block $h
      (try_table (catch $other $h) (call $middle))))
)
