// Every statement form.
var g: i32;
var gm: map<u32, (u32, bool)>;
var gt: (i32, (u8, str));
g = 1;
if (g > 0) { g = 2; } elif (g < -10) { g = 3; } else { g--; }

fn sum_to(n: u32) -> u64 {
    var acc: u64 = 0;
    var i: u32 = 0;
    while (true) {
        if (i > n) { break; }
        acc = acc + i;
        i++;
    }
    for (var j: u32 = 0; j < n; j++) {
        if (j % 2 == 0) { continue; }
        acc = acc - j;
    }
    for (;;) { break; }
    return acc;
}

fn log(x: u32) {
    println("x = {}", x);
    return;
}

wasm:func:entry {
    var t: (u32, bool) = (fid, true);
    gm[fid] = t;
    gm[fid].0 = 4;
    gt.1.0 = 7;
    gt.0 = -1;
    log(fid);
    var s: u64 = sum_to(10);
    if (s == 0) { return; }
    g++;
    gm[fid].0++;
}

wasm:begin { g = 0; }
wasm:report { println("g = {}", g); }
