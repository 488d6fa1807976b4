/* Catching traps from JIT code: the only non-Rust code of the engine.
 *
 * JIT code traps by executing an illegal instruction (Cranelift's `ud2` with a
 * trap code) or, rarely, by a fault. The signal handler (jit/signals.rs) checks
 * that the faulting pc is in JIT code, records the trap, and jumps back here with
 * `wizeng_trap_longjmp`. Only JIT frames and the entry trampoline lie between the
 * `sigsetjmp` and the fault: Rust host code never traps this way (host errors are
 * returned as values and turned into a Cranelift trap by the host trampoline),
 * so no Rust destructor is skipped. The handler is installed with SA_NODEFER, so
 * the signal mask needs no restoring (sigsetjmp(.., 0): no syscall per call). */
#include <setjmp.h>
#include <stddef.h>

typedef void (*wizeng_entry_fn)(void *);

/* Calls f(arg); returns 0 if it returned, 1 if a trap jumped out of it.
 * `slot` is the thread's current jump buffer pointer, saved and restored so
 * that nested host -> wasm calls each catch their own traps. */
int wizeng_catch_traps(wizeng_entry_fn f, void *arg, void **slot) {
    sigjmp_buf buf;
    void *prev = *slot;
    *slot = &buf;
    if (sigsetjmp(buf, 0) == 0) {
        f(arg);
        *slot = prev;
        return 0;
    }
    *slot = prev;
    return 1;
}

void wizeng_trap_longjmp(void *buf) {
    siglongjmp(*(sigjmp_buf *)buf, 1);
}
