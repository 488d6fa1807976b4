//! A monitor whose output goes to a file of its own (`trace{file=PATH}`):
//! its `wizeng.puts`/`puti`/`putc` imports are bound to host functions that
//! write to the file, so its lines never mix with the app's stdout. Other
//! monitors keep the shared ones (the WASI context's stdout).

use std::cell::RefCell;
use std::io::{BufWriter, Write as _};
use std::path::Path;
use std::rc::Rc;

use crate::core::types::{FuncType, ValType};
use crate::runtime::store::{Linker, Store};
use crate::Trap;

/// A monitor's own output file (buffered; [`MonitorOutput::flush`] at exit).
pub type MonitorOutput = Rc<RefCell<BufWriter<std::fs::File>>>;

/// Where a monitor's `wizeng.puts`/`puti`/`putc` write.
pub(super) type Sink = Rc<dyn Fn(&[u8]) -> std::io::Result<()>>;

/// Bind `wizeng.puts`, `puti` and `putc` of `linker` to `sink`.
pub(super) fn define_puts(linker: &mut Linker, store: &mut Store, sink: Sink) {
    let i32t = ValType::I32;
    let put = |name: &'static str, sink: &Sink, bytes: &[u8]| {
        sink(bytes).map_err(|e| Trap::host(format!("wizeng.{name}: {e}")))
    };
    let o = sink.clone();
    linker.func(
        store,
        "wizeng",
        "puts",
        FuncType::new([i32t, i32t], []),
        move |c, a, _| {
            let bytes = super::guest_bytes(c, a)?
                .ok_or_else(|| Trap::new(crate::TrapKind::MemoryOutOfBounds))?;
            put("puts", &o, bytes)
        },
    );
    let o = sink.clone();
    linker.func(
        store,
        "wizeng",
        "puti",
        FuncType::new([i32t], []),
        move |_, a, _| put("puti", &o, a[0].i32().unwrap_or(0).to_string().as_bytes()),
    );
    let o = sink;
    linker.func(
        store,
        "wizeng",
        "putc",
        FuncType::new([i32t], []),
        move |_, a, _| put("putc", &o, &[a[0].i32().unwrap_or(0) as u8]),
    );
}

/// Create (truncate) `path` and bind the `wizeng` output imports of
/// `linker` to it.
pub(super) fn redirect(
    linker: &mut Linker,
    store: &mut Store,
    path: &Path,
) -> std::io::Result<MonitorOutput> {
    let file: MonitorOutput = Rc::new(RefCell::new(BufWriter::new(std::fs::File::create(path)?)));
    let f = file.clone();
    define_puts(linker, store, Rc::new(move |b| f.borrow_mut().write_all(b)));
    Ok(file)
}
