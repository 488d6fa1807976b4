//! `whamm`: the probe-script compiler's command line.

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use whamm_compiler::catalog::{default_catalog, VarType};
use whamm_compiler::diag::render;
use whamm_compiler::{front_end_with_libs, rules};

#[derive(Parser)]
#[command(
    name = "whamm",
    version,
    about = "Compile .mm probe scripts into monitor .wasm modules"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the front end (parse, resolve, type-check) and print diagnostics.
    Check {
        script: PathBuf,
        /// `NAME=path.wasm`: the monitor library a `use NAME;` refers to
        /// (calls are type-checked against its exports); repeatable.
        #[arg(long = "lib", value_name = "NAME=PATH")]
        libs: Vec<String>,
    },
    /// Compile a script into a monitor module.
    Build {
        script: PathBuf,
        /// Output file (`-` for stdout).
        #[arg(short, long, default_value = "mon.wasm")]
        output: PathBuf,
        /// Write the module in the text format instead of binary.
        #[arg(long)]
        emit_wat: bool,
        /// Use only monitor ABI Part A (docs/monitor-abi.md#part-a; runs on any Part A
        /// engine); constructs that need Part B (docs/monitor-abi.md#part-b) are errors.
        #[arg(long)]
        portable: bool,
        /// `NAME=path.wasm`: the monitor library a `use NAME;` refers to
        /// (calls are type-checked against its exports and imported with its
        /// signatures; run with `wizeng --monitors=mon.wasm+path.wasm`);
        /// repeatable.
        #[arg(long = "lib", value_name = "NAME=PATH")]
        libs: Vec<String>,
        /// One export per opcode even where one `wasm:opcode:*` export
        /// does the same (the larger form of earlier versions; for comparisons).
        #[arg(long)]
        per_opcode: bool,
    },
    /// List events matching a rule, with their modes and bound variables.
    Info {
        /// A probe rule (globs allowed), e.g. 'wasm:opcode:br*:before'.
        #[arg(long, default_value = "wasm:*")]
        spec: String,
    },
}

/// Reads every `--lib NAME=PATH`.
fn read_libs(specs: &[String]) -> Result<whamm_compiler::libs::Libs, ExitCode> {
    let mut libs = whamm_compiler::libs::Libs::new();
    for spec in specs {
        let Some((name, path)) = spec.split_once('=') else {
            eprintln!("error: --lib {spec}: expected NAME=PATH");
            return Err(ExitCode::from(2));
        };
        let sigs = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| whamm_compiler::libs::read_library(&b).map_err(|e| e.to_string()));
        match sigs {
            Ok(sigs) => {
                libs.insert(name.to_string(), sigs);
            }
            Err(e) => {
                eprintln!("error: --lib {name}={path}: {e}");
                return Err(ExitCode::from(1));
            }
        }
    }
    Ok(libs)
}

fn run_front_end(path: &PathBuf, libs: &[String]) -> Result<whamm_compiler::FrontEnd, ExitCode> {
    let libs = read_libs(libs)?;
    let src = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return Err(ExitCode::from(1));
        }
    };
    let cat = default_catalog();
    let fe = front_end_with_libs(&src, cat.as_ref(), &libs);
    eprint!("{}", render(&path.display().to_string(), &src, &fe.diags));
    if fe.has_errors() {
        let n = fe.diags.iter().filter(|d| d.is_error()).count();
        eprintln!(
            "error: {} failed with {n} error{}",
            path.display(),
            if n == 1 { "" } else { "s" }
        );
        return Err(ExitCode::from(1));
    }
    Ok(fe)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Check { script, libs } => match run_front_end(&script, &libs) {
            Ok(_) => ExitCode::SUCCESS,
            Err(c) => c,
        },
        Cmd::Build {
            script,
            output,
            emit_wat,
            portable,
            libs,
            per_opcode,
        } => match read_libs(&libs) {
            Ok(libs) => build(
                &script,
                &output,
                emit_wat,
                whamm_compiler::codegen::Options {
                    portable,
                    libs,
                    per_opcode,
                    ..Default::default()
                },
            ),
            Err(c) => c,
        },
        Cmd::Info { spec } => info(&spec),
    }
}

