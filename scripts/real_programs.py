#!/usr/bin/env python3
"""Run the wasure benchmark programs through wizeng and Wasmtime and compare.

Driven by scripts/real-programs.sh (which sets up the venv); see scripts/README.md.
For each program: run it under Wasmtime (reference, via run_wasmtime.py) and
under the engine command, each from a fresh temporary working directory, and
compare exit status and stdout byte for byte, after masking the few lines that
report wall-clock timings (see MASKS).  Prints one PASS/FAIL line per program
and a final `N passed, N failed` line; exits 1 if anything failed.
"""
import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_WASMTIME = os.path.join(HERE, "run_wasmtime.py")
DEFAULT_SUITES = "polybench,ostrich,libsodium,coremark,dhrystone"

# Lines whose content depends on wall-clock time; replaced by "<timing>" in
# both outputs before comparing.  Keyed by suite.
MASKS = {
    # libsodium's benchmark builds print only the elapsed time of the test.
    "libsodium": [r"^\d+$"],
    "coremark": [
        r"^Total ticks\s*:.*$",
        r"^Total time \(secs\)\s*:.*$",
        r"^Iterations/Sec\s*:.*$",
        r"^CoreMark 1\.0 :.*$",
        # coremark.wasm calibrates its iteration count (and so crcfinal) to
        # the machine's speed.
        r"^Iterations\s*:.*$",
        r"^\[0\]crcfinal\s*:.*$",
        r"^(ERROR! Must execute for at least 10 secs for a valid result!)$",
    ],
    "dhrystone": [
        r"^Microseconds for one run through Dhrystone:.*$",
        r"^Dhrystones per Second:.*$",
        r"^Measured time too small to obtain meaningful results$",
        r"^Please increase number of runs$",
        r"^(Execution starts|Execution ends).*$",
    ],
}


def mask(suite, data: bytes) -> bytes:
    pats = MASKS.get(suite)
    if not pats:
        return data
    text = data.decode("utf-8", "replace")
    for p in pats:
        text = re.sub(p, "<timing>", text, flags=re.M)
    # dhrystone prints a blank line only when the time was too small: fold
    # runs of <timing> and blank lines.
    text = re.sub(r"(<timing>\n(\n)*)+", "<timing>\n", text)
    return text.encode()


def load_benchmarks(bench_root, suites, regex, skip=""):
    out = []
    for suite in suites:
        folder = os.path.join(bench_root, suite)
        with open(os.path.join(folder, "benchmarks.json")) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            full = f"{suite}/{b['name']}"
            if regex and not re.search(regex, full):
                continue
            if skip and re.search(skip, full):
                continue
            out.append((suite, folder, b))
    return out


def run(cmd, cwd, stdout_path, timeout):
    t0 = time.perf_counter()
    with open(stdout_path, "wb") as out, open(stdout_path + ".err", "wb") as err:
        try:
            p = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=err,
                               stdin=subprocess.DEVNULL, timeout=timeout)
            code = p.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    return code, time.perf_counter() - t0


