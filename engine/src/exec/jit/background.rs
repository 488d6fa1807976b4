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
//! A request the store's thread must wait for (a function whose first call
//! needs its code) that the compiler thread has not started yet is taken
//! back from the queue and compiled on the store's thread
//! ([`Background::wait_for`]): waiting then never costs more than compiling
//! in the foreground, however late the compiler thread gets a core (on a
//! loaded machine, a wait for a thread that is not running is the whole
//! scheduler's latency).
//!
//! The thread is detached: a process that finishes while a compile is running
//! does not wait for it, and a store dropped meanwhile just closes the
//! channels (the thread's result is discarded, then it ends).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{CodegenInput, CodegenOutput};

/// What a request compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    /// A function (store address), for its next calls.
    Func(u32),
    /// An OSR entry: (instance, function index, loop pc).
    Osr(u32, u32, u32),
    /// An instance's JIT set-up (its module's trampolines), by instance id.
    Setup(u32),
}

struct Request {
    target: Target,
    input: CodegenInput,
}

/// What a compiler thread's queue needs to know of a request.
trait Queued {
    fn target(&self) -> Target;
    /// Bytes of body to compile: the shortest goes first.
    fn size(&self) -> usize;
}

impl Queued for Request {
    fn target(&self) -> Target {
        self.target
    }
    fn size(&self) -> usize {
        self.input.body_len()
    }
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
    queue: Arc<Queue<Request>>,
    rx: mpsc::Receiver<Finished>,
    /// Results the thread has sent so far, against `received`: the cheap
    /// check [`Background::take_ready`] makes before touching the channel.
    sent: Arc<AtomicUsize>,
    received: usize,
    /// Requests sent to the thread and not taken back.
    sent_to: usize,
    /// A function the store's thread waits for (its address + 1; 0: none):
    /// the thread compiles it next, before the shorter bodies queued.
    urgent: Arc<AtomicU32>,
}

/// The requests a compiler thread has not started, shared with the store's
/// thread (which may take one back: [`Background::wait_for`]).
struct Queue<R> {
    pending: Mutex<Pending<R>>,
    wake: Condvar,
}

struct Pending<R> {
    requests: Vec<R>,
    /// The store's side is gone: the thread ends (what is queued is dropped).
    closed: bool,
}

impl<R: Queued> Queue<R> {
    fn new() -> Self {
        Queue {
            pending: Mutex::new(Pending {
                requests: Vec::new(),
                closed: false,
            }),
            wake: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending<R>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, r: R) {
        self.lock().requests.push(r);
        self.wake.notify_one();
    }

    /// Take back the request for `target` if the thread has not started it.
    fn take(&self, target: Target) -> Option<R> {
        let mut p = self.lock();
        let i = p.requests.iter().position(|r| r.target() == target)?;
        Some(p.requests.swap_remove(i))
    }

    /// The next request to compile (`urgent` first, else the shortest
    /// body), waiting for one; `None` once the store's side is gone.
    fn next(&self, urgent: Target) -> Option<R> {
        let mut p = self.lock();
        while p.requests.is_empty() {
            if p.closed {
                return None;
            }
            p = self.wake.wait(p).unwrap_or_else(|e| e.into_inner());
        }
        let rs = &p.requests;
        let i = rs
            .iter()
            .position(|r| r.target() == urgent)
            .or_else(|| (0..rs.len()).min_by_key(|&i| rs[i].size()))
            .unwrap_or(0);
        Some(p.requests.swap_remove(i))
    }

    fn is_empty(&self) -> bool {
        self.lock().requests.is_empty()
    }

    /// The store's side is gone: drop what is queued and end the thread.
    fn close(&self) {
        let mut p = self.lock();
        p.requests.clear();
        p.closed = true;
        drop(p);
        self.wake.notify_all();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Requests not started are dropped with the store; the thread ends.
        self.queue.close();
    }
}

/// The thread that builds set-ups ([`Target::Setup`]): the second, so that
/// the first compiles the hot code they are for at the same time (the
/// store's thread keeps interpreting).
const SETUP_WORKER: usize = 1;

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
    /// Compiler-thread time of the collected requests (and of those the
    /// store's thread took back and compiled itself).
    pub time: Duration,
    /// Requests the store's thread took back from a queue and compiled
    /// itself, instead of waiting for them.
    pub stolen: usize,
    /// Set-ups ([`Target::Setup`]) built and collected (not counted in
    /// `in_flight` and `collected`, which are compiles of code).
    pub setups: usize,
}

impl Background {
    /// Send a request; `false` if the thread cannot be started (the caller
    /// then compiles in the foreground or not at all).
    pub(crate) fn submit(&mut self, target: Target, input: CodegenInput) -> bool {
        // (A set-up goes to its own thread, see [`SETUP_WORKER`].)
        let large = input.body_len() >= LARGE_BODY;
        let k = if matches!(target, Target::Setup(_)) {
            SETUP_WORKER
        } else {
            usize::from(large)
        };
        let slot = &mut self.workers[k];
        if slot.is_none() {
            *slot = start(k == 0);
        }
        let Some(w) = slot else { return false };
        w.queue.push(Request { target, input });
        w.sent_to += 1;
        self.in_flight += usize::from(!matches!(target, Target::Setup(_)));
        if let Target::Func(a) = target {
            self.funcs.insert(a, k);
        }
        true
    }

