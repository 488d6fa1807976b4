//! `whamm:reflect` (docs/monitor-abi.md#reflection): read-only questions about
//! the application's module, answered as Wizard's reflector answers them.
//! They are about the app as it was loaded (its original bytes, also when the
//! JIT runs a woven copy), from the time it is matched: static calls at match
//! time may ask them too. Strings and bytes are copied into the calling
//! module's memory (its export `memory`, else its memory 0) at (ptr, len), at
//! most `len` bytes; the result is the full length. An index out of range, or
//! a region outside that memory, traps; so does a call before the app is
//! known (from a monitor's start function).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

use wasmparser::{Parser, Payload, SectionLimited, TypeRef};

use crate::core::error::{Trap, TrapKind};
use crate::core::types::{FuncType, ValType, Value};
use crate::runtime::store::{Caller, Linker, Store};

const M: &str = monitor_abi::imports::MODULE_REFLECT;

/// The app being matched, shared by the reflector's host functions and the
/// matcher (`Monitors::set_app` fills it).
pub(super) type AppView = Rc<RefCell<Option<Rc<App>>>>;

/// Wizard's section codes (the binary format's) of the sections with entries.
const TYPE: u32 = 1;
const IMPORT: u32 = 2;
const FUNCTION: u32 = 3;
const TABLE: u32 = 4;
const MEMORY: u32 = 5;
const GLOBAL: u32 = 6;
const EXPORT: u32 = 7;
const ELEMENT: u32 = 9;
const DATA: u32 = 11;
const TAG: u32 = 13;

/// One entry of a section's index space: imported (its position in the
/// import section) or defined at a byte offset of the module.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Entry {
    Import(u32),
    At(usize),
}

/// A section's byte range (its contents: count and entries) and entries, in
/// index order, imports first (Wizard's `SectionOutline`).
#[derive(Default, Debug)]
struct Section {
    range: Range<usize>,
    entries: Vec<Entry>,
}

impl Section {
    fn set<'a, T: wasmparser::FromReader<'a>>(&mut self, r: SectionLimited<'a, T>) {
        self.range = r.range();
        for item in r.into_iter_with_offsets() {
            match item {
                Ok((off, _)) => self.entries.push(Entry::At(off)),
                Err(_) => break,
            }
        }
    }

    /// The bytes of entry `i`: `None` out of range, empty for an import. A
    /// defined entry runs to the next one, the last to the section's end.
    fn entry(&self, i: u32) -> Option<Range<usize>> {
        let i = i as usize;
        match *self.entries.get(i)? {
            Entry::Import(_) => Some(0..0),
            Entry::At(start) => match self.entries.get(i + 1) {
                Some(Entry::At(next)) => Some(start..*next),
                _ => Some(start..self.range.end),
            },
        }
    }
}

/// What the reflector knows of the app: its bytes and path, and its outline,
/// made at the first question that needs it.
#[derive(Default, Debug)]
pub(super) struct App {
    bytes: Vec<u8>,
    path: String,
    outline: std::cell::OnceCell<Outline>,
}

impl App {
    pub(super) fn new(bytes: &[u8], path: &str) -> App {
        App {
            bytes: bytes.to_vec(),
            path: path.to_string(),
            outline: Default::default(),
        }
    }

    fn o(&self) -> &Outline {
        self.outline.get_or_init(|| Outline::new(&self.bytes))
    }
}

/// Where each section and entry of the app is (Wizard's `ModuleOutline`).
#[derive(Default, Debug)]
struct Outline {
    module_name: String,
    func_names: HashMap<u32, String>,
    types: Section,
    imports: Section,
    funcs: Section,
    tables: Section,
    memories: Section,
    globals: Section,
    tags: Section,
    exports: Section,
    elements: Section,
    data: Section,
    customs: Vec<Range<usize>>,
    /// Bodies of the defined functions (local declarations through `end`).
    bodies: Vec<Range<usize>>,
}

