//! Telling profilers about JIT code: the perf map (`/tmp/perf-<pid>.map`, one
//! line per function: start, size, name) and the jitdump format
//! (`/tmp/jit-<pid>.dump`: a header, then one JIT_CODE_LOAD record per
//! function with its code bytes), which `perf record -k mono` + `perf inject
//! --jit` use to attribute samples to Wasm functions. JIT code keeps frame
//! pointers, so frame-pointer call graphs (`perf record -g`) work through it.

use std::fs::File;
use std::io::Write;

use super::FuncInfo;

const JITDUMP_MAGIC: u32 = 0x4A69_5444;
const EM_X86_64: u32 = 62;
const JIT_CODE_LOAD: u32 = 0;

fn timestamp() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the provided timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub struct JitDump {
    file: File,
    index: u64,
    /// Keeps the marker mapping alive (perf finds the file through it).
    _map: *mut libc::c_void,
}

impl JitDump {
    /// Create `/tmp/jit-<pid>.dump` and write its header.
    pub fn create() -> std::io::Result<JitDump> {
        let pid = std::process::id();
        let path = format!("/tmp/jit-{pid}.dump");
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)?;
        let mut h = Vec::with_capacity(40);
        h.extend_from_slice(&JITDUMP_MAGIC.to_le_bytes());
        h.extend_from_slice(&1u32.to_le_bytes());
        h.extend_from_slice(&40u32.to_le_bytes());
        h.extend_from_slice(&EM_X86_64.to_le_bytes());
        h.extend_from_slice(&0u32.to_le_bytes());
        h.extend_from_slice(&pid.to_le_bytes());
        h.extend_from_slice(&timestamp().to_le_bytes());
        h.extend_from_slice(&0u64.to_le_bytes());
        file.write_all(&h)?;
        file.flush()?;
        // perf looks for an executable mapping of the dump file.
        use std::os::fd::AsRawFd;
        // SAFETY: maps the first page of our own file read+exec; never dereferenced.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_EXEC,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        Ok(JitDump {
            file,
            index: 0,
            _map: map,
        })
    }

    fn load(&mut self, f: &FuncInfo) -> std::io::Result<()> {
        let name = f.name.as_bytes();
        let size = 16 + 40 + name.len() + 1 + f.len;
        let mut r = Vec::with_capacity(size);
        r.extend_from_slice(&JIT_CODE_LOAD.to_le_bytes());
        r.extend_from_slice(&(size as u32).to_le_bytes());
        r.extend_from_slice(&timestamp().to_le_bytes());
        r.extend_from_slice(&std::process::id().to_le_bytes());
        // SAFETY: gettid has no preconditions.
        r.extend_from_slice(&(unsafe { libc::gettid() } as u32).to_le_bytes());
        r.extend_from_slice(&(f.start as u64).to_le_bytes());
        r.extend_from_slice(&(f.start as u64).to_le_bytes());
        r.extend_from_slice(&(f.len as u64).to_le_bytes());
        r.extend_from_slice(&self.index.to_le_bytes());
        r.extend_from_slice(name);
        r.push(0);
        // SAFETY: [start, start + len) is finalized, readable JIT code of a live module.
        r.extend_from_slice(unsafe { std::slice::from_raw_parts(f.start as *const u8, f.len) });
        self.index += 1;
        self.file.write_all(&r)
    }
}

/// Where compiled code is announced.
#[derive(Default)]
pub struct Profiling {
    pub perf_map: Option<File>,
    pub jitdump: Option<JitDump>,
}

impl Profiling {
    pub fn announce(&mut self, infos: &[FuncInfo]) {
        if let Some(f) = self.perf_map.as_mut() {
            for i in infos {
                let _ = writeln!(f, "{:x} {:x} {}", i.start, i.len, i.name);
            }
        }
        if let Some(d) = self.jitdump.as_mut() {
            for i in infos {
                let _ = d.load(i);
            }
        }
    }
}
