use lib;
// Without `--lib lib=...` a library call has no known result: statements only.
wasm:opcode:call:before { @static lib.f(fid); lib.g(pc); }
wasm:opcode:call:before { var x: i32 = @static lib.f(fid); println("{}", lib.g(1)); }
