// whamm's memory functions: only the monitor's own memory is reachable.
use whamm_core;
use other;
var a: u32 = memid(other);
var b: u32 = memid(nothing);
var s: str = read_str(0, 1);
