//! Export-name grammar: examples, errors, canonical printing and round trips.

use monitor_abi::pattern::*;
use monitor_abi::Opcode;

fn probe(name: &str) -> Pattern {
    match parse_export_name(name) {
        Ok(ExportMeaning::Probe(p)) => p,
        other => panic!("{name}: {other:?}"),
    }
}

fn err(name: &str) -> PatternError {
    match parse_export_name(name) {
        Err(e) => e,
        Ok(m) => panic!("{name}: expected error, got {m:?}"),
    }
}

fn op(m: &str) -> OpcodeMatch {
    OpcodeMatch::One(Opcode::from_mnemonic(m).expect(m))
}

#[test]
fn abi_examples() {
    let p = probe("wasm:opcode:call");
    assert_eq!(
        p.event,
        Event::Opcode {
            matches: op("call"),
            mode: Mode::Before
        }
    );
    assert!(p.predicate.is_none() && p.params.is_empty());

    let p = probe("wasm:opcode:*(fid, pc)");
    assert_eq!(
        p.event,
        Event::Opcode {
            matches: OpcodeMatch::Any,
            mode: Mode::Before
        }
    );
    assert_eq!(p.params, vec![Param::Fid, Param::Pc]);

    let p = probe("wasm:opcode:i64.load32_u /$pred(fid, pc, imm2, offset)/ ($alloc(fid, pc), arg0, offset, frame)");
    assert_eq!(
        p.event,
        Event::Opcode {
            matches: op("i64.load32_u"),
            mode: Mode::Before
        }
    );
    assert_eq!(
        p.predicate,
        Some(StaticCall {
            name: "$pred".into(),
            params: vec![Param::Fid, Param::Pc, Param::Imm(2), Param::Offset]
        })
    );
    assert_eq!(
        p.params,
        vec![
            Param::Call(StaticCall {
                name: "$alloc".into(),
                params: vec![Param::Fid, Param::Pc]
            }),
            Param::Arg(0),
            Param::Offset,
            Param::Frame
        ]
    );

    assert_eq!(probe("wasm:func:entry").event, Event::FuncEntry);
    assert_eq!(probe("wasm:func:exit(fid)").event, Event::FuncExit);
    assert_eq!(probe("wasm:block:start").event, Event::BlockStart);
    assert_eq!(
        probe("wasm:block:end(instr_count)").params,
        vec![Param::InstrCount]
    );
    assert_eq!(
        probe("wasm:opcode:call:after(arg0)").event,
        Event::Opcode {
            matches: op("call"),
            mode: Mode::After
        }
    );
    assert_eq!(
        probe("wasm:opcode:*:after").event,
        Event::Opcode {
            matches: OpcodeMatch::Any,
            mode: Mode::After
        }
    );
    assert_eq!(
        probe("wasm:opcode:br_table:before").event,
        Event::Opcode {
            matches: op("br_table"),
            mode: Mode::Before
        }
    );
    let all = probe("wasm:opcode:br_table(pc,fid,frame,probe_id,num_targets,offset,instr_count,at_func_end,arg3,imm0,local12,$f(opname,fname))");
    assert_eq!(all.params.len(), 12);
}

#[test]
fn special_and_ignored_names() {
    assert_eq!(parse_export_name("wasm:exit"), Ok(ExportMeaning::Exit));
    assert_eq!(parse_export_name("wasm:begin"), Ok(ExportMeaning::Begin));
    assert_eq!(parse_export_name("wasm:exit ()"), Ok(ExportMeaning::Exit));
    assert_eq!(parse_export_name("main"), Ok(ExportMeaning::NotProbe));
    assert_eq!(parse_export_name(""), Ok(ExportMeaning::NotProbe));
    assert_eq!(parse_export_name("wasm"), Ok(ExportMeaning::NotProbe));
    assert_eq!(
        parse_export_name("WASM:opcode:call"),
        Ok(ExportMeaning::NotProbe)
    );
    assert_eq!(
        parse_export_name("whamm_buffer"),
        Ok(ExportMeaning::NotProbe)
    );
    assert!(err("wasm:exit(pc)").is_syntax());
    assert!(err("wasm:begin/$p(pc)/").is_syntax());
}

