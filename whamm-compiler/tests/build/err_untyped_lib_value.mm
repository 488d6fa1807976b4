use lib;
wasm:opcode:call:before { @static lib.f(fid); }
