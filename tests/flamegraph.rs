//! The aggregated call stacks against the reference's flame graph rows, and what
//! `sp export flamegraph` and `sp export folded` write: XML that parses with one titled
//! rectangle per frame, folded lines that add up, PNGs of the stated size, the same bytes
//! twice, and one-line errors with no output left behind.
//!
//! Needs the reference (`$SP_PYTHON`, else `<repo>/.venv/bin/python`).

mod support;

use std::path::Path;

use serde_json::Value;
use sp::analysis::{events::Loaded, load, stacks, Selection};
use sp::hdf5lite::reader::File;
use support::{repo, run_python, scratch_dir, show, sp};

/// Profiles with calls, and their rank counts.
const PROFILES: [(&str, u32); 7] = [
    ("tests/golden/c_trace/expected/profiling_data.h5", 1),
    ("tests/golden/fortran/expected/profiling_data.h5", 1),
    ("tests/golden/synthetic/expected/golden.h5", 2),
    ("tests/golden/h5_python_rich/expected/rich_import.h5", 2),
    ("tests/golden/mixed/expected/merged.h5", 8),
    (
        "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5",
        6,
    ),
    (
        "tests/golden/h5_lzf_with_traces/expected/lzf_with_traces.h5",
        6,
    ),
];

/// A profile whose calls do not nest (the reference's flame graph fails on it too).
const UNNESTED: &str = "tests/golden/chunked/expected/big.h5";

const AGGREGATE: &str = "tests/golden/h5_python_agg/expected/agg_import.h5";

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

#[test]
fn stacks_are_the_reference_flame_graph_rows() {
    for (k, (path, ranks)) in PROFILES.into_iter().enumerate() {
        let dir = scratch_dir(&format!("fg-ref-{k}"));
        let input = repo().join(path);
        let spec = format!("0-{}", ranks - 1);
        run_python(
            &dir,
            [
                "-m",
                "scope_profiler",
                "export",
                "plot-data",
                input.to_str().unwrap(),
                "-o",
                "out",
                "--plots",
                "flame_graph",
                "--format",
                "json",
                "--ranks",
                &spec,
            ],
        );
        let text = std::fs::read_to_string(dir.join("out/flame_graph_data.json")).unwrap();
        let rows: Value = serde_json::from_str(&text).unwrap();
        let rows = rows["calls"].as_array().unwrap();

        let bytes = std::fs::read(&input).unwrap();
        let file = File::open(&bytes[..]).unwrap();
        let profile = load::read_full(&file).unwrap();
        let mut compared = 0;
        for rank in 0..ranks {
            let want: Vec<&Value> = rows.iter().filter(|r| r["rank"] == rank).collect();
            let s = stacks::read(&profile, &Loaded, &Selection::all(), &[rank]).unwrap();
            assert_eq!(s.frames.len(), want.len(), "{path} rank {rank}");
            for (i, (frame, row)) in s.frames.iter().zip(&want).enumerate() {
                let at = format!("{path} rank {rank} frame {i}");
                assert_eq!(row["call_id"], i as u64, "{at}");
                assert_eq!(row["call_path"], s.path(i).join(" > "), "{at}");
                assert_eq!(row["depth"], frame.depth as u64, "{at}");
                assert_eq!(
                    row["parent_call_id"].as_u64(),
                    frame.parent.map(|p| p as u64),
                    "{at}"
                );
                let total = row["inclusive_duration_seconds"].as_f64().unwrap();
                let own = row["exclusive_duration_seconds"].as_f64().unwrap();
                assert!(
                    close(total, frame.total_ns as f64 / 1e9),
                    "{at}: {total} vs {}",
                    frame.total_ns
                );
                assert!(
                    close(own, frame.own_ns as f64 / 1e9),
                    "{at}: {own} vs {}",
                    frame.own_ns
                );
                compared += 1;
            }
        }
        assert!(compared > 0, "{path}: no frames compared");
    }
}