#[test]
fn whitespace() {
    let a = probe("wasm:opcode:call/$p(fid,pc)/(pc,arg0)");
    for s in [
        "wasm:opcode:call /$p(fid,pc)/ (pc,arg0)",
        "wasm:opcode:call / $p( fid , pc ) / ( pc , arg0 )",
        "wasm:opcode:call\t/\n$p(fid,\r\npc)\t/\t(\tpc\t,arg0 )  ",
        "wasm:opcode:call/$p (fid,pc)/(pc,arg0)",
    ] {
        assert_eq!(probe(s), a, "{s:?}");
    }
    assert_eq!(probe("wasm:func:entry ( )").params, vec![]);
    assert_eq!(probe("wasm:func:entry()"), probe("wasm:func:entry"));
    // No whitespace inside the prefix or the event.
    assert!(err("wasm: opcode:call").is_syntax());
    assert!(err("wasm:opcode :call").is_syntax());
}

/// Wizard's names of the nullable `ref.test`/`ref.cast` have a space; they
/// are events of their own, and the probe language's `ref.test_null` is not
/// an export name.
#[test]
fn nullable_cast_names() {
    for (name, m, mode) in [
        (
            "wasm:opcode:ref.test null(arg0)",
            "ref.test null",
            Mode::Before,
        ),
        (
            "wasm:opcode:ref.cast null:after (arg0)",
            "ref.cast null",
            Mode::After,
        ),
        ("wasm:opcode:ref.cast(arg0)", "ref.cast", Mode::Before),
    ] {
        let p = probe(name);
        assert_eq!(
            p.event,
            Event::Opcode {
                matches: op(m),
                mode
            },
            "{name}"
        );
        round_trip(&p);
    }
    assert_ne!(op("ref.test"), op("ref.test null"));
    let e = err("wasm:opcode:ref.test_null");
    assert_eq!(
        e.kind,
        PatternErrorKind::UnknownOpcode("ref.test_null".into())
    );
    assert!(err("wasm:opcode:ref.test nul").is_syntax());
}

#[test]
fn unknown_events_and_opcodes_are_ignorable() {
    let e = err("wasm:opcode:i32.frobnicate(pc)");
    assert_eq!(
        e.kind,
        PatternErrorKind::UnknownOpcode("i32.frobnicate".into())
    );
    assert_eq!(e.column, 12);
    assert!(e.is_ignorable());

    for name in [
        "wasm:foo",
        "wasm:func:foo(pc)",
        "wasm:func:entry:after",
        "wasm:memory:grow",
        "wasm:opcode:call:alt",
        "wasm:opcode:*:semantic_after(pc)",
        "wasm:end",
        "wasm:report",
    ] {
        let e = err(name);
        assert!(
            matches!(e.kind, PatternErrorKind::UnknownEvent(_)),
            "{name}: {e:?}"
        );
        assert!(e.is_ignorable());
    }
    // A syntax error wins over an unknown opcode.
    assert!(err("wasm:opcode:i32.frobnicate(pc").is_syntax());
}

#[test]
fn syntax_errors_carry_columns() {
    let cases: &[(&str, usize)] = &[
        ("wasm:", 5),
        ("wasm:opcode", 11),
        ("wasm:opcode:", 12),
        ("wasm:opcode:call(", 17),
        ("wasm:opcode:call(pc", 19),
        ("wasm:opcode:call(pc,)", 20),
        ("wasm:opcode:call(pc,,fid)", 20),
        ("wasm:opcode:call(pcx)", 17),
        ("wasm:opcode:call(arg)", 20),
        ("wasm:opcode:call(arg99999999999)", 20),
        ("wasm:opcode:call(pc) x", 21),
        ("wasm:opcode:call /$p(pc)", 24),
        ("wasm:opcode:call //", 18),
        ("wasm:opcode:call /$p/", 20),
        ("wasm:opcode:call:", 17),
        ("wasm:opcode:call!", 16),
        ("wasm:func:", 10),
        ("wasm:opcode:call(pc)(fid)", 20),
        ("wasm:opcode:call(é)", 17),
    ];
    for (name, col) in cases {
        let e = err(name);
        assert!(e.is_syntax(), "{name}: {e:?}");
        assert_eq!(e.column, *col, "{name}: {e}");
        assert!(e.column <= name.len());
    }
}