fn build(
    path: &PathBuf,
    output: &PathBuf,
    emit_wat: bool,
    opts: whamm_compiler::codegen::Options,
) -> ExitCode {
    let src = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", path.display());
            return ExitCode::from(1);
        }
    };
    let name = path.display().to_string();
    let bytes = match whamm_compiler::build(&src, &opts) {
        Ok((bytes, warnings)) => {
            eprint!("{}", render(&name, &src, &warnings));
            bytes
        }
        Err(diags) => {
            eprint!("{}", render(&name, &src, &diags));
            let n = diags.iter().filter(|d| d.is_error()).count();
            eprintln!(
                "error: {name} failed with {n} error{}",
                if n == 1 { "" } else { "s" }
            );
            return ExitCode::from(1);
        }
    };
    let out: Vec<u8> = if emit_wat {
        whamm_compiler::to_wat(&bytes).into_bytes()
    } else {
        bytes
    };
    let res = if output.as_os_str() == "-" {
        use std::io::Write as _;
        std::io::stdout().lock().write_all(&out)
    } else {
        std::fs::write(output, &out)
    };
    if let Err(e) = res {
        eprintln!("error: cannot write {}: {e}", output.display());
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn info(spec: &str) -> ExitCode {
    let cat = default_catalog();
    let mut diags = vec![];
    let rule = rules::parse_rule(spec, 0, &mut diags);
    // `info` accepts a prefix: `wasm:opcode:call` lists all modes.
    let mut matches = if diags.is_empty() {
        rules::expand(&rule, cat.as_ref(), &mut vec![])
    } else {
        vec![]
    };
    if matches.is_empty() && diags.is_empty() {
        let mut wider = format!("{spec}:*");
        for _ in 0..3 {
            let r = rules::parse_rule(&wider, 0, &mut diags);
            matches = rules::expand(&r, cat.as_ref(), &mut vec![]);
            if !matches.is_empty() {
                break;
            }
            wider.push_str(":*");
        }
        if matches.is_empty() {
            rules::expand(&rule, cat.as_ref(), &mut diags);
        }
    }
    if !diags.is_empty() {
        eprint!("{}", render("<spec>", spec, &diags));
        return ExitCode::from(1);
    }
    use std::fmt::Write as _;
    let mut out = String::new();
    let mut last_event = String::new();
    for m in &matches {
        let ev = m.event.name();
        if ev != last_event {
            let _ = writeln!(out, "{ev}");
            if !m.event.modes.is_empty() {
                let modes: Vec<String> = m
                    .event
                    .modes
                    .iter()
                    .map(|md| {
                        if cat.mode_supported(&m.event, Some(md)) {
                            md.clone()
                        } else {
                            format!("{md} (not supported by the engine target)")
                        }
                    })
                    .collect();
                let _ = writeln!(out, "  modes: {}", modes.join(", "));
            } else if !cat.mode_supported(&m.event, None) {
                let _ = writeln!(out, "  (not supported by the engine target)");
            }
            last_event = ev;
        }
        if let Some(mode) = &m.mode {
            let _ = writeln!(out, "  :{mode}");
        }
        for v in cat.bound_vars(&m.event, m.mode.as_deref()) {
            let ty = match v.ty {
                VarType::Known(t) => t.to_string(),
                VarType::Wasm(t) => format!("{t} (fixed by the instruction)"),
                VarType::SiteDependent => "site-dependent (needs a type bound)".to_string(),
            };
            let _ = writeln!(
                out,
                "    {:<17} {:<38} {}",
                v.name,
                ty,
                if v.is_static { "static" } else { "dynamic" }
            );
        }
    }
    use std::io::Write as _;
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    ExitCode::SUCCESS
}
