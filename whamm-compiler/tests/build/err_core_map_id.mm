// print_map_as_csv names a map by its constant position among the script's
// global maps.
use whamm_core;
var m: map<u32, u32>;
wasm:end {
    var i: i32 = 0;
    whamm_core.print_map_as_csv(i);
    whamm_core.print_map_as_csv(3);
}
