//! Nothing lost: `sp convert` and `sp export` interrupted by SIGINT, SIGTERM or SIGHUP remove
//! their temporary output, leave an existing output untouched, and exit 128 + the signal
//! with one line; an output that is a directory, or in a missing directory, fails before any
//! work and leaves nothing behind; a full disk (a small tmpfs in a private mount namespace)
//! gives one line naming the output, and leaves nothing behind.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sp::trace::{encode, Endian, Region, Trace, Version};

/// A one-region trace of `calls` calls (16 bytes each).
fn write_trace(path: &Path, calls: usize) {
    let starts: Vec<i64> = (0..calls as i64).map(|i| i * 10).collect();
    let ends: Vec<i64> = starts.iter().map(|s| s + 3 + s % 7).collect();
    let trace = Trace {
        rank: 0,
        regions: vec![Region {
            name: "work".into(),
            source_file: Some("work.c".into()),
            source_line: Some(1),
            starts,
            ends,
        }],
    };
    std::fs::write(path, encode(&trace, Version::V2, Endian::Little)).unwrap();
}

fn has_temporary(dir: &Path) -> bool {
    support::listing(dir).iter().any(|n| n.ends_with(".tmp"))
}

/// Sends `signal` (a `kill -s` name) to `child` as soon as a temporary output appears in
/// `dir`. Returns false if the run ended first (too quick to interrupt).
fn interrupt_when_writing(child: &mut Child, dir: &Path, signal: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if has_temporary(dir) {
            let status = Command::new("kill")
                .args(["-s", signal, &child.id().to_string()])
                .status()
                .unwrap();
            assert!(status.success(), "kill -s {signal} failed");
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        assert!(Instant::now() < deadline, "no temporary output appeared");
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// Runs `args` (writing `dest` in `dir`) and interrupts it with `signal` mid-write, making
/// the input larger until the run is slow enough to catch. Asserts the exit status, the one
/// line, that the old `dest` is untouched and that nothing else was left in `dir`.
fn assert_interrupt_cleans_up(
    dir: &Path,
    make_input: &dyn Fn(usize),
    args: &[&str],
    signal: &str,
    code: i32,
) {
    let dest = dir.join("out");
    for scale in 0..5 {
        make_input(1 << (18 + scale));
        std::fs::write(&dest, b"the previous output").unwrap();
        let before = support::listing(dir);
        let mut child = support::sp()
            .current_dir(dir)
            .args(args)
            .args(["-o", "out"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        if !interrupt_when_writing(&mut child, dir, signal) {
            continue;
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?} {signal}: {err}");
        assert_eq!(
            err,
            format!("sp: interrupted by SIG{signal}; out was not written\n"),
            "{args:?}"
        );
        assert_eq!(std::fs::read(&dest).unwrap(), b"the previous output");
        assert_eq!(
            support::listing(dir),
            before,
            "{args:?} {signal} left files behind"
        );
        return;
    }
    panic!("{args:?}: every run finished before it could be interrupted");
}

#[test]
fn convert_interrupted_removes_its_temporary_output() {
    let dir = support::scratch_dir("interrupt-convert");
    let input = dir.join("big_rank00000.spt");
    let make = |calls| write_trace(&input, calls);
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        assert_interrupt_cleans_up(&dir, &make, &["convert", "big_rank00000.spt"], signal, code);
    }
    assert_interrupt_cleans_up(
        &dir,
        &make,
        &["convert", "big_rank00000.spt", "--compress=1"],
        "INT",
        130,
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn export_interrupted_removes_its_temporary_output() {
    let dir = support::scratch_dir("interrupt-export");
    let trace = dir.join("work").join("big_rank00000.spt");
    std::fs::create_dir_all(trace.parent().unwrap()).unwrap();
    let profile = dir.join("big.h5");
    let make = |calls| {
        write_trace(&trace, calls);
        support::run_ok(
            support::sp()
                .arg("convert")
                .arg(&trace)
                .arg("-o")
                .arg(&profile)
                .arg("-q"),
        );
    };
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        assert_interrupt_cleans_up(
            &dir,
            &make,
            &["export", "chrome-trace", "big.h5"],
            signal,
            code,
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

fn golden_input(case: &str, name: &str) -> PathBuf {
    support::repo()
        .join("tests/golden")
        .join(case)
        .join("inputs")
        .join(name)
}

/// Runs `sp ARGS`, asserting exit 1 and exactly `expected` on stderr.
fn assert_fails_with(dir: &Path, args: &[&str], expected: &str) {
    let out = support::sp().current_dir(dir).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), expected, "{args:?}");
}

#[test]
fn unusable_output_locations_fail_before_any_work_and_leave_nothing() {
    let dir = support::scratch_dir("output-location");
    std::fs::create_dir(dir.join("existing")).unwrap();
    std::fs::write(dir.join("plain"), b"x").unwrap();
    let trace = golden_input("c_trace", "profile_rank00000.spt");
    let trace = trace.to_str().unwrap();
    let profile = support::repo().join("tests/golden/c_trace/expected/profiling_data.h5");
    let profile = profile.to_str().unwrap();
    for (output, message) in [
        ("existing", "is a directory"),
        ("nope/out.h5", "directory nope does not exist"),
        ("plain/out.h5", "plain is not a directory"),
    ] {
        let before = support::listing(&dir);
        let line = format!("sp: {output}: cannot create output: {message}\n");
        assert_fails_with(&dir, &["convert", trace, "-o", output, "-q"], &line);
        assert_fails_with(&dir, &["convert", trace, "--compress", "-o", output], &line);
        assert_fails_with(&dir, &["export", "json", profile, "-o", output], &line);
        assert_eq!(
            support::listing(&dir),
            before,
            "{output}: files left behind"
        );
        assert!(support::listing(&dir.join("existing")).is_empty());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `sp ARGS` (with `{out}` replaced) writing into a 8 KiB tmpfs mounted at a directory
/// of a private mount namespace (`unshare`, so nothing is mounted for anyone else); returns
/// its exit status, its stderr and what the tmpfs held afterwards.
fn run_on_full_disk(args: &[&str]) -> (i32, String, String) {
    let dir = support::scratch_dir("full-disk");
    let mount = dir.join("small");
    std::fs::create_dir(&mount).unwrap();
    let script = r#"dir=$1 bin=$2; shift 2
mount -t tmpfs -o size=8k tmpfs "$dir" || exit 99
"$bin" "$@"; code=$?
echo "$code" >&3
ls -A "$dir" >&3"#;
    let sp_bin = support::sp().get_program().to_owned();
    let mut cmd = Command::new("unshare");
    let out_path = mount.join("out.h5");
    cmd.args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg(format!("exec 3>&1 1>/dev/null\n{script}"))
        .arg("sh")
        .arg(&mount)
        .arg(sp_bin);
    for a in args {
        cmd.arg(a.replace("{out}", out_path.to_str().unwrap()));
    }
    let out = cmd.output().expect("unshare (util-linux) runs");
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = report.lines();
    let code = lines
        .next()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no tmpfs in a private mount namespace: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let left: Vec<&str> = lines.collect();
    std::fs::remove_dir_all(&dir).unwrap();
    (
        code,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        left.join(" "),
    )
}

#[test]
fn a_full_disk_error_names_the_output_and_leaves_nothing() {
    let trace = golden_input("chunked", "big_rank00000.spt");
    let trace = trace.to_str().unwrap();
    let profile = support::repo().join("tests/golden/chunked/expected/big.h5");
    let profile = profile.to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &["convert", trace, "-q", "-o", "{out}"],
        &["convert", trace, "-q", "--compress=0", "-o", "{out}"],
        &["convert", profile, "-q", "-o", "{out}"],
        &["export", "json", profile, "-o", "{out}"],
    ];
    for args in cases {
        let (code, err, left) = run_on_full_disk(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let line = err.trim_end();
        assert!(
            line.starts_with("sp: ") && line.contains("/small/out.h5: "),
            "{args:?}: {line:?} does not name the output"
        );
        assert!(
            line.ends_with("No space left on device (os error 28)"),
            "{args:?}: {line:?}"
        );
        assert_eq!(left, "", "{args:?}: left behind on the full disk");
    }
}
