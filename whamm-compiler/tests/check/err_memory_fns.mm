// whamm's memory functions: misuses (`memid(other)` of a `use`d library is fine).
use whamm_core;
use other;
var a: u32 = memid(other);
var b: u32 = memid(nothing);
var s: str = read_str(0, 1);
