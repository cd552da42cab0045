//! Processes racing on one output, for real: two `sp convert -o same.h5` at once end with
//! one complete file, byte for byte what one of them alone writes; `sp inspect` of a file
//! that another `sp convert` is replacing reads the old file or the new one, never a mix.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use sp::trace::{encode, Endian, Region, Trace, Version};

const ROUNDS: usize = 6;

/// A trace of `regions` regions with `calls` calls each; `seed` varies the times.
fn write_trace(path: &Path, regions: usize, calls: usize, seed: i64) {
    let regions = (0..regions)
        .map(|r| {
            let starts: Vec<i64> = (0..calls as i64)
                .map(|i| i * 100 + seed + r as i64)
                .collect();
            Region {
                name: format!("region {r}"),
                source_file: Some("work.c".into()),
                source_line: Some(r as i32),
                ends: starts.iter().map(|s| s + 10 + (s ^ seed) % 50).collect(),
                starts,
            }
        })
        .collect();
    let trace = Trace { rank: 0, regions };
    std::fs::write(path, encode(&trace, Version::V2, Endian::Little)).unwrap();
}

fn convert(input: &Path, output: &Path) -> Command {
    let mut cmd = support::sp();
    cmd.arg("convert")
        .arg(input)
        .arg("-o")
        .arg(output)
        .arg("-q");
    cmd
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Two inputs and what each converts to alone, as `same.h5` (the output's stem is the
/// default label, so it must match).
fn two_inputs(dir: &Path) -> [(PathBuf, Vec<u8>); 2] {
    [1, 2].map(|k| {
        let sub = dir.join(format!("in{k}"));
        std::fs::create_dir_all(&sub).unwrap();
        let input = sub.join("run_rank00000.spt");
        write_trace(&input, 3 * k, 40_000, k as i64 * 7);
        let alone = dir.join(format!("alone{k}"));
        std::fs::create_dir_all(&alone).unwrap();
        let alone = alone.join("same.h5");
        support::run_ok(&mut convert(&input, &alone));
        (input, std::fs::read(&alone).unwrap())
    })
}

#[test]
fn two_converts_to_one_output_leave_one_complete_file() {
    let dir = support::scratch_dir("concurrent-converts");
    let [(a, a_bytes), (b, b_bytes)] = two_inputs(&dir);
    let out_dir = dir.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("same.h5");
    let mut winners = [0, 0];
    for round in 0..ROUNDS {
        let (first, second) = if round % 2 == 0 { (&a, &b) } else { (&b, &a) };
        let one = spawn(convert(first, &out));
        let two = spawn(convert(second, &out));
        for child in [one, two] {
            let result = child.wait_with_output().unwrap();
            assert!(
                result.status.success(),
                "{}",
                String::from_utf8_lossy(&result.stderr)
            );
        }
        let got = std::fs::read(&out).unwrap();
        if got == a_bytes {
            winners[0] += 1;
        } else if got == b_bytes {
            winners[1] += 1;
        } else {
            panic!("round {round}: the output is neither conversion");
        }
        // And it is a valid profile, by the reader too.
        let file = sp::hdf5lite::reader::File::open(got).unwrap();
        sp::schema::read_profile(&file).unwrap();
        assert_eq!(
            support::listing(&out_dir),
            ["same.h5"],
            "round {round}: temporaries left"
        );
    }
    eprintln!(
        "last writer: input 1 {} times, input 2 {} times",
        winners[0], winners[1]
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn inspect_during_a_replacing_convert_reads_old_or_new() {
    let dir = support::scratch_dir("inspect-while-replaced");
    let [(a, _), (b, _)] = two_inputs(&dir);
    let out = dir.join("profile.h5");
    let inspect = || {
        let result = support::run_ok(support::sp().arg("inspect").arg(&out));
        String::from_utf8(result.stdout).unwrap()
    };
    support::run_ok(&mut convert(&a, &out));
    let report_a = inspect();
    support::run_ok(&mut convert(&b, &out));
    let report_b = inspect();
    assert_ne!(report_a, report_b);

    let mut seen = [0, 0];
    for round in 0..ROUNDS {
        let (from, to, old, new) = if round % 2 == 0 {
            (&b, &a, &report_b, &report_a)
        } else {
            (&a, &b, &report_a, &report_b)
        };
        support::run_ok(&mut convert(from, &out));
        let mut writer = spawn(convert(to, &out));
        // Inspect over and over while the replacement runs, and once more after.
        loop {
            let done = writer.try_wait().unwrap().is_some();
            let report = inspect();
            if report == *old {
                seen[0] += 1;
            } else if report == *new {
                seen[1] += 1;
            } else {
                panic!("round {round}: inspect read neither the old nor the new file:\n{report}");
            }
            if done {
                assert_eq!(report, *new, "round {round}: the replacement did not land");
                break;
            }
        }
        assert!(writer.wait().unwrap().success());
    }
    eprintln!(
        "inspect read the old file {} times, the new {} times",
        seen[0], seen[1]
    );
    assert!(seen[0] > 0, "never inspected during a replacement");
    std::fs::remove_dir_all(dir).unwrap();
}
