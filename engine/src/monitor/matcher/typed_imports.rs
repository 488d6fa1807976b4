//! Wizard's two `wizeng` imports whose type is the importer's own
//! (docs/monitor-abi.md#output-and-time): `new_funcref`, `(i32 ptr, i32 len)
//! -> (ref null? $f)` for a function type `$f` of the importer, makes a
//! function of type `$f` from the body at `ptr`; `puta`, `(ref null $a, i32
//! offset, i32 len)` for an array type `$a` of `i8`, writes elements of
//! such an array to stdout. Each import gets a host function of exactly the
//! type it declares; another shape is a load failure naming the import.
//!
//! A made function is the one function of a module made for it: the
//! importer's type section, every function, table, memory, global and tag of
//! the importer's instance imported at its index, every function exported
//! (so `ref.func` may name any), and the body. It is instantiated in the
//! store like any module and runs in every tier.

use std::rc::Rc;
use std::sync::Arc;

use wasm_encoder::{EntityType, ExportKind, RawSection, SectionId};
use wasmparser::{Parser, Payload, TypeRef};

use crate::core::error::Trap;
use crate::core::gc_types::{CompKind, FullType, HeapTy};
use crate::core::module::ImportDesc;
use crate::core::types::*;
use crate::runtime::store::{Caller, HostFn, Linker, Store};
use crate::Module;

use monitor_abi::imports::MODULE_WIZENG;

/// Functions `new_funcref` may make while wasm code runs, per store (the
/// store keeps room for them, see `Store::keep_room_for_funcs`).
pub(crate) const MAX_NEW_FUNCS: usize = 4096;

