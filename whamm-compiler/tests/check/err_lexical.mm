var a: u64 = 99999999999999999999999;
var s: str = "bad \q escape";
var t: str = "\x";
var u: str = "\u{110000}";
var c: u32 = 1 # 2;
/* unterminated /* nested */
