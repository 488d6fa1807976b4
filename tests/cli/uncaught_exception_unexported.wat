;; An uncaught exception of a tag with no import or export name: the tag's
;; index and the module's name; rethrown by the legacy `rethrow`, it is
;; reported where it was last thrown.
(module $app
  (tag $a)
  (tag $b (param i64))
  (func $raise (throw $b (i64.const 1)))
  (func (export "_start")
    try
      (call $raise)
    catch_all
      rethrow 0
    end)
)