def file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("filter", nargs="?", default="",
                    help="regex matched against SUITE/NAME")
    ap.add_argument("--bench-root", required=True)
    ap.add_argument("--engine", required=True,
                    help="engine command (split with shlex)")
    ap.add_argument("--mode", default="int")
    ap.add_argument("--suites", default=DEFAULT_SUITES)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--ref-cache", default="",
                    help="directory caching Wasmtime reference outputs ('' = off)")
    ap.add_argument("--keep", action="store_true", help="keep temp dirs")
    ap.add_argument("--skip", default="", help="regex on SUITE/NAME of programs to leave out")
    ap.add_argument("--monitors", default="",
                    help="run the engine with these monitors; the app's own output must be unchanged")
    ap.add_argument("--monitor-prefix", default="hotness:",
                    help="with --monitors: the monitor's report starts at the last line with this prefix")
    a = ap.parse_args()

    engine = shlex.split(a.engine)
    benches = load_benchmarks(a.bench_root, a.suites.split(","), a.filter, a.skip)
    passed = failed = 0
    import wasmtime  # noqa: F401  (fail early if missing)
    try:
        from importlib.metadata import version
        wt_version = version("wasmtime")
    except Exception:  # noqa: BLE001
        wt_version = "?"
    for suite, folder, b in benches:
        name = f"{suite}/{b['name']}"
        wasm = os.path.join(folder, b["path"])
        # wasure's convention: "{path}" in args is the benchmark folder,
        # which is then preopened under the same path.
        args = shlex.split(b.get("args", "").format(path=folder))
        dirs = [folder] if "args" in b else []
        if suite in ("mibench", "speccpu2006") and folder not in dirs:
            dirs.append(folder)
        diropts = [f"--dir={d}" for d in dirs]
        tmp = tempfile.mkdtemp(prefix="wizeng-real-")
        try:
            ref_cwd, eng_cwd = os.path.join(tmp, "ref-cwd"), os.path.join(tmp, "eng-cwd")
            os.mkdir(ref_cwd)
            os.mkdir(eng_cwd)
            # Reference (Wasmtime), possibly cached.
            ref_out = os.path.join(tmp, "ref.out")
            cached = None
            if a.ref_cache:
                key = hashlib.sha256(json.dumps(
                    [file_digest(wasm), args, dirs, wt_version]).encode()).hexdigest()[:24]
                cached = os.path.join(a.ref_cache, f"{suite}.{b['name']}.{key}")
            if cached and os.path.exists(cached + ".code"):
                shutil.copy(cached + ".out", ref_out)
                with open(cached + ".code") as f:
                    rc = f.read().strip()
                ref_code = int(rc) if rc.lstrip("-").isdigit() else rc
                ref_t = float("nan")
            else:
                ref_code, ref_t = run(
                    [sys.executable, RUN_WASMTIME] + diropts + [wasm] + args,
                    ref_cwd, ref_out, a.timeout)
                if cached and ref_code != "timeout":
                    os.makedirs(a.ref_cache, exist_ok=True)
                    shutil.copy(ref_out, cached + ".out")
                    with open(cached + ".code", "w") as f:
                        f.write(str(ref_code))
            if ref_code == "timeout":
                failed += 1
                print(f"FAIL {name}: reference (wasmtime) timed out after {a.timeout:.0f}s "
                      "(engine not run)", flush=True)
                continue
            # Engine under test, from its own clean working directory.
            eng_out = os.path.join(tmp, "eng.out")
            monopts = [f"--monitors={a.monitors}"] if a.monitors else []
            eng_code, eng_t = run(engine + [f"--mode={a.mode}"] + monopts + diropts + [wasm] + args,
                                  eng_cwd, eng_out, a.timeout)
            with open(ref_out, "rb") as f:
                ref_data = f.read()
            with open(eng_out, "rb") as f:
                eng_data = f.read()
            report = b""
            if a.monitors:
                # Non-intrusiveness: the monitor's report follows the app's
                # output, which must be exactly what it is without monitors.
                at = eng_data.rfind(b"\n" + a.monitor_prefix.encode())
                at = 0 if eng_data.startswith(a.monitor_prefix.encode()) and at < 0 else at + 1
                if at > 0 or eng_data.startswith(a.monitor_prefix.encode()):
                    eng_data, report = eng_data[:at], eng_data[at:]
            with open(eng_out + ".err", "rb") as f:
                eng_err = f.read()
            reasons = []
            if ref_code == "timeout":
                reasons.append(f"reference (wasmtime) timed out after {a.timeout:.0f}s")
            elif eng_code == "timeout":
                reasons.append(f"engine timed out after {a.timeout:.0f}s")
            elif ref_code == 134:
                # run_wasmtime.py reports a trap as 134; the engine may use
                # its own code for a trap, but it must not succeed.
                if eng_code == 0:
                    reasons.append("wasmtime trapped but engine exited 0")
            elif eng_code != ref_code:
                reasons.append(f"exit status {eng_code}, expected {ref_code}")
            mref, meng = mask(suite, ref_data), mask(suite, eng_data)
            if "timeout" not in (eng_code, ref_code) and mref != meng:
                diff = difflib.unified_diff(
                    mref.decode("utf-8", "replace").splitlines(),
                    meng.decode("utf-8", "replace").splitlines(),
                    "wasmtime", "wizeng", lineterm="", n=1)
                d = "\n    ".join(list(diff)[:14])
                reasons.append(f"stdout differs ({len(ref_data)} vs {len(eng_data)} bytes):\n    {d}")
            if a.monitors and not report and eng_code != "timeout":
                reasons.append(f"no monitor report (a line starting with {a.monitor_prefix!r})")
            if reasons:
                failed += 1
                msg = "; ".join(reasons)
                errhead = eng_err.decode("utf-8", "replace").strip().splitlines()[:3]
                if errhead and eng_code != ref_code:
                    msg += "\n    engine stderr: " + "\n    ".join(errhead)
                print(f"FAIL {name}: {msg}", flush=True)
            else:
                passed += 1
                rt = "cached" if ref_t != ref_t else f"{ref_t:.2f}s"
                rep = f", monitor: {report.decode('utf-8', 'replace').strip()}" if report else ""
                print(f"PASS {name} (engine {eng_t:.2f}s, wasmtime {rt}, "
                      f"exit {eng_code}, {len(eng_data)} bytes{rep})", flush=True)
        finally:
            if a.keep:
                print(f"    kept {tmp}")
            else:
                shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
