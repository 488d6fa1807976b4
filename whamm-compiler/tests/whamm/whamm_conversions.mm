// whamm's implicit conversions (docs/probe-language.md#types-and-conversions):
// a literal stands for its bit pattern in the wanted width; a stored value
// (initialiser, assignment, map key, tuple key element, argument) converts
// from any integer type to any other, wrapping as `as` does; a float cast
// to bool is true unless it equals 0.
var narrow: u8 = -1;                 // 255
var mask: i32 = 0xFFFF0000;          // -65536
var shifted: u8 = -1 << 2;           // 252
var keyed: map<u32, u32>;
var pairs: map<(u32, bool), u32>;
var wide: u64 = 4294967296 + 7;

fn takes_u16(x: u16) -> u16 { return x; }

wasm:opcode:br_if:before {
    var cond: i32 = arg0;
    keyed[cond]++;                   // i32 key into map<u32, _>
    var small: u8 = fid + 300;       // u32 -> u8 wraps
    pairs[(wide, small == 45)]++;    // (u64, bool) into (u32, bool)
}

wasm:end {
    var f: f32 = 0.25;
    var z: f64 = 0.0;
    println("{} {} {}", narrow, mask, shifted);
    println("{} {}", keyed[1], keyed[0]);
    println("{}", pairs[(7, true)]);
    println("{} {} {}", f as bool, z as bool, takes_u16(wide + 65536));
}
