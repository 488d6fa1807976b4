// Run a WASI preview1 program under Node (V8) with compile and run timed
// separately (used by scripts/bench_jit.py).
//
//   node --no-concurrent-marking scripts/run_node_wasi.mjs app.wasm [args...]
//
// stdout/stderr are the program's; after the run, `compile_s=.. run_s=..`
// goes to stderr. compile = WebAssembly.compile (V8 compiles lazily/tiered, so
// with lazy compilation this is mostly validation); run = _start (instantiation
// is not timed, as in wizeng's --metrics).
// Exit status: the program's exit code, 134 on a trap.
import { readFileSync } from "node:fs";
import { WASI } from "node:wasi";
import { basename } from "node:path";
import process from "node:process";

const [wasmPath, ...args] = process.argv.slice(2);
const bytes = readFileSync(wasmPath);
const wasi = new WASI({ version: "preview1", args: [basename(wasmPath), ...args], env: {}, preopens: {}, returnOnExit: true });
const t0 = process.hrtime.bigint();
const module = await WebAssembly.compile(bytes);
const tc = process.hrtime.bigint();
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
const t1 = process.hrtime.bigint();
let code = 0;
try {
  code = wasi.start(instance) ?? 0;
} catch (e) {
  process.stderr.write(`run_node_wasi.mjs: trap: ${e}\n`);
  code = 134;
}
const t2 = process.hrtime.bigint();
process.stderr.write(`compile_s=${Number(tc - t0) / 1e9} run_s=${Number(t2 - t1) / 1e9}\n`);
process.exitCode = code;
