//! Background compilation for the dyn tier.
//!
//! One compiler thread per store, started at the first request, turns
//! requests (a function, or an entry into a function at a loop header, OSR)
//! into machine code ([`super::codegen`]) while the interpreter keeps running
//! the code. Linking the result into executable memory and publishing it
//! ([`super::link`], then the caller's publish step) happens on the store's
//! thread, the next time the tiering policy asks
//! ([`super::poll_background`]): no compiled code
//! is ever installed behind the interpreter's back, and nothing but owned,
//! immutable inputs ([`super::CodegenInput`]) crosses to the thread.
//!
//! The thread is detached: a process that finishes while a compile is running
//! does not wait for it, and a store dropped meanwhile just closes the
//! channels (the thread's result is discarded, then it ends).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use super::{CodegenInput, CodegenOutput};

/// What a request compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    /// A function (store address), for its next calls.
    Func(u32),
    /// An OSR entry: (instance, function index, loop pc).
    Osr(u32, u32, u32),
}

struct Request {
    target: Target,
    input: CodegenInput,
}

/// A request's machine code (or why there is none), back on the store's thread.
pub(crate) struct Finished {
    pub target: Target,
    pub input: CodegenInput,
    pub out: Result<CodegenOutput, String>,
    /// Time the compiler thread spent on it.
    pub time: Duration,
}

struct Worker {
    tx: mpsc::Sender<Request>,
    rx: mpsc::Receiver<Finished>,
    /// Results the thread has sent so far, against `received`: the cheap
    /// check [`Background::take_ready`] makes before touching the channel.
    sent: Arc<AtomicUsize>,
    received: usize,
    /// Requests sent to the thread.
    sent_to: usize,
    /// A function the store's thread waits for (its address + 1; 0: none):
    /// the thread compiles it next, before the shorter bodies queued.
    urgent: Arc<AtomicU32>,
}

/// Bodies of at least this many bytes go to the second thread: compiling
/// one can take seconds (register allocation grows faster than the body),
/// which must not hold back the small hot functions queued meanwhile.
const LARGE_BODY: usize = 16 * 1024;

/// A store's compiler threads (one for small bodies, one for large ones,
/// each started at its first request) and their bookkeeping.
#[derive(Default)]
pub(crate) struct Background {
    workers: [Option<Worker>; 2],
    /// The worker each function request in flight went to.
    funcs: HashMap<u32, usize>,
    /// Requests sent and not yet collected.
    pub in_flight: usize,
    /// Requests compiled (successfully or not) and collected.
    pub collected: usize,
    /// Compiler-thread time of the collected requests.
    pub time: Duration,
}

impl Background {
    /// Send a request; `false` if the thread cannot be started (the caller
    /// then compiles in the foreground or not at all).
    pub(crate) fn submit(&mut self, target: Target, input: CodegenInput) -> bool {
        let k = usize::from(input.body_len() >= LARGE_BODY);
        let slot = &mut self.workers[k];
        if slot.is_none() {
            *slot = start(k == 0);
        }
        let Some(w) = slot else { return false };
        if w.tx.send(Request { target, input }).is_err() {
            *slot = None;
            return false;
        }
        w.sent_to += 1;
        self.in_flight += 1;
        if let Target::Func(a) = target {
            self.funcs.insert(a, k);
        }
        true
    }

    /// Wait until function `a`'s request (if one is in flight) is compiled,
    /// asking its thread to take it next; what was received meanwhile, `a`'s
    /// result included unless its thread is gone.
    pub(crate) fn wait_for(&mut self, a: u32) -> Vec<Finished> {
        self.wait_for_until(a, None)
    }

    /// [`Background::wait_for`], giving up at `deadline` (if any; `a` then
    /// stays in flight).
    pub(crate) fn wait_for_until(&mut self, a: u32, deadline: Option<Instant>) -> Vec<Finished> {
        let mut out = Vec::new();
        let Some(&k) = self.funcs.get(&a) else {
            return out;
        };
        if let Some(w) = &self.workers[k] {
            w.urgent.store(a.wrapping_add(1), Ordering::Release);
        }
        let timed_out = self.receive_until(k, Target::Func(a), deadline, &mut out);
        if let Some(w) = &self.workers[k] {
            w.urgent.store(0, Ordering::Release);
        }
        if !timed_out {
            self.funcs.remove(&a);
        }
        self.count(&out);
        out
    }