#[test]
fn caret_rendering() {
    let name = "wasm:opcode:call(pc,,fid)";
    let e = err(name);
    let r = render_caret(name, &e);
    let lines: Vec<&str> = r.lines().collect();
    assert_eq!(lines[0], name);
    assert_eq!(lines[1].find('^'), Some(20));
    assert!(lines[1].contains("expected a parameter"), "{r}");
    // Non-ASCII before the column: the caret counts characters.
    let name = "wasm:opcode:call(é";
    let e = err(name);
    let r = render_caret(name, &e);
    assert_eq!(r.lines().nth(1).and_then(|l| l.find('^')), Some(17));
    // Control characters are replaced so the caret lines up.
    let name = "wasm:\nfoo(";
    let e = err(name);
    assert!(!render_caret(name, &e)
        .lines()
        .next()
        .unwrap_or("")
        .contains('\n'));
}

#[test]
fn canonical_display() {
    let p = probe("wasm:opcode:call:before / $p( fid ) / ( pc , $q(imm0) )");
    assert_eq!(p.to_string(), "wasm:opcode:call/$p(fid)/(pc,$q(imm0))");
    assert_eq!(
        probe("wasm:opcode:*:after ()").to_string(),
        "wasm:opcode:*:after"
    );
    assert_eq!(
        probe("wasm:block:end(arg007)").to_string(),
        "wasm:block:end(arg7)"
    );
    assert_eq!(ExportMeaning::Exit.to_string(), "wasm:exit");
    assert_eq!(
        "wasm:func:entry(fid)"
            .parse::<Pattern>()
            .map(|p| p.to_string()),
        Ok("wasm:func:entry(fid)".into())
    );
    assert!("wasm:exit".parse::<Pattern>().is_err());
}

fn round_trip(p: &Pattern) {
    let s = p.to_string();
    assert_eq!(parse_pattern(&s).as_ref(), Ok(p), "{s}");
}

