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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

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
        let slot = &mut self.workers[usize::from(input.body_len() >= LARGE_BODY)];
        if slot.is_none() {
            *slot = start();
        }
        let Some(w) = slot else { return false };
        if w.tx.send(Request { target, input }).is_err() {
            *slot = None;
            return false;
        }
        w.sent_to += 1;
        self.in_flight += 1;
        true
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
        self.in_flight = self.in_flight.saturating_sub(done.len());
        self.collected += done.len();
        self.time += done.iter().map(|f| f.time).sum::<Duration>();
    }
}

/// Start the compiler thread.
fn start() -> Option<Worker> {
    let (tx, requests) = mpsc::channel::<Request>();
    let (results, rx) = mpsc::channel::<Finished>();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    std::thread::Builder::new()
        .name("wizeng-compile".into())
        .stack_size(16 << 20)
        .spawn(move || {
            // Shortest first: a large body (seconds of register allocation)
            // must not hold back the small hot functions queued behind it.
            let mut queue: Vec<Request> = Vec::new();
            loop {
                if queue.is_empty() {
                    match requests.recv() {
                        Ok(r) => queue.push(r),
                        Err(_) => break,
                    }
                }
                queue.extend(requests.try_iter());
                let next = (0..queue.len())
                    .min_by_key(|&i| queue[i].input.body_len())
                    .unwrap_or(0);
                let Request { target, input } = queue.swap_remove(next);
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
    })
}