    /// Receive worker `k`'s results into `out` until `target`'s is among
    /// them, the thread is gone (it is then forgotten) or `deadline`
    /// passes; whether it passed.
    fn receive_until(
        &mut self,
        k: usize,
        target: Target,
        deadline: Option<Instant>,
        out: &mut Vec<Finished>,
    ) -> bool {
        let Some(w) = &mut self.workers[k] else {
            return false;
        };
        while w.received < w.sent_to {
            let got = match deadline {
                None => w.rx.recv().map_err(|_| true),
                Some(d) => {
                    w.rx.recv_timeout(d.saturating_duration_since(Instant::now()))
                        .map_err(|e| e == mpsc::RecvTimeoutError::Disconnected)
                }
            };
            match got {
                Ok(f) => {
                    w.received += 1;
                    let found = f.target == target;
                    out.push(f);
                    if found {
                        break;
                    }
                }
                Err(false) => return true,
                Err(true) => {
                    self.workers[k] = None;
                    break;
                }
            }
        }
        false
    }

    /// The results that are ready now (none without waiting).
    pub(crate) fn take_ready(&mut self) -> Vec<Finished> {
        let mut out = Vec::new();
        for w in self.workers.iter_mut().flatten() {
            if w.sent.load(Ordering::Acquire) == w.received {
                continue;
            }
            while let Ok(f) = w.rx.try_recv() {
                w.received += 1;
                out.push(f);
            }
        }
        self.count(&out);
        out
    }

    /// Wait for every request sent so far (tests, and `--metrics` runs that
    /// want complete counts, use this; the dyn tier itself never waits).
    pub(crate) fn wait_all(&mut self) -> Vec<Finished> {
        let mut out = Vec::new();
        for slot in self.workers.iter_mut() {
            let Some(w) = slot else { continue };
            // Everything sent to this thread, received or not.
            while w.received < w.sent_to {
                match w.rx.recv() {
                    Ok(f) => {
                        w.received += 1;
                        out.push(f);
                    }
                    Err(_) => {
                        *slot = None;
                        break;
                    }
                }
            }
        }
        self.count(&out);
        if self.workers.iter().all(Option::is_none) {
            self.in_flight = 0;
        }
        out
    }

    fn count(&mut self, done: &[Finished]) {
        for f in done {
            if let Target::Func(a) = f.target {
                self.funcs.remove(&a);
            }
        }
        self.in_flight = self.in_flight.saturating_sub(done.len());
        self.collected += done.len();
        self.time += done.iter().map(|f| f.time).sum::<Duration>();
    }
}

/// Start a compiler thread; `sweep`: the first time it runs out of work, it
/// removes leftovers of killed writers from the code cache's directory if
/// no run did in the last hour ([`super::cache::CodeCache::sweep_if_due`]).
fn start(sweep: bool) -> Option<Worker> {
    let (tx, requests) = mpsc::channel::<Request>();
    let (results, rx) = mpsc::channel::<Finished>();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let urgent = Arc::new(AtomicU32::new(0));
    let wanted = urgent.clone();
    std::thread::Builder::new()
        .name("wizeng-compile".into())
        .stack_size(16 << 20)
        .spawn(move || {
            // Shortest first: a large body (seconds of register allocation)
            // must not hold back the small hot functions queued behind it.
            let mut queue: Vec<Request> = Vec::new();
            let mut cache: Option<Arc<super::cache::CodeCache>> = None;
            let mut sweep = sweep;
            loop {
                if queue.is_empty() {
                    if let Some(c) = cache.take().filter(|_| sweep) {
                        c.sweep_if_due();
                        sweep = false;
                    }
                    match requests.recv() {
                        Ok(r) => queue.push(r),
                        Err(_) => break,
                    }
                }
                queue.extend(requests.try_iter());
                let urgent = Target::Func(wanted.load(Ordering::Acquire).wrapping_sub(1));
                let next = queue
                    .iter()
                    .position(|r| r.target == urgent)
                    .or_else(|| (0..queue.len()).min_by_key(|&i| queue[i].input.body_len()))
                    .unwrap_or(0);
                let Request { target, input } = queue.swap_remove(next);
                if sweep && cache.is_none() {
                    cache = input.cache.clone();
                }
                let t0 = std::time::Instant::now();
                let out = super::codegen(&input);
                let done = Finished {
                    target,
                    input,
                    out,
                    time: t0.elapsed(),
                };
                // Counted once it can be received.
                if results.send(done).is_err() {
                    break;
                }
                counter.fetch_add(1, Ordering::AcqRel);
            }
        })
        .ok()?;
    Some(Worker {
        tx,
        rx,
        sent,
        received: 0,
        sent_to: 0,
        urgent,
    })
}
