var x: u32;
break;
continue;
return;
y = 1;
var y: u32;
wasm:begin {
    for (var i: u32 = 0; i; var j: u32 = 1) { }
    while (true) { if (true) { break; } }
    continue;
    x.len();
    "s".size();
    x[1] = 2;
    (1, 2).5;
    @static x;
    1 + 2;
}