/// `sp export KIND FILE ARGS…` in `dir`.
fn export(dir: &Path, kind: &str, file: &str, args: &[&str]) -> std::process::Output {
    sp().current_dir(dir)
        .arg("export")
        .arg(kind)
        .arg(repo().join(file))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_flame_graph_has_a_titled_frame_per_path_and_the_same_bytes_twice() {
    let dir = scratch_dir("fg-svg");
    let (path, _) = PROFILES[4];
    let out = export(
        &dir,
        "flamegraph",
        path,
        &["-o", "fg.svg", "--threshold", "0"],
    );
    assert!(out.status.success(), "{}", show(&out));
    let svg = std::fs::read_to_string(dir.join("fg.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let root = doc.root_element();
    assert!(root.attribute("viewBox").is_some() && root.attribute("width").is_none());
    assert!(!svg.starts_with("<?xml"));
    assert!(doc
        .descendants()
        .all(|n| !n.has_tag_name("script") && !n.has_tag_name("foreignObject")));

    // One titled rectangle per call path of every rank merged, and one for the root.
    let bytes = std::fs::read(repo().join(path)).unwrap();
    let file = File::open(&bytes[..]).unwrap();
    let profile = load::read_full(&file).unwrap();
    let ranks: Vec<u32> = (0..8)
        .filter(|&r| profile.regions.iter().any(|g| g.rank(r).is_some()))
        .collect();
    let s = stacks::read(&profile, &Loaded, &Selection::all(), &ranks).unwrap();
    let titled: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .filter_map(|n| n.children().find(|c| c.has_tag_name("title")))
        .filter_map(|t| t.text().map(str::to_owned))
        .collect();
    assert_eq!(titled.len(), s.frames.len() + 1, "{titled:?}");
    for i in 0..s.frames.len() {
        let path = s.path(i).join(" > ");
        assert!(
            titled.iter().any(|t| t.ends_with(&format!(" · {path}"))),
            "no frame for {path}"
        );
    }
    let title = root.children().find(|n| n.has_tag_name("title")).unwrap();
    assert!(
        title.text().unwrap().starts_with("Flame graph of "),
        "{title:?}"
    );

    // The same input, the same bytes; --fixed-width gives a prolog and a pixel size.
    let again = export(
        &dir,
        "flamegraph",
        path,
        &["-o", "again.svg", "--threshold", "0"],
    );
    assert!(again.status.success());
    assert_eq!(
        std::fs::read(dir.join("again.svg")).unwrap(),
        svg.as_bytes()
    );
    let fixed = export(
        &dir,
        "flamegraph",
        path,
        &["-o", "fixed.svg", "--fixed-width", "--width", "800"],
    );
    assert!(fixed.status.success(), "{}", show(&fixed));
    let fixed = std::fs::read_to_string(dir.join("fixed.svg")).unwrap();
    assert!(fixed.starts_with("<?xml"));
    let doc = roxmltree::Document::parse(&fixed).unwrap();
    assert_eq!(doc.root_element().attribute("width"), Some("800"));
}

#[test]
fn per_rank_files_and_pngs() {
    let dir = scratch_dir("fg-per-rank");
    let (path, ranks) = PROFILES[3];
    let out = export(&dir, "flamegraph", path, &["-o", "fg.svg", "--per-rank"]);
    assert!(out.status.success(), "{}", show(&out));
    for r in 0..ranks {
        let svg = std::fs::read_to_string(dir.join(format!("fg_rank{r}.svg"))).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let title = doc
            .root_element()
            .children()
            .find(|n| n.has_tag_name("title"))
            .unwrap();
        assert!(
            title.text().unwrap().ends_with(&format!("rank {r}")),
            "{title:?}"
        );
    }
    assert!(!dir.join("fg.svg").exists());
    let out = export(
        &dir,
        "flamegraph",
        path,
        &["-o", "fg.png", "--width", "640", "--theme", "dark"],
    );
    assert!(out.status.success(), "{}", show(&out));
    let png = std::fs::read(dir.join("fg.png")).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let reader = decoder.read_info().unwrap();
    assert_eq!(reader.info().width, 640);
    assert!(reader.info().height > 100);
}

#[test]
fn folded_lines_add_up_to_the_own_time() {
    let dir = scratch_dir("folded");
    for (path, _) in PROFILES {
        let out = export(&dir, "folded", path, &["-o", "run.folded"]);
        assert!(out.status.success(), "{}", show(&out));
        let text = std::fs::read_to_string(dir.join("run.folded")).unwrap();
        let bytes = std::fs::read(repo().join(path)).unwrap();
        let file = File::open(&bytes[..]).unwrap();
        let profile = load::read_full(&file).unwrap();
        let ranks: Vec<u32> = (0..8)
            .filter(|&r| {
                profile
                    .regions
                    .iter()
                    .any(|g| g.rank(r).is_some_and(|x| x.calls() > 0))
            })
            .collect();
        let s = stacks::read(&profile, &Loaded, &Selection::all(), &ranks).unwrap();
        let mut sum = 0i64;
        let mut previous = String::new();
        for line in text.lines() {
            let (stack, value) = line.rsplit_once(' ').unwrap();
            assert!(
                !stack.is_empty() && stack > previous.as_str(),
                "{path}: {line}"
            );
            previous = stack.to_string();
            sum += value.parse::<i64>().unwrap();
        }
        let own: i64 = s.frames.iter().map(|f| f.own_ns.max(0)).sum();
        assert_eq!(sum, own, "{path}");
        assert!(own > 0);
    }
}

#[test]
fn bad_input_is_one_line_and_no_file() {
    let dir = scratch_dir("fg-bad");
    for kind in ["flamegraph", "folded"] {
        let out = export(&dir, kind, AGGREGATE, &["-o", "x.out"]);
        assert_eq!(out.status.code(), Some(1), "{}", show(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("agg_import.h5") && err.contains("no calls"),
            "{err}"
        );
        assert!(!dir.join("x.out").exists());
    }
    let out = export(&dir, "flamegraph", UNNESTED, &["-o", "x.svg"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("big.h5: rank 0's calls do not nest"), "{err}");
    let (path, _) = PROFILES[0];
    let out = export(
        &dir,
        "flamegraph",
        path,
        &["-o", "x.svg", "--threshold", "101"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let out = export(&dir, "chrome-trace", path, &["-o", "x.json", "--per-rank"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let out = export(&dir, "flamegraph", path, &["-o", "x.svg", "--include", "("]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let out = export(
        &dir,
        "flamegraph",
        path,
        &["-o", "x.svg", "--include", "no_such_region"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no calls"));
    let entries: Vec<_> = std::fs::read_dir(&*dir).unwrap().collect();
    assert!(entries.is_empty(), "{entries:?}");
}
