// profile: calls and time (total and self) per calling context.
//
// A call-tree profiler. Every context (the chain of functions from the
// entry) gets a number the first time it is entered: `ctx[(parent, fid)]`,
// with context 0 the root. The top frame's context, function, start time
// and time spent in its callees are globals (`cur*`); `saved[depth]` holds
// the frames below. `func:entry` pushes, `func:exit` pops and adds the
// frame's call and times to its context's `stats`; a `return_call*` pops the
// caller (its frame is replaced, no `func:exit` fires for it), so the callee
// hangs below the caller's parent.
//
// Frames left without `func:exit`: a trap or `proc_exit` ends the run, and
// `wasm:exit` closes every open frame at that moment; an exception unwinds
// frames silently, and the next `func:exit` resynchronises the stack by
// closing the frames above the exiting function's (found by its fid);
// until then, calls the catching function makes hang below the unwound
// frames. (The engine does not enable exceptions yet; a `call`-site probe
// naming the caller would let `func:entry` resynchronise too.) (Keeping the top frame in globals and one tuple per frame and per
// context took 1.7x less time than a map per field; what remains is mostly
// the four clock reads per call.)
//
// The monitor's own cost is subtracted: each probe reads the clock
// (`rdtsc()`, engine nanoseconds) when it starts and when it ends, adds
// the difference to `lost`, and times are taken on a clock that stands
// still while probes run (`rdtsc() - lost`). What the two reads cannot
// see (calling the probe and returning from it) stays in the times; the
// report prints `lost` as the subtracted overhead.
//
// At `wasm:exit` it prints one line per context,
// `ctx,ID,PARENT,FID,CALLS,TOTAL_NS,SELF_NS`, which the engine renders as
// a table, folded stacks or a flame graph.
var ctx: map<(u32, u32), u32>;
var ctx_parent: map<u32, u32>;
var ctx_fid: map<u32, u32>;
// context -> (calls, total, self), added when a frame is closed
var stats: map<u32, (u64, u64, u64)>;
var contexts: u32;

// The top frame: context, function, start time, time in its callees.
var cur: u32;
var cur_fid: u32;
var cur_start: u64;
var cur_inner: u64;
// The frames below it, by depth (1 is the entry's caller: the root).
var saved: map<u32, (u32, u32, u64, u64)>;
var depth: u32;
var lost: u64;

// Close the top frame at time `now` (on the stopped clock).
fn leave(now: u64) {
    var dt: u64 = now - cur_start;
    var s: (u64, u64, u64) = stats[cur];
    stats[cur] = (s.0 + 1, s.1 + dt, s.2 + (dt - cur_inner));
    var below: (u32, u32, u64, u64) = saved[depth];
    depth--;
    cur = below.0;
    cur_fid = below.1;
    cur_start = below.2;
    cur_inner = below.3 + dt;
}

// Whether a frame of function `f` is open (the top one is checked first).
fn open(f: u32) -> bool {
    if depth == 0 {
        return false;
    }
    if cur_fid == f {
        return true;
    }
    var d: u32 = depth;
    while d > 1 {
        if saved[d].1 == f {
            return true;
        }
        d--;
    }
    return false;
}

// Close frames until one of function `f` is closed (if one is open).
fn unwind(f: u32, now: u64) {
    if open(f) {
        while cur_fid != f {
            leave(now);
        }
        leave(now);
    }
}

wasm:func:entry {
    var t: u64 = rdtsc();
    var c: u32 = ctx[(cur, fid)];
    if c == 0 {
        contexts++;
        c = contexts;
        ctx[(cur, fid)] = c;
        ctx_parent[c] = cur;
        ctx_fid[c] = fid;
    }
    depth++;
    saved[depth] = (cur, cur_fid, cur_start, cur_inner);
    cur = c;
    cur_fid = fid;
    cur_start = t - lost;
    cur_inner = 0;
    lost = lost + (rdtsc() - t);
}

wasm:func:exit {
    var t: u64 = rdtsc();
    unwind(fid, t - lost);
    lost = lost + (rdtsc() - t);
}

wasm:opcode:return_call|return_call_indirect|return_call_ref:before {
    var t: u64 = rdtsc();
    unwind(fid, t - lost);
    lost = lost + (rdtsc() - t);
}

wasm:exit {
    var now: u64 = rdtsc() - lost;
    while depth > 0 {
        leave(now);
    }
    println("lost,{}", lost);
    for (var c: u32 = 1; c <= contexts; c++) {
        var s: (u64, u64, u64) = stats[c];
        println("ctx,{},{},{},{},{},{}", c, ctx_parent[c], ctx_fid[c], s.0, s.1, s.2);
    }
}