/// Every combination of a small set of events, predicates and param lists.
#[test]
fn exhaustive_small_round_trips() {
    let events = [
        Event::Opcode {
            matches: OpcodeMatch::Any,
            mode: Mode::Before,
        },
        Event::Opcode {
            matches: OpcodeMatch::Any,
            mode: Mode::After,
        },
        Event::Opcode {
            matches: op("br_table"),
            mode: Mode::Before,
        },
        Event::Opcode {
            matches: op("i32.atomic.rmw8.add_u"),
            mode: Mode::After,
        },
        Event::FuncEntry,
        Event::FuncExit,
        Event::BlockStart,
        Event::BlockEnd,
    ];
    let indexed = [
        Param::Arg(0),
        Param::Imm(u32::MAX),
        Param::Local(17),
        Param::ArgTy(1),
        Param::LocalTy(2),
        Param::Call(StaticCall {
            name: "$f".into(),
            params: vec![],
        }),
        Param::Call(StaticCall {
            name: "0_x$".into(),
            params: vec![
                Param::Pc,
                Param::Call(StaticCall {
                    name: "g".into(),
                    params: vec![],
                }),
            ],
        }),
    ];
    let atoms: Vec<Param> = Param::SIMPLE.iter().cloned().chain(indexed).collect();
    let preds = [
        None,
        Some(StaticCall {
            name: "$p".into(),
            params: vec![],
        }),
        Some(StaticCall {
            name: "pc".into(),
            params: vec![Param::Pc, Param::Imm(3)],
        }),
    ];
    let mut n = 0;
    for event in events {
        for predicate in &preds {
            for a in 0..=atoms.len() {
                for b in 0..=atoms.len() {
                    let mut params = Vec::new();
                    if a < atoms.len() {
                        params.push(atoms[a].clone());
                    }
                    if b < atoms.len() {
                        params.push(atoms[b].clone());
                    }
                    round_trip(&Pattern {
                        event,
                        predicate: predicate.clone(),
                        params,
                    });
                    n += 1;
                }
            }
        }
    }
    assert!(n > 5000);
    // Every opcode, both modes.
    for o in Opcode::all() {
        for mode in [Mode::Before, Mode::After] {
            round_trip(&Pattern {
                event: Event::Opcode {
                    matches: OpcodeMatch::One(o),
                    mode,
                },
                predicate: None,
                params: vec![],
            });
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn ident() -> impl Strategy<Value = String> {
        "[A-Za-z0-9_$]{1,6}"
    }

    fn param() -> impl Strategy<Value = Param> {
        let leaf = prop_oneof![
            Just(Param::Pc),
            Just(Param::Fid),
            Just(Param::Frame),
            Just(Param::ProbeId),
            Just(Param::Opname),
            Just(Param::Fname),
            Just(Param::NumTargets),
            Just(Param::Offset),
            Just(Param::InstrCount),
            Just(Param::AtFuncEnd),
            Just(Param::Opidx),
            Just(Param::Opcode),
            Just(Param::DefaultTarget),
            Just(Param::Targets),
            Just(Param::TargetFnName),
            Just(Param::TargetFnType),
            Just(Param::TargetImpModule),
            any::<u32>().prop_map(Param::ArgTy),
            any::<u32>().prop_map(Param::LocalTy),
            any::<u32>().prop_map(Param::Arg),
            any::<u32>().prop_map(Param::Imm),
            any::<u32>().prop_map(Param::Local),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            (ident(), proptest::collection::vec(inner, 0..4))
                .prop_map(|(name, params)| Param::Call(StaticCall { name, params }))
        })
    }

    fn event() -> impl Strategy<Value = Event> {
        let ops: Vec<Opcode> = Opcode::all().collect();
        let mode = prop_oneof![Just(Mode::Before), Just(Mode::After)];
        prop_oneof![
            Just(Event::FuncEntry),
            Just(Event::FuncExit),
            Just(Event::BlockStart),
            Just(Event::BlockEnd),
            (proptest::option::of(proptest::sample::select(ops)), mode).prop_map(|(o, mode)| {
                Event::Opcode {
                    matches: o.map_or(OpcodeMatch::Any, OpcodeMatch::One),
                    mode,
                }
            }),
        ]
    }

    fn pattern() -> impl Strategy<Value = Pattern> {
        (
            event(),
            proptest::option::of((ident(), proptest::collection::vec(param(), 0..4))),
            proptest::collection::vec(param(), 0..5),
        )
            .prop_map(|(event, pred, params)| Pattern {
                event,
                predicate: pred.map(|(name, params)| StaticCall { name, params }),
                params,
            })
    }

    /// Inserts grammar-allowed whitespace around every `,` `(` `)` `/`
    /// (except right after the `wasm:EVENT` text, handled by the grammar too).
    fn sprinkle(s: &str, ws: &[&str]) -> String {
        let mut out = String::new();
        let mut i = 0;
        for ch in s.chars() {
            if matches!(ch, ',' | '(' | ')' | '/') {
                out.push_str(ws[i % ws.len()]);
                out.push(ch);
                out.push_str(ws[(i + 1) % ws.len()]);
                i += 1;
            } else {
                out.push(ch);
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

        #[test]
        fn print_parse_round_trip(p in pattern()) {
            let s = p.to_string();
            prop_assert_eq!(parse_pattern(&s), Ok(p.clone()));
            let spaced = sprinkle(&s, &[" ", "", "\t", "  \n"]);
            prop_assert_eq!(parse_pattern(&spaced), Ok(p), "{}", spaced);
        }

        #[test]
        fn arbitrary_strings_never_panic(s in "wasm:[ -~]{0,40}") {
            check_any(&s);
        }

        #[test]
        fn arbitrary_unicode_never_panics(s in "\\PC{0,30}") {
            check_any(&s);
            check_any(&format!("wasm:{s}"));
        }
    }

    pub(super) fn check_any(s: &str) {
        match parse_export_name(s) {
            Ok(ExportMeaning::Probe(p)) => {
                assert_eq!(parse_pattern(&p.to_string()), Ok(p));
            }
            Ok(m @ (ExportMeaning::Exit | ExportMeaning::Begin)) => {
                assert_eq!(parse_export_name(&m.to_string()), Ok(m));
            }
            Ok(ExportMeaning::NotProbe) => assert!(!s.starts_with("wasm:")),
            Err(e) => {
                assert!(s.starts_with("wasm:"));
                assert!(e.column <= s.len(), "{s:?} {e:?}");
                let _ = render_caret(s, &e);
            }
        }
    }
}

/// The fuzz target's property over a deterministic pseudo-random corpus, so
/// CI exercises it without cargo-fuzz.
#[test]
fn deterministic_fuzz_corpus() {
    let start = std::time::Instant::now();
    let pieces: &[&str] = &[
        "wasm:",
        "opcode:",
        "*",
        "call",
        "i32.add",
        "br_table",
        ":after",
        ":before",
        ":",
        "func:",
        "entry",
        "exit",
        "block:",
        "start",
        "end",
        "begin",
        "/",
        "$p",
        "(",
        ")",
        ",",
        " ",
        "\t",
        "pc",
        "fid",
        "frame",
        "probe_id",
        "opname",
        "fname",
        "num_targets",
        "offset",
        "instr_count",
        "at_func_end",
        "arg",
        "imm",
        "local",
        "0",
        "12",
        "4294967296",
        "é",
        "\u{0}",
        "x",
        "..",
        "$",
        "memory.grow",
        "i64.load32_u",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let events = [
        "opcode:*",
        "opcode:call",
        "opcode:i32.add:after",
        "func:entry",
        "func:exit",
        "block:start",
        "block:end",
        "exit",
        "begin",
        "opcode:nope",
    ];
    let params = [
        "pc",
        "fid",
        "frame",
        "arg0",
        "imm12",
        "local3",
        "offset",
        "$f(pc,fid)",
        "$g()",
        "opname",
    ];
    let mut ok = 0;
    for i in 0..5000 {
        let mut s;
        if i % 2 == 0 {
            // Token soup.
            s = String::from(if next() % 8 == 0 { "" } else { "wasm:" });
            let n = (next() % 14) as usize;
            for _ in 0..n {
                if next() % 10 == 0 {
                    s.push(char::from(b' ' + (next() % 95) as u8));
                } else {
                    s.push_str(pieces[(next() % pieces.len() as u64) as usize]);
                }
            }
        } else {
            // Mostly-valid patterns, sometimes mutated.
            s = format!("wasm:{}", events[(next() % events.len() as u64) as usize]);
            if next() % 3 == 0 {
                s.push_str(" /$p(pc, fid)/ ");
            }
            if next() % 4 != 0 {
                let k = (next() % 4) as usize;
                let list: Vec<&str> = (0..k)
                    .map(|_| params[(next() % params.len() as u64) as usize])
                    .collect();
                s.push('(');
                s.push_str(&list.join(" , "));
                s.push(')');
            }
            if next() % 3 == 0 && !s.is_empty() {
                let at = (next() % s.len() as u64) as usize;
                if s.is_char_boundary(at) {
                    if next() % 2 == 0 {
                        s.insert(
                            at,
                            pieces[(next() % pieces.len() as u64) as usize]
                                .chars()
                                .next()
                                .unwrap_or('x'),
                        );
                    } else {
                        let c = s[at..].chars().next().map_or(0, char::len_utf8);
                        s.replace_range(at..at + c, "");
                    }
                }
            }
        }
        props::check_any(&s);
        if matches!(parse_export_name(&s), Ok(ExportMeaning::Probe(_))) {
            ok += 1;
        }
    }
    assert!(ok > 500, "corpus should contain valid patterns too ({ok})");
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
}