    /// Wait until function `a`'s request (if one is in flight) is compiled,
    /// asking its thread to take it next, or compile it here if the thread
    /// has not started it; what was received meanwhile, `a`'s result
    /// included unless its thread is gone.
    pub(crate) fn wait_for(&mut self, a: u32) -> Vec<Finished> {
        if let Some(&k) = self.funcs.get(&a) {
            if let Some(out) = self.take_back(k, Target::Func(a)) {
                return out;
            }
        }
        self.wait_for_until(a, None)
    }

    /// Wait until instance `i`'s set-up request (if one is in flight) is
    /// done, or do it here if the thread has not started it; what was
    /// received meanwhile, the set-up included unless the thread is gone.
    pub(crate) fn wait_for_setup(&mut self, i: u32) -> Vec<Finished> {
        let target = Target::Setup(i);
        if let Some(out) = self.take_back(SETUP_WORKER, target) {
            return out;
        }
        let mut out = Vec::new();
        self.receive_until(SETUP_WORKER, target, None, &mut out);
        self.count(&out);
        out
    }

    /// Take `target`'s request back from worker `k`'s queue if its thread
    /// has not started it, and compile it here: what was ready, and its
    /// result last.
    fn take_back(&mut self, k: usize, target: Target) -> Option<Vec<Finished>> {
        let w = self.workers[k].as_mut()?;
        let r = w.queue.take(target)?;
        w.sent_to -= 1;
        let mut out = self.take_ready();
        let t0 = Instant::now();
        let out_a = super::codegen(&r.input);
        out.push(Finished {
            target: r.target,
            input: r.input,
            out: out_a,
            time: t0.elapsed(),
        });
        self.stolen += 1;
        self.count(&out[out.len() - 1..]);
        Some(out)
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
        let mut setups = 0;
        for f in done {
            match f.target {
                Target::Func(a) => {
                    self.funcs.remove(&a);
                }
                Target::Setup(_) => setups += 1,
                Target::Osr(..) => {}
            }
        }
        self.setups += setups;
        self.in_flight = self.in_flight.saturating_sub(done.len() - setups);
        self.collected += done.len() - setups;
        self.time += done.iter().map(|f| f.time).sum::<Duration>();
    }
}

/// Start a compiler thread; `sweep`: the first time it runs out of work, it
/// removes leftovers of killed writers from the code cache's directory if
/// no run did in the last hour ([`super::cache::CodeCache::sweep_if_due`]).
fn start(sweep: bool) -> Option<Worker> {
    let queue = Arc::new(Queue::new());
    let requests = queue.clone();
    let (results, rx) = mpsc::channel::<Finished>();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let urgent = Arc::new(AtomicU32::new(0));
    let wanted = urgent.clone();
    std::thread::Builder::new()
        .name("wizeng-compile".into())
        .stack_size(16 << 20)
        .spawn(move || {
            let mut cache: Option<Arc<super::cache::CodeCache>> = None;
            let mut sweep = sweep;
            loop {
                if requests.is_empty() {
                    if let Some(c) = cache.take().filter(|_| sweep) {
                        c.sweep_if_due();
                        sweep = false;
                    }
                }
                // Shortest first: a large body (seconds of register
                // allocation) must not hold back the small hot functions
                // queued behind it.
                let urgent = Target::Func(wanted.load(Ordering::Acquire).wrapping_sub(1));
                let Some(Request { target, input }) = requests.next(urgent) else {
                    break;
                };
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
        queue,
        rx,
        sent,
        received: 0,
        sent_to: 0,
        urgent,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct R(u32, usize);

    impl Queued for R {
        fn target(&self) -> Target {
            Target::Func(self.0)
        }
        fn size(&self) -> usize {
            self.1
        }
    }

    #[test]
    fn the_urgent_request_goes_first_then_the_shortest() {
        let q = Queue::new();
        for (f, len) in [(1, 300), (2, 100), (3, 200)] {
            q.push(R(f, len));
        }
        assert_eq!(q.next(Target::Func(3)).map(|r| r.0), Some(3));
        assert_eq!(q.next(Target::Func(9)).map(|r| r.0), Some(2));
        assert_eq!(q.next(Target::Func(9)).map(|r| r.0), Some(1));
        assert!(q.is_empty());
    }

    #[test]
    fn a_request_not_started_can_be_taken_back_once() {
        let q = Queue::new();
        q.push(R(1, 10));
        q.push(R(2, 20));
        assert_eq!(q.take(Target::Func(2)).map(|r| r.0), Some(2));
        assert!(q.take(Target::Func(2)).is_none());
        assert!(q.take(Target::Osr(0, 1, 0)).is_none());
        assert_eq!(q.next(Target::Func(9)).map(|r| r.0), Some(1));
        assert!(q.take(Target::Func(1)).is_none());
    }

    #[test]
    fn a_closed_queue_ends_a_waiting_thread() {
        let q = Arc::new(Queue::<R>::new());
        let waiting = q.clone();
        let t = std::thread::spawn(move || waiting.next(Target::Func(0)).is_none());
        std::thread::sleep(Duration::from_millis(20));
        q.close();
        assert!(t.join().unwrap());
        // A thread that asks after the close ends too.
        assert!(q.next(Target::Func(0)).is_none());
    }
}
