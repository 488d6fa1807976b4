;; call_indirect's type check tells signatures apart that differ only in a
;; function reference type: (ref $t), (ref null $t) and funcref (every
;; function reference has one engine representation; the check compares the
;; store's canonical types, with declared subtypes). No upstream suite asserts
;; this.

(module $m
  (type $t (func))
  (type $a (func (param (ref null $t)) (result i32)))
  (type $b (func (param funcref) (result i32)))
  (type $c (func (param (ref $t)) (result i32)))
  (type $ra (func (result (ref $t))))
  (type $rb (func (result funcref)))
  (table 5 funcref)
  (elem (i32.const 0) func $fa $fb $fc $fra $frb)
  (func $nop (type $t))
  (elem declare func $nop)
  (func $fa (type $a) (i32.const 1))
  (func $fb (type $b) (i32.const 2))
  (func $fc (type $c) (i32.const 3))
  (func $fra (type $ra) (ref.func $nop))
  (func $frb (type $rb) (ref.func $nop))
  (func (export "fc") (type $c) (i32.const 30))
  (func (export "call_a") (param i32) (result i32)
    (call_indirect (type $a) (ref.func $nop) (local.get 0)))
  (func (export "call_b") (param i32) (result i32)
    (call_indirect (type $b) (ref.func $nop) (local.get 0)))
  (func (export "call_c") (param i32) (result i32)
    (call_indirect (type $c) (ref.func $nop) (local.get 0)))
  (func (export "call_ra") (param i32) (result i32)
    (ref.is_null (call_indirect (type $ra) (local.get 0))))
  (func (export "call_rb") (param i32) (result i32)
    (ref.is_null (call_indirect (type $rb) (local.get 0))))
)
(register "m" $m)

(assert_return (invoke "call_a" (i32.const 0)) (i32.const 1))
(assert_trap (invoke "call_a" (i32.const 1)) "indirect call type mismatch")
(assert_trap (invoke "call_a" (i32.const 2)) "indirect call type mismatch")
(assert_trap (invoke "call_b" (i32.const 0)) "indirect call type mismatch")
(assert_return (invoke "call_b" (i32.const 1)) (i32.const 2))
(assert_trap (invoke "call_b" (i32.const 2)) "indirect call type mismatch")
(assert_trap (invoke "call_c" (i32.const 0)) "indirect call type mismatch")
(assert_trap (invoke "call_c" (i32.const 1)) "indirect call type mismatch")
(assert_return (invoke "call_c" (i32.const 2)) (i32.const 3))
(assert_return (invoke "call_ra" (i32.const 3)) (i32.const 0))
(assert_trap (invoke "call_ra" (i32.const 4)) "indirect call type mismatch")
(assert_trap (invoke "call_rb" (i32.const 3)) "indirect call type mismatch")
(assert_return (invoke "call_rb" (i32.const 4)) (i32.const 0))

;; Declared subtypes: a callee of a subtype matches (parameters
;; contravariant, results covariant), a supertype's callee does not.
(module
  (type $t (func))
  (type $sup (sub (func (param (ref $t)) (result funcref))))
  (type $sub (sub $sup (func (param (ref null $t)) (result (ref $t)))))
  (table 2 funcref)
  (elem (i32.const 0) func $f_sup $f_sub)
  (func $nop (type $t))
  (elem declare func $nop)
  (func $f_sup (type $sup) (ref.func $nop))
  (func $f_sub (type $sub) (ref.func $nop))
  (func (export "via_sup") (param i32) (result i32)
    (ref.is_null (call_indirect (type $sup) (ref.func $nop) (local.get 0))))
  (func (export "via_sub") (param i32) (result i32)
    (ref.is_null (call_indirect (type $sub) (ref.func $nop) (local.get 0))))
)
(assert_return (invoke "via_sup" (i32.const 0)) (i32.const 0))
(assert_return (invoke "via_sup" (i32.const 1)) (i32.const 0))
(assert_trap (invoke "via_sub" (i32.const 0)) "indirect call type mismatch")
(assert_return (invoke "via_sub" (i32.const 1)) (i32.const 0))

;; Across modules: the same signature defined again is the same type; a
;; funcref signature is another one, for imports and for call_indirect.
(module
  (type $t (func))
  (type $c (func (param (ref $t)) (result i32)))
  (type $b (func (param funcref) (result i32)))
  (import "m" "fc" (func $fc (type $c)))
  (table 1 funcref)
  (elem (i32.const 0) func $fc)
  (func $nop (type $t))
  (elem declare func $nop)
  (func (export "typed") (result i32)
    (call_indirect (type $c) (ref.func $nop) (i32.const 0)))
  (func (export "untyped") (result i32)
    (call_indirect (type $b) (ref.func $nop) (i32.const 0)))
)
(assert_return (invoke "typed") (i32.const 30))
(assert_trap (invoke "untyped") "indirect call type mismatch")

(assert_unlinkable
  (module (import "m" "fc" (func (param funcref) (result i32))))
  "incompatible import type")
(assert_unlinkable
  (module (type $t (func)) (import "m" "fc" (func (param (ref null $t)) (result i32))))
  "incompatible import type")
