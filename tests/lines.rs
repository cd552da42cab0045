//! `sp lines` on real programs built with the reference's C API (tests/golden-lines,
//! made by its regenerate.sh): per rank, equal to `scope-profiler native-lines` with
//! binutils, except where the reference is wrong (-no-pie: it gives ??:0, we give lines);
//! merged over ranks; modules found beside the samples and by --search; bad input.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

fn case(name: &str) -> PathBuf {
    support::repo().join("tests/golden-lines").join(name)
}

fn sp_in(dir: &Path, args: &[&str]) -> Output {
    support::sp()
        .current_dir(dir)
        .arg("lines")
        .args(args)
        .output()
        .expect("spawn sp")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Whether this machine's libm (and its debug file) is the one the goldens were made
/// with: else the `mathlib` region, most of it in libm, is not compared.
fn same_libm() -> bool {
    let recorded = std::fs::read_to_string(case("libm-build-id")).unwrap_or_default();
    let Ok(bytes) = std::fs::read("/lib/x86_64-linux-gnu/libm.so.6") else {
        return false;
    };
    let Ok(image) = sp::symbolize::elf::Image::parse(&bytes) else {
        return false;
    };
    let id: String = image
        .build_id
        .unwrap_or_default()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let debug = format!(
        "/usr/lib/debug/.build-id/{}/{}.debug",
        &id[..2.min(id.len())],
        id.get(2..).unwrap_or("")
    );
    id == recorded.trim() && Path::new(&debug).is_file()
}

/// The output's blocks (a file's header, then each region's table), with `mathlib`'s
/// left out unless this machine has the goldens' libm. In it, binutils 2.40 names some of
/// glibc's lines after file 0 of their DWARF 5 line table (`w_exp.c`, `s_sin-fma.c`) where
/// the table says file 1 (`w_exp_template.c`, `s_sin.c`, the files they include), as
/// readelf and gimli do not: that block is compared without file names and widths.
fn blocks(text: &str) -> Vec<String> {
    let libm = same_libm();
    text.split("\n\n")
        .filter(|b| libm || !b.starts_with("mathlib  ("))
        .map(|b| {
            if !b.starts_with("mathlib  (") {
                return b.to_owned();
            }
            b.lines()
                .filter(|l| !l.starts_with("---"))
                .map(|l| {
                    let mut words: Vec<&str> = l.split_whitespace().collect();
                    if let Some(w) = words.first_mut() {
                        *w = w.rsplit(':').next().unwrap_or(w);
                    }
                    words.join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

const CASES: [&str; 7] = [
    "c_O0_pie",
    "c_O2_pie",
    "c_gz",
    "c_dwarf4",
    "c_shlib",
    "f_O0",
    "c_stripped",
];

#[test]
fn per_rank_equals_the_reference_with_binutils() {
    for name in CASES {
        let dir = case(name);
        for (args, expected) in [
            (&["--per-rank", "profile_rank00000.sps"][..], "expected.txt"),
            (
                &[
                    "--per-rank",
                    "--top",
                    "3",
                    "--no-source",
                    "profile_rank00000.sps",
                ][..],
                "expected-top3.txt",
            ),
        ] {
            let out = sp_in(&dir, args);
            assert!(out.status.success(), "{name}: {}", support::show(&out));
            let want = std::fs::read_to_string(dir.join(expected)).unwrap();
            assert_eq!(blocks(&stdout(&out)), blocks(&want), "{name} {args:?}");
        }
    }
}

/// The reference subtracts the load address of a fixed-address executable too and gets
/// ??:0 for all of the program's own code; the region totals do not depend on that.
#[test]
fn no_pie_executables_get_their_lines() {
    for name in ["c_O0_nopie", "c_O2_nopie"] {
        let dir = case(name);
        let out = sp_in(
            &dir,
            &["--per-rank", "--top", "100", "profile_rank00000.sps"],
        );
        assert!(out.status.success(), "{name}: {}", support::show(&out));
        let ours = stdout(&out);
        let want = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
        let heads = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| l.ends_with(" samples)"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(heads(&ours), heads(&want), "{name}: region totals");
        assert!(
            want.contains("??:0    ??"),
            "{name}: the reference is right now?"
        );
        for region in ["compute", "inlined"] {
            let block = ours
                .split("\n\n")
                .find(|b| b.starts_with(&format!("{region}  (")))
                .unwrap();
            for row in block.lines().skip(3) {
                assert!(row.starts_with("lines_demo.c:"), "{name} {region}: {row}");
                assert!(!row.contains("??"), "{name} {region}: {row}");
            }
        }
        assert!(
            ours.contains("acc += (double)(i % 7) * 0.5;"),
            "{name}: source text"
        );
    }
}

/// Copies of one rank merged: every line's samples doubled, on both ranks.
#[test]
fn merged_over_ranks_with_the_modules_found_beside_the_samples() {
    let scratch = support::scratch_dir("lines-merged");
    let dir = case("c_O0_pie");
    for r in 0..2 {
        std::fs::copy(
            dir.join("profile_rank00000.sps"),
            scratch.join(format!("p_rank{r:05}.sps")),
        )
        .unwrap();
    }
    let single = sp_in(&dir, &["--format", "json", "profile_rank00000.sps"]);
    let both = sp_in(
        &dir,
        &[
            "--format",
            "json",
            "--search",
            ".",
            scratch.to_str().unwrap(),
        ],
    );
    assert!(both.status.success(), "{}", support::show(&both));
    let single: serde_json::Value = serde_json::from_slice(&single.stdout).unwrap();
    let both: serde_json::Value = serde_json::from_slice(&both.stdout).unwrap();
    assert_eq!(both["files"].as_array().unwrap().len(), 2);
    let (a, b) = (&single["regions"][0], &both["regions"][0]);
    assert_eq!(
        b["samples"].as_u64().unwrap(),
        2 * a["samples"].as_u64().unwrap()
    );
    assert_eq!(b["lines"][0]["line"], a["lines"][0]["line"]);
    assert_eq!(
        b["lines"][0]["samples"].as_u64().unwrap(),
        2 * a["lines"][0]["samples"].as_u64().unwrap()
    );
    assert_eq!(b["lines"][0]["ranks"], 2);
    assert_eq!(b["ranks"], 2);
    assert_ne!(b["lines"][0]["file"], "??");

    // From elsewhere, ./app is found beside the .sps (the reference looks only in its
    // working directory and gives ??:0).
    let here = sp_in(
        &support::repo(),
        &["--per-rank", "tests/golden-lines/c_O0_pie"],
    );
    assert!(here.status.success(), "{}", support::show(&here));
    assert!(
        stdout(&here).contains("lines_demo.c:1"),
        "{}",
        stdout(&here)
    );
    // Not found anywhere: ??:0, said once.
    let lost = sp_in(&scratch, &["--region", "compute", "."]);
    assert!(lost.status.success());
    assert_eq!(
        stderr(&lost).matches("module ./app: not found").count(),
        1,
        "{}",
        stderr(&lost)
    );
    assert!(stdout(&lost).contains("??:0"));
}

#[test]
fn damaged_samples_are_one_line_and_keep_going_continues() {
    let scratch = support::scratch_dir("lines-damaged");
    let bytes = std::fs::read(case("c_O2_pie").join("profile_rank00000.sps")).unwrap();
    std::fs::write(scratch.join("bad_rank00001.sps"), &bytes[..bytes.len() - 5]).unwrap();
    std::fs::write(scratch.join("good_rank00000.sps"), &bytes).unwrap();
    let out = sp_in(&scratch, &["bad_rank00001.sps"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("sp: bad_rank00001.sps: "), "{err}");
    let out = sp_in(
        &scratch,
        &[
            "--keep-going",
            "--search",
            case("c_O2_pie").to_str().unwrap(),
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", support::show(&out));
    assert!(
        stderr(&out).contains("bad_rank00001.sps: "),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("1 file (rank 0, 1000 Hz)"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("lines_demo.c:1"), "{}", stdout(&out));
}

#[test]
fn a_stripped_binary_gives_unknown_lines_and_a_note() {
    let out = sp_in(
        &case("c_stripped"),
        &["--region", "compute", "profile_rank00000.sps"],
    );
    assert!(out.status.success(), "{}", support::show(&out));
    assert!(stdout(&out).contains("??:0"));
    let err = stderr(&out);
    assert!(
        err.contains("module ./app: stripped") && err.contains("rebuild with -g"),
        "{err}"
    );
}

#[test]
fn inlined_chains_are_shown_on_request() {
    let out = sp_in(
        &case("c_O2_pie"),
        &[
            "--inlines",
            "--region",
            "inlined",
            "--format",
            "csv",
            "profile_rank00000.sps",
        ],
    );
    assert!(out.status.success(), "{}", support::show(&out));
    let text = stdout(&out);
    assert!(text.lines().next().unwrap().contains("inlined_into"));
    // with_inline is inlined into main; square_sum, when sampled, into both.
    let row = text
        .lines()
        .find(|l| l.contains(",with_inline,"))
        .expect("a with_inline line");
    assert!(row.contains(",main (lines_demo.c:70),"), "{row}");
    if let Some(row) = text.lines().find(|l| l.contains(",square_sum,")) {
        assert!(
            row.contains("with_inline (lines_demo.c:46) ← main (lines_demo.c:70)"),
            "{row}"
        );
    }
}

/// A debug file split off with objcopy is found through `--debug-dir`: by its
/// `.gnu_debuglink` name (and CRC), and by build id under `.build-id/`.
#[test]
fn separate_debug_files_are_found_by_debuglink_and_build_id() {
    let objcopy = |args: &[&str]| std::process::Command::new("objcopy").args(args).status();
    let scratch = support::scratch_dir("lines-debugfile");
    let (bin, link, ids) = (
        scratch.join("bin"),
        scratch.join("link"),
        scratch.join("ids"),
    );
    for d in [&bin, &link, &ids] {
        std::fs::create_dir_all(d).unwrap();
    }
    let dir = case("c_O2_pie");
    std::fs::copy(
        dir.join("profile_rank00000.sps"),
        bin.join("profile_rank00000.sps"),
    )
    .unwrap();
    let app = bin.join("app");
    let debug = link.join("app.debug");
    let (app_s, debug_s) = (app.to_str().unwrap(), debug.to_str().unwrap());
    std::fs::copy(dir.join("app"), &app).unwrap();
    match objcopy(&["--only-keep-debug", app_s, debug_s]) {
        Ok(s) if s.success() => {}
        _ => return eprintln!("no objcopy: skipped"),
    }
    let link_arg = format!("--add-gnu-debuglink={debug_s}");
    assert!(objcopy(&["--strip-debug", &link_arg, app_s])
        .unwrap()
        .success());
    let image = sp::symbolize::elf::Image::parse(&std::fs::read(&app).unwrap()).unwrap();
    assert!(image.dwarf.is_none() && image.debuglink.is_some());
    let id: String = image
        .build_id
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let by_id = ids.join(".build-id").join(&id[..2]);
    std::fs::create_dir_all(&by_id).unwrap();
    std::fs::copy(&debug, by_id.join(format!("{}.debug", &id[2..]))).unwrap();

    let args = |root: &Path| {
        let root = root.to_str().unwrap().to_owned();
        vec![
            "--region".to_owned(),
            "compute".into(),
            "--debug-dir".into(),
            root,
            ".".into(),
        ]
    };
    let none = sp_in(&bin, &["--region", "compute", "."]);
    assert!(
        stderr(&none).contains("no debug info"),
        "{}",
        support::show(&none)
    );
    for root in [&link, &ids] {
        let a = args(root);
        let out = sp_in(&bin, &a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.status.success(), "{}", support::show(&out));
        assert!(
            stdout(&out).contains("lines_demo.c:1"),
            "{root:?}: {}",
            support::show(&out)
        );
        assert!(!stderr(&out).contains("no debug info"), "{}", stderr(&out));
    }
}

/// Another binary where the program was: the addresses that fall outside it are said.
#[test]
fn a_binary_that_is_not_the_one_that_ran_is_named() {
    let scratch = support::scratch_dir("lines-mismatch");
    let sps = scratch.join("profile_rank00000.sps");
    std::fs::copy(case("c_O2_pie").join("profile_rank00000.sps"), &sps).unwrap();
    std::fs::copy(case("c_shlib").join("libkernel.so"), scratch.join("app")).unwrap();
    let out = sp_in(&scratch, &["--region", "compute", "."]);
    assert!(out.status.success(), "{}", support::show(&out));
    let err = stderr(&out);
    assert!(
        err.contains("module ./app: sampled addresses fall outside it"),
        "{err}"
    );
}