/// Define, in `linker`, `wizeng.new_funcref` and `wizeng.puta` at the types
/// `module` imports them at.
pub(super) fn define(
    linker: &mut Linker,
    store: &mut Store,
    module: &Arc<Module>,
) -> Result<(), String> {
    let mut ids = None;
    for imp in &module.imports {
        let ImportDesc::Func(t) = imp.desc else {
            continue;
        };
        if imp.module != MODULE_WIZENG || !matches!(imp.name.as_str(), "new_funcref" | "puta") {
            continue;
        }
        let shape = |want: &str| {
            format!(
                "import `wizeng.{}` has type {}, but Wizard's is {want}",
                imp.name, module.types[t as usize]
            )
        };
        let f: HostFn = if imp.name == "new_funcref" {
            let (sig, nullable) = funcref_result(module, t)
                .ok_or_else(|| shape("(i32, i32) -> (ref null? $f), $f a function type"))?;
            store.keep_room_for_funcs(MAX_NEW_FUNCS);
            Rc::new(new_funcref(module.clone(), sig, nullable))
        } else {
            if !is_puta(module, t) {
                return Err(shape("((ref null $a), i32, i32), $a an array of i8"));
            }
            let Some(Extern::Func(putc)) = linker.get(MODULE_WIZENG, "putc") else {
                return Err("`wizeng.puta` needs `wizeng.putc`".into());
            };
            Rc::new(move |c: &mut Caller<'_>, a: &[Value], _: &mut [Value]| puta(c, a, putc))
        };
        let id = ids.get_or_insert_with(|| store.types.intern_module(module))[t as usize];
        let a = store.add_host_func_typed(module.types[t as usize].clone(), id, f);
        linker.define_for_type(MODULE_WIZENG, &imp.name, t, a);
    }
    Ok(())
}

/// The parameter (or result) types of function type `t` of `m`.
fn fields(m: &Module, t: u32) -> Option<(Vec<FullType>, Vec<FullType>)> {
    let sub = m.gc.types.get(t as usize)?;
    if sub.kind != CompKind::Func {
        return None;
    }
    let (p, r) = sub.fields.split_at(sub.num_params as usize);
    Some((
        p.iter().map(|f| f.ty).collect(),
        r.iter().map(|f| f.ty).collect(),
    ))
}

/// `new_funcref`'s shape: `(i32, i32) -> (ref null? $f)`; `$f` and whether
/// the result is nullable.
fn funcref_result(m: &Module, t: u32) -> Option<(u32, bool)> {
    let (params, results) = fields(m, t)?;
    match (params.as_slice(), results.as_slice()) {
        (
            [FullType::I32, FullType::I32],
            [FullType::Ref {
                nullable,
                heap: HeapTy::Concrete(f),
            }],
        ) if m.gc.types.get(*f as usize)?.kind == CompKind::Func => Some((*f, *nullable)),
        _ => None,
    }
}

/// `puta`'s shape: `((ref null $a), i32, i32)`, `$a` an array of `i8`.
fn is_puta(m: &Module, t: u32) -> bool {
    let Some((params, results)) = fields(m, t) else {
        return false;
    };
    let [FullType::Ref {
        nullable: true,
        heap: HeapTy::Concrete(a),
    }, FullType::I32, FullType::I32] = params.as_slice()
    else {
        return false;
    };
    let arr = m.gc.types.get(*a as usize);
    results.is_empty()
        && arr.is_some_and(|s| s.kind == CompKind::Array && s.fields[0].ty == FullType::I8)
}

/// `puta(array, offset, len)`: elements `offset..offset + len` to stdout,
/// each through the importer's `wizeng.putc` (so its output goes where the
/// rest of its output goes, in order).
fn puta(c: &mut Caller<'_>, a: &[Value], putc: FuncAddr) -> Result<(), Trap> {
    let slot = a[0].to_slot();
    let (off, len) = (
        a[1].i32().unwrap_or(0) as u32,
        a[2].i32().unwrap_or(0) as u32,
    );
    let obj = c
        .store
        .heap
        .get(slot)
        .ok_or_else(|| Trap::new(crate::core::error::TrapKind::NullArrayReference))?;
    let bytes: Option<Vec<u8>> = obj
        .slots
        .get(off as usize..off as usize + len as usize)
        .map(|s| s.iter().map(|v| *v as u8).collect());
    let bytes = bytes.ok_or_else(|| {
        Trap::host(format!(
            "wizeng.puta: elements {off}..{} out of bounds of an array of {}",
            off as u64 + len as u64,
            obj.slots.len()
        ))
    })?;
    for b in bytes {
        c.call(putc, &[Value::I32(b as i32)])?;
    }
    Ok(())
}

/// `new_funcref(ptr, len)` for function type `sig` of `module`: null (a trap
/// where the result is not nullable) when the body does not validate.
fn new_funcref(
    module: Arc<Module>,
    sig: u32,
    nullable: bool,
) -> impl Fn(&mut Caller<'_>, &[Value], &mut [Value]) -> Result<(), Trap> {
    move |c, a, r| {
        let inst = c
            .instance
            .filter(|i| Arc::ptr_eq(&c.store.instance(*i).module, &module))
            .ok_or_else(|| Trap::host("wizeng.new_funcref: called from outside its importer"))?;
        let body = super::guest_bytes(c, a)?
            .ok_or_else(|| Trap::host("wizeng.new_funcref: body out of bounds of memory 0"))?
            .to_vec();
        if !c.store.can_add_func() {
            return Err(Trap::host(format!(
                "wizeng.new_funcref: more than {MAX_NEW_FUNCS} functions made while the app runs"
            )));
        }
        let f = match made_module(&module, sig, &body) {
            Ok(m) => Some(instantiate(c.store, inst, m)?),
            Err(_) if nullable => None,
            Err(e) => return Err(Trap::host(format!("wizeng.new_funcref: {e}"))),
        };
        r[0] = Value::FuncRef(f);
        Ok(())
    }
}

/// Instantiate a made module with `inst`'s entities; its function.
fn instantiate(store: &mut Store, inst: InstanceId, m: Module) -> Result<FuncAddr, Trap> {
    let i = store.instance(inst);
    let imports: Vec<Extern> = (i.funcs.iter().map(|&f| Extern::Func(f)))
        .chain(i.tables.iter().map(|&t| Extern::Table(t)))
        .chain(i.memories.iter().map(|&x| Extern::Memory(x)))
        .chain(i.globals.iter().map(|&g| Extern::Global(g)))
        .chain(i.tags.iter().map(|&t| Extern::Tag(t)))
        .collect();
    let id = store
        .instantiate_with(&Arc::new(m), &imports)
        .map_err(|e| Trap::host(format!("wizeng.new_funcref: {e}")))?;
    Ok(*store.instance(id).funcs.last().expect("the made function"))
}

/// The module of one function of type `sig` with `body` (locals and code,
/// its final `end` included) in the context of `caller`; an error if it does
/// not validate.
fn made_module(caller: &Module, sig: u32, body: &[u8]) -> Result<Module, String> {
    let (types, entities) = caller_entities(&caller.bytes).map_err(|e| e.to_string())?;
    let mut out = wasm_encoder::Module::new();
    if let Some(r) = types {
        out.section(&RawSection {
            id: SectionId::Type as u8,
            data: &caller.bytes[r],
        });
    }
    let mut imports = wasm_encoder::ImportSection::new();
    let mut funcs = 0;
    for (k, e) in entities.iter().enumerate() {
        funcs += matches!(e, EntityType::Function(_)) as u32;
        imports.import("", &k.to_string(), *e);
    }
    out.section(&imports);
    let mut fs = wasm_encoder::FunctionSection::new();
    fs.function(sig);
    out.section(&fs);
    let mut exports = wasm_encoder::ExportSection::new();
    for f in 0..funcs {
        exports.export(&f.to_string(), ExportKind::Func, f);
    }
    out.section(&exports);
    let mut code = wasm_encoder::CodeSection::new();
    code.raw(body);
    out.section(&code);
    Module::new(&out.finish()).map_err(|e| format!("the body does not validate: {e}"))
}

/// The type section's range and every entity of the module `bytes` as an
/// import: functions, tables, memories, globals, tags, each in index order.
type Entities = (Option<std::ops::Range<usize>>, Vec<EntityType>);

fn caller_entities(bytes: &[u8]) -> Result<Entities, Box<dyn std::error::Error>> {
    let mut types = None;
    let mut kinds: [Vec<EntityType>; 5] = Default::default();
    for p in Parser::new(0).parse_all(bytes) {
        match p? {
            Payload::TypeSection(r) => types = Some(r.range()),
            Payload::ImportSection(r) => {
                for i in r {
                    let ty = i?.ty;
                    let k = match ty {
                        TypeRef::Func(_) => 0,
                        TypeRef::Table(_) => 1,
                        TypeRef::Memory(_) => 2,
                        TypeRef::Global(_) => 3,
                        TypeRef::Tag(_) => 4,
                    };
                    kinds[k].push(EntityType::try_from(ty)?);
                }
            }
            Payload::FunctionSection(r) => {
                for t in r {
                    kinds[0].push(EntityType::Function(t?));
                }
            }
            Payload::TableSection(r) => {
                for t in r {
                    kinds[1].push(EntityType::Table(t?.ty.try_into()?));
                }
            }
            Payload::MemorySection(r) => {
                for m in r {
                    kinds[2].push(EntityType::Memory(m?.into()));
                }
            }
            Payload::GlobalSection(r) => {
                for g in r {
                    kinds[3].push(EntityType::Global(g?.ty.try_into()?));
                }
            }
            Payload::TagSection(r) => {
                for t in r {
                    kinds[4].push(EntityType::Tag(t?.into()));
                }
            }
            _ => {}
        }
    }
    Ok((types, kinds.into_iter().flatten().collect()))
}
