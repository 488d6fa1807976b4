//! `wizeng:lib.memory_read`: bytes of a monitor library's exported `memory`
//! (docs/monitor-abi.md#libraries). A library is a separate instance; this
//! lets its monitor read what a library function wrote there (whamm's
//! `read_str(memid(LIB), ...)`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::core::error::Trap;
use crate::core::types::{Extern, FuncType, MemAddr, ValType, Value};
use crate::runtime::store::{Linker, Store};

/// The exported memories of one monitor's libraries, by module name; filled
/// once the group is linked.
pub(super) type LibMemories = Rc<RefCell<HashMap<String, MemAddr>>>;

/// Define `memory_read(name_ptr, name_len, src, dst, len) -> i32` on the
/// linker of one `--monitors` item: copies `len` bytes from `src` of the
/// memory library `name` (in the caller's memory 0) exports to `dst` of
/// the caller's memory 0; 0, or -1 (nothing copied) if there is no such
/// library memory or a range is out of bounds.
pub(super) fn define(linker: &mut Linker, store: &mut Store, mems: &LibMemories) {
    let mems = mems.clone();
    linker.func(
        store,
        monitor_abi::imports::MODULE_LIB,
        "memory_read",
        FuncType::new([ValType::I32; 5], [ValType::I32]),
        move |c, a, r| {
            let arg = |i: usize| a[i].i32().unwrap_or(0) as u32 as usize;
            let name = {
                let mem = c.memory0()?;
                let bytes = mem
                    .get(arg(0)..arg(0).saturating_add(arg(1)))
                    .ok_or_else(|| Trap::host("wizeng:lib.memory_read: name out of bounds"))?;
                String::from_utf8_lossy(bytes).into_owned()
            };
            let (src, dst, len) = (arg(2), arg(3), arg(4));
            let bytes = mems.borrow().get(&name).and_then(|m| {
                let data = &c.store.memories[m.0 as usize].data;
                data.get(src..src.checked_add(len)?).map(<[u8]>::to_vec)
            });
            let ok = match bytes {
                Some(b) => match c.memory0()?.get_mut(dst..dst.saturating_add(b.len())) {
                    Some(d) => {
                        d.copy_from_slice(&b);
                        true
                    }
                    None => false,
                },
                None => false,
            };
            r[0] = Value::I32(if ok { 0 } else { -1 });
            Ok(())
        },
    );
}

/// Record the exported `memory` of each library in `names` (once linked).
pub(super) fn record(mems: &LibMemories, linker: &Linker, names: &[String]) {
    let mut m = mems.borrow_mut();
    for n in names {
        if let Some(Extern::Memory(addr)) = linker.get(n, "memory") {
            m.insert(n.clone(), addr);
        }
    }
}
