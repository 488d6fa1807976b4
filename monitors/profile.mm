// profile: calls and time (total and self) per calling context.
//
// A call-tree profiler. Every context (the chain of functions from the
// entry) gets a number the first time it is entered: `ctx[(parent, fid)]`,
// with context 0 the root. A shadow stack (`stack_*`, indexed by depth)
// holds each active frame's context, start time and time spent in its
// callees. `func:entry` pushes, `func:exit` pops; a `return_call*` pops the
// caller (its frame is replaced, no `func:exit` fires for it), so the callee
// hangs below the caller's parent.
//
// Frames left without `func:exit`: a trap or `proc_exit` ends the run, and
// `wasm:exit` closes every open frame at that moment; an exception unwinds
// frames silently, and the next `func:exit` resynchronises the stack by
// closing the frames above the exiting function's (found by its fid).
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
var calls: map<u32, u64>;
var total: map<u32, u64>;
var own: map<u32, u64>;
var contexts: u32;

var stack_ctx: map<u32, u32>;
var stack_start: map<u32, u64>;
var stack_inner: map<u32, u64>;
var depth: u32;
var lost: u64;

// Close the top frame at time `now` (on the stopped clock).
fn leave(now: u64) {
    var c: u32 = stack_ctx[depth];
    var dt: u64 = now - stack_start[depth];
    total[c] = total[c] + dt;
    own[c] = own[c] + (dt - stack_inner[depth]);
    depth--;
    if depth > 0 {
        stack_inner[depth] = stack_inner[depth] + dt;
    }
}

// The depth of the topmost frame of function `f`, 0 if none.
fn find(f: u32) -> u32 {
    var d: u32 = depth;
    while d > 0 {
        if ctx_fid[stack_ctx[d]] == f {
            return d;
        }
        d--;
    }
    return 0;
}

wasm:func:entry {
    var t: u64 = rdtsc();
    var parent: u32 = stack_ctx[depth];
    var c: u32 = ctx[(parent, fid)];
    if c == 0 {
        contexts++;
        c = contexts;
        ctx[(parent, fid)] = c;
        ctx_parent[c] = parent;
        ctx_fid[c] = fid;
    }
    calls[c]++;
    depth++;
    stack_ctx[depth] = c;
    stack_start[depth] = t - lost;
    stack_inner[depth] = 0;
    lost = lost + (rdtsc() - t);
}

wasm:func:exit {
    var t: u64 = rdtsc();
    var d: u32 = find(fid);
    if d > 0 {
        while depth >= d {
            leave(t - lost);
        }
    }
    lost = lost + (rdtsc() - t);
}

wasm:opcode:return_call|return_call_indirect|return_call_ref:before {
    var t: u64 = rdtsc();
    var d: u32 = find(fid);
    if d > 0 {
        while depth >= d {
            leave(t - lost);
        }
    }
    lost = lost + (rdtsc() - t);
}

wasm:exit {
    var now: u64 = rdtsc() - lost;
    while depth > 0 {
        leave(now);
    }
    println("lost,{}", lost);
    for (var c: u32 = 1; c <= contexts; c++) {
        println("ctx,{},{},{},{},{},{}", c, ctx_parent[c], ctx_fid[c], calls[c], total[c], own[c]);
    }
}
