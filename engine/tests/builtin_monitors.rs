//! The built-in monitors (`--monitors=NAME`, scripts in `monitors/`) and
//! `.mm` scripts on the command line: every case of `tests/builtin/cases.txt`
//! (`NAME: ARGS...`) runs the `wizeng` binary cargo just built in the
//! `tests/builtin` folder, in every mode of `WIZENG_MODES` (default
//! `int,jit,dyn`). Stdout, stderr and the exit status must equal
//! `NAME.expected` in each mode (`BLESS=1` rewrites it from the first mode),
//! so the tiers agree too. The `.mm` cases include a compile error, whose
//! stderr is exactly what `whamm check` prints.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/builtin")
}

fn run(mode: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wizeng"))
        .arg(format!("--mode={mode}"))
        .args(args)
        .current_dir(dir())
        .output()
        .expect("run wizeng");
    format!(
        "stdout:\n{}stderr:\n{}status: {}\n",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status
            .code()
            .map_or("signal".to_string(), |c| c.to_string())
    )
}

#[test]
fn builtin_monitor_cases() {
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int,jit,dyn".into());
    let modes: Vec<&str> = modes.split(',').filter(|m| !m.is_empty()).collect();
    let bless = std::env::var("BLESS").is_ok_and(|v| v == "1");
    let cases = common::process::cases(&dir().join("cases.txt"));
    let mut failures = Vec::new();
    let mut n = 0;
    for (name, args) in &cases {
        let name = name.as_str();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let expected_path = dir().join(format!("{name}.expected"));
        n += 1;
        for (i, mode) in modes.iter().enumerate() {
            let got = run(mode, &args);
            if bless && i == 0 {
                std::fs::write(&expected_path, &got).unwrap();
            }
            let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if got != want {
                failures.push(format!(
                    "{name} (--mode={mode}): output differs from {}\n--- got:\n{got}--- expected:\n{want}",
                    expected_path.display()
                ));
            }
        }
    }
    assert!(n >= 7, "expected a case per built-in monitor");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every built-in monitor has a case, and the list of built-ins is what the
/// `monitors/` folder holds.
#[test]
fn every_builtin_has_a_case() {
    let cases = common::process::cases(&dir().join("cases.txt"));
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../monitors");
    let mut scripts: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mm"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    scripts.sort();
    let builtins: Vec<&str> = wizeng::monitor::builtin::all().map(|b| b.name).collect();
    assert_eq!(scripts, builtins);
    for name in builtins {
        assert!(
            cases.iter().any(|(n, _)| n == name),
            "no case for built-in monitor {name} in tests/builtin/cases.txt"
        );
    }
}

/// The reports meant for other tools are accepted by them: lcov tracefiles
/// (with DWARF lines and without) by `lcov --summary` and `genhtml`, the
/// call graph by Graphviz `dot`. A missing tool is reported on stderr
/// (install: `apt-get install lcov graphviz`), not passed silently.
#[test]
fn reports_are_accepted_by_their_tools() {
    let tmp = std::env::temp_dir().join(format!("wizeng-tools-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let have = |tool: &str| {
        let ok = Command::new(tool).arg("--version").output().is_ok();
        if !ok {
            eprintln!("NOT CHECKED: {tool} is not installed (apt-get install lcov graphviz)");
        }
        ok
    };
    let check = |cmd: &mut Command, what: &str| {
        let out = cmd.output().expect("run tool");
        assert!(
            out.status.success(),
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    for app in ["sort.g.wasm", "sort.wasm"] {
        let info = tmp.join(format!("{app}.info"));
        let programs = dir().join("../programs");
        check(
            Command::new(env!("CARGO_BIN_EXE_wizeng"))
                .arg(format!("--lcov={}", info.display()))
                .arg(app)
                .current_dir(&programs),
            "wizeng --lcov",
        );
        let text = std::fs::read_to_string(&info).unwrap();
        assert!(text.contains("end_of_record"), "{text}");
        if app.contains(".g.") {
            assert!(text.contains("SF:sort.c\n"), "DWARF source file record");
        }
        if have("lcov") {
            check(
                Command::new("lcov").arg("--summary").arg(&info),
                "lcov --summary",
            );
        }
        if have("genhtml") {
            // Sources that are not on this machine (libc's) are reported, not fatal.
            check(
                Command::new("genhtml")
                    .args(["--quiet", "--ignore-errors", "source", "-o"])
                    .arg(tmp.join(format!("{app}-html")))
                    .arg(&info)
                    .current_dir(&programs),
                "genhtml",
            );
        }
    }
    let dot = tmp.join("calls.dot");
    check(
        Command::new(env!("CARGO_BIN_EXE_wizeng"))
            .arg(format!("--monitors=calls{{dot,file={}}}", dot.display()))
            .arg("../programs/indirect.wasm")
            .current_dir(dir()),
        "wizeng calls{dot}",
    );
    assert!(std::fs::read_to_string(&dot)
        .unwrap()
        .starts_with("digraph"));
    if have("dot") {
        check(
            Command::new("dot")
                .arg("-Tsvg")
                .arg("-o")
                .arg(tmp.join("calls.svg"))
                .arg(&dot),
            "dot -Tsvg",
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The timed `profile` outputs, whose numbers vary: the folded stacks have
/// the folded shape (`a;b;c N` per line) and the same stacks as the
/// deterministic `counts` run, inferno draws them, and `flamegraph` writes
/// an SVG naming the app's functions; both honour `file=PATH`.
#[test]
fn profile_folded_stacks_and_flame_graph() {
    let tmp = std::env::temp_dir().join(format!("wizeng-profile-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (folded, svg) = (tmp.join("p.folded"), tmp.join("p.svg"));
    let monitors = format!(
        "--monitors=profile{{folded,file={}}},profile{{flamegraph,file={}}}",
        folded.display(),
        svg.display()
    );
    let out = run("dyn", &[&monitors, "../programs/sort.g.wasm"]);
    assert!(out.ends_with("status: 0\n"), "{out}");
    let text = std::fs::read_to_string(&folded).unwrap();
    let mut stacks = Vec::new();
    for line in text.lines() {
        let (stack, n) = line.rsplit_once(' ').expect("`STACK N`");
        assert!(n.parse::<u64>().is_ok(), "weight of {line:?}");
        assert!(
            stack.split(';').all(|f| !f.is_empty() && !f.contains(' ')),
            "{line:?}"
        );
        stacks.push(stack.to_string());
    }
    assert!(stacks.iter().any(|s| s.ends_with(";quicksort")), "{text}");
    // Every timed stack is a context of the counts run (which lists all
    // contexts that ran; the timed one leaves out those with 0 ns self).
    let counts = run(
        "dyn",
        &[
            "--monitors=profile{folded,counts}",
            "../programs/sort.g.wasm",
        ],
    );
    for s in &stacks {
        assert!(
            counts.contains(&format!("\n{s} ")),
            "{s} not among the counted contexts"
        );
    }
    let mut opts = inferno::flamegraph::Options::default();
    let mut drawn = Vec::new();
    inferno::flamegraph::from_lines(&mut opts, text.lines(), &mut drawn).expect("inferno reads it");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg.starts_with("<?xml") && svg.contains("<svg"),
        "{}",
        &svg[..svg.len().min(200)]
    );
    assert!(svg.contains("quicksort") && svg.contains("wizeng profile"));
    std::fs::remove_dir_all(&tmp).ok();
}

/// A built-in monitor's report is read from its memory, without running its
/// `wasm:exit`, unless its CSV is asked for (docs/monitor-abi.md#report-layout);
/// what is read renders exactly as the CSV the monitor itself prints: for
/// every built-in monitor with a report, on programs with calls (direct and
/// indirect), branches, loops and memory accesses, in every mode, its JSON
/// and its full table equal those the library renders from its own CSV
/// (three instances of the monitor in one run).
#[test]
fn reports_read_from_memory_equal_the_printed_ones() {
    use wizeng::monitor::builtin::{self, Format, ReportOptions};
    use wizeng::monitor::report;
    let with_report = [
        "coverage", "hotness", "branches", "calls", "loops", "memory", "imix",
    ];
    for b in builtin::all() {
        let layout = monitor_abi::report::ReportLayout::of_module(b.wasm).unwrap();
        assert_eq!(
            layout.is_some(),
            with_report.contains(&b.name),
            "{}",
            b.name
        );
    }
    let tmp = std::env::temp_dir().join(format!("wizeng-memreport-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let modes = std::env::var("WIZENG_MODES").unwrap_or_else(|_| "int,jit,dyn".into());
    let apps = [
        "app.wat",
        "../programs/sort.wasm",
        "../programs/indirect.wasm",
        "../programs/memory.wasm",
        "../programs/strings.O0.wasm",
    ];
    let mut failures = vec![];
    for app in apps {
        let bytes = std::fs::read(dir().join(app)).unwrap();
        let bytes = wizeng::module::to_binary(&bytes).unwrap();
        let names = wizeng::module::read_func_names(&bytes);
        let names = report::Names {
            names: &names,
            lines: None,
        };
        for mode in modes.split(',').filter(|m| !m.is_empty()) {
            for name in with_report {
                let [csv, json, table] = ["csv", "json", "txt"].map(|x| tmp.join(format!("r.{x}")));
                let monitors = format!(
                    "--monitors={name}{{csv,file={}}},{name}{{json,file={}}},{name}{{top=0,zero,file={}}}",
                    csv.display(),
                    json.display(),
                    table.display()
                );
                let out = run(mode, &[&monitors, app]);
                assert!(
                    out.ends_with("status: 0\n") && !out.contains("warning"),
                    "{out}"
                );
                let csv = std::fs::read_to_string(&csv).unwrap();
                assert!(csv.contains("REPORT CSV FLUSH"), "{app} {name}: {csv}");
                let all = ReportOptions {
                    top: Some(0),
                    zero: true,
                    ..Default::default()
                };
                for (file, format) in [(json, Format::Json), (table, Format::Table)] {
                    let got = std::fs::read_to_string(&file).unwrap();
                    let want = report::render(name, &csv, &names, &all, format);
                    if got != want {
                        failures.push(format!(
                            "{app} --mode={mode} {name} {format:?}:\n--- read from memory:\n{got}--- from the CSV:\n{want}"
                        ));
                    }
                }
                // `coverage`'s table is summed without building sites
                // (`memory::visit_one_scalar`), with a function filter too.
                if name == "coverage" {
                    let file = tmp.join("filtered.txt");
                    let m = format!("--monitors=coverage{{filter=*s*,file={}}}", file.display());
                    let out = run(mode, &[&m, app]);
                    assert!(out.ends_with("status: 0\n"), "{out}");
                    let got = std::fs::read_to_string(&file).unwrap();
                    let o = ReportOptions {
                        filter: Some("*s*".into()),
                        ..Default::default()
                    };
                    let want = report::render(name, &csv, &names, &o, Format::Table);
                    if got != want {
                        failures.push(format!(
                            "{app} --mode={mode} coverage{{filter=*s*}}:\n--- read from memory:\n{got}--- from the CSV:\n{want}"
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