impl Outline {
    /// Outline `bytes` (an app that loaded, so it is well formed; a part
    /// that cannot be read is left out).
    fn new(bytes: &[u8]) -> Outline {
        let mut a = Outline {
            func_names: crate::core::module::read_func_names(bytes),
            ..Outline::default()
        };
        for p in Parser::new(0).parse_all(bytes) {
            match p {
                Ok(Payload::TypeSection(r)) => a.types.set(r),
                Ok(Payload::ImportSection(r)) => a.set_imports(r),
                Ok(Payload::FunctionSection(r)) => a.funcs.set(r),
                Ok(Payload::TableSection(r)) => a.tables.set(r),
                Ok(Payload::MemorySection(r)) => a.memories.set(r),
                Ok(Payload::TagSection(r)) => a.tags.set(r),
                Ok(Payload::GlobalSection(r)) => a.globals.set(r),
                Ok(Payload::ExportSection(r)) => a.exports.set(r),
                Ok(Payload::ElementSection(r)) => a.elements.set(r),
                Ok(Payload::DataSection(r)) => a.data.set(r),
                Ok(Payload::CodeSectionEntry(b)) => a.bodies.push(b.range()),
                Ok(Payload::CustomSection(c)) => {
                    a.customs.push(c.range());
                    if let wasmparser::KnownCustom::Name(r) = c.as_known() {
                        for n in r.into_iter().flatten() {
                            if let wasmparser::Name::Module { name, .. } = n {
                                a.module_name = name.to_string();
                            }
                        }
                    }
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        a
    }

    fn set_imports(&mut self, r: SectionLimited<'_, wasmparser::Import<'_>>) {
        self.imports.set(r.clone());
        for (n, i) in r.into_iter().enumerate() {
            let Ok(i) = i else { break };
            let space = match i.ty {
                TypeRef::Func(_) => &mut self.funcs,
                TypeRef::Table(_) => &mut self.tables,
                TypeRef::Memory(_) => &mut self.memories,
                TypeRef::Global(_) => &mut self.globals,
                TypeRef::Tag(_) => &mut self.tags,
            };
            space.entries.push(Entry::Import(n as u32));
        }
    }

    /// The section of `code` whose entries `read_*_def`/`get_import_index`
    /// reach, as Wizard's reflector maps them.
    fn section(&self, code: u32) -> Option<&Section> {
        Some(match code {
            TYPE => &self.types,
            IMPORT => &self.imports,
            FUNCTION => &self.funcs,
            TABLE => &self.tables,
            MEMORY => &self.memories,
            GLOBAL => &self.globals,
            EXPORT => &self.exports,
            ELEMENT => &self.elements,
            DATA => &self.data,
            TAG => &self.tags,
            _ => return None,
        })
    }

    /// The byte range of defined function `fid` (empty for an import).
    fn body(&self, fid: u32) -> Option<Range<usize>> {
        let imported = self
            .funcs
            .entries
            .iter()
            .filter(|e| matches!(e, Entry::Import(_)))
            .count() as u32;
        match fid.checked_sub(imported) {
            Some(d) => self.bodies.get(d as usize).cloned(),
            None => Some(0..0),
        }
    }
}

fn oob(what: &str) -> Trap {
    Trap::host(format!("whamm:reflect: {what} out of bounds"))
}

fn app(view: &AppView) -> Result<Rc<App>, Trap> {
    view.borrow()
        .clone()
        .ok_or_else(|| Trap::host("whamm:reflect: the application is not loaded yet"))
}

/// Copy `src` to (ptr, len) of the caller's memory; the full length.
fn copy_out(c: &mut Caller<'_>, ptr: &Value, len: &Value, src: &[u8]) -> Result<Value, Trap> {
    let mem = c.memory_mut()?;
    let p = ptr.i32().unwrap_or(0) as u32 as usize;
    let l = len.i32().unwrap_or(0) as u32 as usize;
    let dst = mem
        .get_mut(p..p.saturating_add(l))
        .ok_or_else(|| Trap::new(TrapKind::MemoryOutOfBounds))?;
    let n = dst.len().min(src.len());
    dst[..n].copy_from_slice(&src[..n]);
    Ok(Value::I32(src.len() as i32))
}

type Answer = fn(&App, &[Value]) -> Result<i32, Trap>;
type Bytes = fn(&App, &[Value]) -> Result<Range<usize>, Trap>;

/// Questions answered with a number.
const COUNTS: &[(&str, usize, Answer)] = &[
    ("get_module_size", 0, |a, _| Ok(a.bytes.len() as i32)),
    ("get_num_types", 0, |a, _| {
        Ok(a.o().types.entries.len() as i32)
    }),
    ("get_num_imports", 0, |a, _| {
        Ok(a.o().imports.entries.len() as i32)
    }),
    ("get_num_functions", 0, |a, _| {
        Ok(a.o().funcs.entries.len() as i32)
    }),
    ("get_num_tables", 0, |a, _| {
        Ok(a.o().tables.entries.len() as i32)
    }),
    ("get_num_memories", 0, |a, _| {
        Ok(a.o().memories.entries.len() as i32)
    }),
    ("get_num_globals", 0, |a, _| {
        Ok(a.o().globals.entries.len() as i32)
    }),
    (
        "get_num_tags",
        0,
        |a, _| Ok(a.o().tags.entries.len() as i32),
    ),
    ("get_num_exports", 0, |a, _| {
        Ok(a.o().exports.entries.len() as i32)
    }),
    ("get_num_elements", 0, |a, _| {
        Ok(a.o().elements.entries.len() as i32)
    }),
    (
        "get_num_data",
        0,
        |a, _| Ok(a.o().data.entries.len() as i32),
    ),
    ("get_num_custom_sections", 0, |a, _| {
        Ok(a.o().customs.len() as i32)
    }),
    ("get_import_index", 2, import_index),
];

/// `get_import_index(section, i)`: the import-section position of entry `i`
/// of the function, table, memory, global or tag index space, -1 if defined.
fn import_index(a: &App, args: &[Value]) -> Result<i32, Trap> {
    let code = args[0].i32().unwrap_or(-1) as u32;
    let s = match code {
        FUNCTION | TABLE | MEMORY | GLOBAL | TAG => a.o().section(code),
        _ => None,
    }
    .ok_or_else(|| oob(&format!("section code {code} (get_import_index)")))?;
    let i = args[1].i32().unwrap_or(-1);
    match s.entries.get(usize::try_from(i).map_err(|_| oob("index"))?) {
        Some(Entry::Import(n)) => Ok(*n as i32),
        Some(Entry::At(_)) => Ok(-1),
        None => Err(oob("index")),
    }
}

/// Definitions read by index (`(i, ptr, len) -> i32`).
fn def_of(code: u32) -> impl Fn(&App, &[Value]) -> Result<Range<usize>, Trap> {
    move |a, args| {
        let s = a.o().section(code).ok_or_else(|| oob("section code"))?;
        s.entry(args[0].i32().unwrap_or(-1) as u32)
            .ok_or_else(|| oob("index"))
    }
}

const DEFS: &[(&str, u32)] = &[
    ("read_type_def", TYPE),
    ("read_import_def", IMPORT),
    ("read_function_def", FUNCTION),
    ("read_table_def", TABLE),
    ("read_memory_def", MEMORY),
    ("read_global_def", GLOBAL),
    ("read_tag_def", TAG),
    ("read_export_def", EXPORT),
    ("read_element_def", ELEMENT),
    ("read_data_def", DATA),
];

/// Whole ranges (`(ptr, len) -> i32`, `read_section` and
/// `read_custom_section` with one argument before).
const RANGES: &[(&str, usize, Bytes)] = &[
    ("read_module_def", 0, |a, _| Ok(0..a.bytes.len())),
    // Sections without entries here (custom, start, code, data count) are
    // empty, as in Wizard; so is a section the app does not have.
    ("read_section", 1, |a, args| {
        let code = args[0].i32().unwrap_or(-1) as u32;
        Ok(a.o().section(code).map_or(0..0, |s| s.range.clone()))
    }),
    ("read_custom_section", 1, |a, args| {
        let i = usize::try_from(args[0].i32().unwrap_or(-1)).map_err(|_| oob("index"))?;
        a.o()
            .customs
            .get(i)
            .cloned()
            .ok_or_else(|| oob("custom section index"))
    }),
];

fn check_fid(a: &App, fid: &Value) -> Result<u32, Trap> {
    let fid = fid.i32().unwrap_or(-1);
    match u32::try_from(fid) {
        Ok(f) if (f as usize) < a.o().funcs.entries.len() => Ok(f),
        _ => Err(oob(&format!("function index {fid}"))),
    }
}

/// Answers that are strings or bytes not in the module's byte ranges.
fn define_strings(linker: &mut Linker, store: &mut Store, view: &AppView) {
    let i = ValType::I32;
    let strings: [(&str, usize, fn(&App, &[Value]) -> Result<Vec<u8>, Trap>); 4] = [
        ("read_module_path", 0, |a, _| Ok(a.path.as_bytes().to_vec())),
        ("read_module_name", 0, |a, _| {
            Ok(a.o().module_name.as_bytes().to_vec())
        }),
        // The name section's name, else empty (as in Wizard).
        ("read_function_name", 1, |a, args| {
            let fid = check_fid(a, &args[0])?;
            Ok(a.o()
                .func_names
                .get(&fid)
                .map_or(Vec::new(), |n| n.as_bytes().to_vec()))
        }),
        // An imported function has no body: empty.
        ("read_function_body", 1, |a, args| {
            let fid = check_fid(a, &args[0])?;
            Ok(a.bytes[a.o().body(fid).unwrap_or(0..0)].to_vec())
        }),
    ];
    for (name, before, f) in strings {
        let view = view.clone();
        let params = vec![i; before + 2];
        linker.func(
            store,
            M,
            name,
            FuncType::new(params, [i]),
            move |c, a, r| {
                let app = app(&view)?;
                let src = f(&app, a)?;
                r[0] = copy_out(c, &a[before], &a[before + 1], &src)?;
                Ok(())
            },
        );
    }
}

/// Define every function of Wizard's reflector, reading `view`.
pub(super) fn define_reflect(linker: &mut Linker, store: &mut Store, view: &AppView) {
    let i = ValType::I32;
    for &(name, n, f) in COUNTS {
        let view = view.clone();
        linker.func(
            store,
            M,
            name,
            FuncType::new(vec![i; n], [i]),
            move |_, a, r| {
                r[0] = Value::I32(f(&*app(&view)?, a)?);
                Ok(())
            },
        );
    }
    let copy = |linker: &mut Linker,
                store: &mut Store,
                name: &str,
                before: usize,
                extra: usize,
                f: Rc<dyn Fn(&App, &[Value]) -> Result<Range<usize>, Trap>>| {
        let view = view.clone();
        let ty = FuncType::new(vec![i; before + 2 + extra], [i]);
        linker.func(store, M, name, ty, move |c, a, r| {
            let app = app(&view)?;
            let range = f(&app, a)?;
            r[0] = copy_out(c, &a[before], &a[before + 1], &app.bytes[range])?;
            Ok(())
        });
    };
    for &(name, code) in DEFS {
        copy(linker, store, name, 1, 0, Rc::new(def_of(code)));
    }
    for &(name, before, f) in RANGES {
        // Wizard's `read_section` takes a fourth i32 it does not use.
        let extra = usize::from(name == "read_section");
        copy(linker, store, name, before, extra, Rc::new(f));
    }
    define_strings(linker, store, view);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wat(text: &str) -> Vec<u8> {
        wat::parse_str(text).unwrap()
    }

    #[test]
    fn outline_has_imports_first_and_entry_ranges() {
        let bytes = wat(r#"(module
            (import "a" "f" (func))
            (import "a" "g" (global i32))
            (func (export "h")) (func)
            (global i32 (i32.const 7))
            (@custom "c1" "xy"))"#);
        let a = Outline::new(&bytes);
        assert_eq!(a.funcs.entries.len(), 3);
        assert_eq!(a.funcs.entries[0], Entry::Import(0));
        assert_eq!(a.globals.entries[0], Entry::Import(1));
        assert_eq!(a.funcs.entry(0), Some(0..0));
        // Each function-section entry is one type index byte.
        assert_eq!(a.funcs.entry(1).map(|r| r.len()), Some(1));
        assert_eq!(a.funcs.entry(2).map(|r| r.end), Some(a.funcs.range.end));
        assert_eq!(a.funcs.entry(3), None);
        assert_eq!(a.customs.len(), 1);
        // A custom section's bytes are its name (with its length) and payload.
        assert_eq!(&bytes[a.customs[0].clone()], b"\x02c1xy");
        assert_eq!(a.body(0), Some(0..0));
        assert_eq!(a.body(1).map(|r| bytes[r].to_vec()), Some(vec![0x00, 0x0b]));
    }
}
