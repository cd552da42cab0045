//! Helpers shared by the integration tests: locating the `sp` binary, the reference's Python
//! and the comparison scripts, scratch directories, and content comparison.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A command running `sp`: `$SP_BIN` if set (e.g. the static musl build), else this build's.
pub fn sp() -> Command {
    let bin = std::env::var_os("SP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_sp")));
    Command::new(bin)
}

/// The hint every missing-environment failure gives.
pub const SETUP_HINT: &str = "run scripts/setup-env.sh first";

/// The Python that has the reference and h5py: `$SP_PYTHON`, else `<repo>/.venv/bin/python`.
/// Panics with the setup command when it cannot import both: these tests never skip.
pub fn python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    match PYTHON.get_or_init(find_python) {
        Ok(p) => p.clone(),
        Err(msg) => panic!("{msg}"),
    }
}

fn find_python() -> Result<PathBuf, String> {
    let python = std::env::var_os("SP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".venv/bin/python"));
    match Command::new(&python)
        .args(["-c", "import h5py, scope_profiler"])
        .output()
    {
        Ok(out) if out.status.success() => Ok(python),
        Ok(out) => Err(format!(
            "{} cannot import h5py and scope_profiler: {SETUP_HINT}\n{}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(err) => Err(format!(
            "no python at {}: {err}: {SETUP_HINT}",
            python.display()
        )),
    }
}

/// Runs the reference's Python with `args` (a script with `-c`, a module with `-m`) in
/// `dir`, panicking with its stderr unless it exits 0.
pub fn run_python<I, S>(dir: &Path, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut cmd = Command::new(python());
    cmd.current_dir(dir).args(args);
    run_ok(&mut cmd)
}

/// A fresh, empty scratch directory for one test, removed when the test passes (a failed
/// test leaves it for a look). Derefs to its path.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A fresh, empty scratch directory for one test, named after the test and this process.
pub fn scratch_dir(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("sp-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    Scratch(dir)
}

/// Runs `sp convert ARGS -q` in `dir`, panicking with its output unless it exits 0.
pub fn sp_convert(dir: &Path, args: &[&str]) -> Output {
    run_ok(sp().current_dir(dir).arg("convert").args(args).arg("-q"))
}

/// Runs the reference's `import-native -q ARGS` in `dir`, panicking unless it exits 0.
pub fn import_native(dir: &Path, args: &[&str]) -> Output {
    let module = ["-m", "scope_profiler", "import-native", "-q"];
    run_python(dir, module.iter().chain(args))
}

/// Runs `cmd`, panicking with its output unless it exits 0.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("spawn");
    assert!(
        out.status.success(),
        "{cmd:?} failed with {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A finished command's exit status, stdout and stderr, for an assertion message.
pub fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts, through h5py, that two HDF5 files hold the same content.
pub fn assert_same_content(ours: &Path, expected: &Path) {
    let script = repo().join("tests/interop/h5content.py");
    let out = Command::new(python())
        .arg(&script)
        .arg("compare")
        .arg(ours)
        .arg(expected)
        .output()
        .expect("run h5content.py");
    assert!(
        out.status.success(),
        "content of {} differs from {}:\n{}{}",
        ours.display(),
        expected.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Converting the same inputs again gives the same bytes.
pub fn assert_deterministic(
    case_dir: &Path,
    inputs: &[&str],
    extra: &[&str],
    output: &str,
    first: &Path,
) {
    let again_dir = first.parent().expect("parent").join("again");
    std::fs::create_dir_all(&again_dir).expect("mkdir");
    let again = again_dir.join(output);
    run_ok(
        sp().current_dir(case_dir)
            .arg("convert")
            .args(inputs)
            .arg("-o")
            .arg(&again)
            .arg("-q")
            .args(extra),
    );
    assert!(
        std::fs::read(first).expect("read") == std::fs::read(&again).expect("read"),
        "two conversions of the same inputs differ"
    );
}

/// One object's content as our own reader sees it: kind, datatype, shape, attributes and
/// values, keyed by path. Storage (layout, chunking, filters, addresses) is not content.
fn content_by_path(path: &Path) -> std::collections::BTreeMap<String, String> {
    use sp::hdf5lite::reader::{File, LinkKind, Object};

    let bytes = std::fs::read(path).expect("read file");
    let file = File::open(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = std::collections::BTreeMap::new();
    let mut pending = vec!["/".to_owned()];
    while let Some(at) = pending.pop() {
        let object = file
            .object(&at)
            .unwrap_or_else(|e| panic!("{}: {at}: {e}", path.display()));
        let (attributes, description) = match object {
            Object::Group(group) => {
                for link in group.links().expect("links") {
                    assert!(
                        matches!(link.kind, LinkKind::Hard(_)),
                        "{at}/{}: not a hard link",
                        link.name
                    );
                    pending.push(format!("{}/{}", at.trim_end_matches('/'), link.name));
                }
                (group.attributes().expect("attributes"), "group".to_owned())
            }
            Object::Datatype(t) => (Vec::new(), format!("datatype {:?}", t.datatype())),
            Object::Dataset(ds) => {
                let values = ds.read_values().expect("values");
                (
                    ds.attributes().expect("attributes"),
                    format!("dataset {:?} {:?} {values:?}", ds.datatype(), ds.shape()),
                )
            }
        };
        out.insert(at.clone(), description);
        for attr in attributes {
            let value = attr.value(&file).expect("attribute value");
            out.insert(
                format!("{at}@{}", attr.name()),
                format!("{:?} {:?} {value:?}", attr.datatype(), attr.shape()),
            );
        }
    }
    out
}

/// Asserts, through our own reader, that two HDF5 files hold the same content.
pub fn assert_same_content_by_our_reader(ours: &Path, expected: &Path) {
    let a = content_by_path(ours);
    let b = content_by_path(expected);
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let differences: Vec<String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            format!(
                "{k}:\n  ours:     {:?}\n  expected: {:?}",
                a.get(k),
                b.get(k)
            )
        })
        .collect();
    assert!(
        differences.is_empty(),
        "{} differs from {} (our reader):\n{}",
        ours.display(),
        expected.display(),
        differences.join("\n")
    );
}

/// The integers `h5dump` (Debian's libhdf5) prints for dataset `path` of `file`.
pub fn h5dump_ints(file: &Path, path: &str) -> Vec<i64> {
    let out = run_ok(
        Command::new("h5dump")
            .args(["-y", "-w", "0", "-d", path])
            .arg(file),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let data = text
        .split_once("DATA {")
        .unwrap_or_else(|| panic!("h5dump printed no data for {path}: {text}"))
        .1;
    let data = &data[..data.find('}').unwrap_or(data.len())];
    data.split([',', '\n', ' '])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap_or_else(|_| panic!("{path}: {t:?}")))
        .collect()
}

/// The names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// A small deterministic generator (64-bit LCG, high bits), for damaged-file sweeps.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 21
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Reader caps far below the defaults, for damaged files: a damaged size field must hit
/// them, not the machine.
pub const TIGHT_LIMITS: sp::hdf5lite::Limits = sp::hdf5lite::Limits {
    max_metadata_bytes: 1 << 20,
    max_chunk_bytes: 1 << 20,
    max_read_bytes: 8 << 20,
    max_depth: 16,
    max_header_chunks: 64,
    max_object_entries: 4096,
};
