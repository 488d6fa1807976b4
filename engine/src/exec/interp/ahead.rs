//! Translating functions of a lazily translated module ahead of their first
//! call, on a thread of its own.
//!
//! A warm run of a lazily woven app knows from its record which bodies the
//! last run made (`exec::jit::warm`): the functions the interpreter is
//! about to run. [`start`] weaves and translates them in the background
//! while the main thread instantiates and starts the app; the main thread's
//! first call of one ([`super::load::func_code`]) takes its code if it is
//! there, waits for it if it is being made, and otherwise translates it
//! itself (then the thread leaves it alone). A translation is a function of
//! the module and the function only, so its code is the same on either
//! thread. A body that fails to translate there is translated again by the
//! main thread, which reports the error as it always does.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::code::Compiled;
use super::compile::ModuleCtx;
use crate::core::error::LoadError;
use crate::core::module::ModuleInfo;

/// What became of a function's translation ahead.
enum Slot {
    /// Not started.
    Empty,
    /// The thread is translating it.
    Busy,
    Done(Compiled),
    /// The main thread took it or translates it itself.
    Taken,
}

/// The functions of one module translated ahead, by defined index.
pub(crate) struct Ahead {
    slots: Mutex<Vec<Slot>>,
    ready: Condvar,
}

/// The module-wide facts a translation needs besides the module
/// (`ModuleCode`'s).
#[derive(Clone, Copy)]
pub(crate) struct Facts {
    pub osr: bool,
    pub v128_types: bool,
    pub heap_refs: bool,
    pub extern_objects: bool,
}

impl Ahead {
    fn lock(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// For the main thread: defined function `d`'s code made ahead, waiting
    /// while the thread makes it; `None`: translate it (the thread will not).
    pub(crate) fn take(&self, d: usize) -> Option<Compiled> {
        let mut slots = self.lock();
        loop {
            let slot = slots.get_mut(d)?;
            match std::mem::replace(slot, Slot::Taken) {
                Slot::Done(c) => return Some(c),
                Slot::Busy => {
                    *slot = Slot::Busy;
                    slots = self.ready.wait(slots).unwrap_or_else(|e| e.into_inner());
                }
                Slot::Empty | Slot::Taken => return None,
            }
        }
    }

    /// For the thread: claim defined function `d` if nobody has.
    fn claim(&self, d: usize) -> bool {
        let mut slots = self.lock();
        match slots.get_mut(d) {
            Some(slot @ Slot::Empty) => {
                *slot = Slot::Busy;
                true
            }
            _ => false,
        }
    }

    /// For the thread: `d`'s translation (none if it failed or panicked).
    fn finish(&self, d: usize, code: Option<Compiled>) {
        let mut slots = self.lock();
        slots[d] = code.map_or(Slot::Empty, Slot::Done);
        drop(slots);
        self.ready.notify_all();
    }
}

/// Translate function `func_idx` (an index of the whole function space) of
/// `m`, whose module-wide facts are `facts`: its body is made first if it
/// is a deferred one.
pub(crate) fn translate(
    m: &ModuleInfo,
    facts: Facts,
    func_idx: u32,
) -> Result<Compiled, LoadError> {
    let (func, body) = m.body_to_validate(func_idx)?;
    let mut v = func.into_validator(Default::default());
    let ctx = ModuleCtx {
        types: &m.types,
        func_types: &m.func_types,
        features: m.features,
        osr: facts.osr,
        v128_types: facts.v128_types,
        heap_refs: facts.heap_refs,
        extern_objects: facts.extern_objects,
    };
    super::compile::translate(&mut v, &body, &ctx, None)
}

/// Translate the functions `funcs` (indices of the whole function space, in
/// the order given) of `m` on a new thread; the main thread finds them
/// through the returned [`Ahead`]. `None` if the thread cannot start.
pub(crate) fn start(m: Arc<ModuleInfo>, facts: Facts, funcs: Vec<u32>) -> Option<Arc<Ahead>> {
    let defined = m.bodies.len();
    let ahead = Arc::new(Ahead {
        slots: Mutex::new((0..defined).map(|_| Slot::Empty).collect()),
        ready: Condvar::new(),
    });
    let mine = ahead.clone();
    std::thread::Builder::new()
        .name("wizeng-translate".into())
        .spawn(move || {
            for f in funcs {
                let d = f.wrapping_sub(m.num_imported_funcs) as usize;
                if d >= defined || !mine.claim(d) {
                    continue;
                }
                let run = std::panic::AssertUnwindSafe(|| translate(&m, facts, f).ok());
                mine.finish(d, std::panic::catch_unwind(run).ok().flatten());
            }
        })
        .ok()?;
    Some(ahead)
}
