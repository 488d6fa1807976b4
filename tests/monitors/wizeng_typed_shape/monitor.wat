;; wizeng.puta takes a nullable reference to an array of i8: imported at
;; another type, the monitor cannot be linked (status 3, naming the import).
(module
  (type $words (array (mut i16)))
  (import "wizeng" "puta" (func $puta (param (ref null $words) i32 i32))))
