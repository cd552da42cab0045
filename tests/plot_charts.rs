//! `sp plot` for the aggregate kinds (durations, histogram, rank_heatmap, imbalance,
//! timeseries, density): each SVG is the same bytes twice, parses as XML with no script, and
//! holds what its data says — a titled shape per bar, cell, point or region, the region
//! names as text — where the data is the table `sp export plot-data` writes (itself checked
//! against the reference in tests/plot_data.rs); PNGs decode to the width asked for, light
//! and dark; bad options are one line, exit 1, and leave no file.

mod support;

use std::path::Path;

use support::{repo, scratch_dir, show, sp};

const MIXED: &str = "tests/golden/mixed/expected/merged.h5";
const GZIP: &str = "tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5";
const KINDS: [&str; 6] = [
    "durations",
    "histogram",
    "rank_heatmap",
    "imbalance",
    "timeseries",
    "density",
];

fn plot(dir: &Path, kind: &str, input: &str, out: &str, args: &[&str]) -> std::process::Output {
    sp().current_dir(dir)
        .args(["plot", kind])
        .arg(repo().join(input))
        .args(["-o", out])
        .args(args)
        .output()
        .unwrap()
}

/// The rows of `sp export plot-data --plots KIND` with `args` (`sp plot`'s `--metric` is
/// plot-data's `--metrics`).
fn data(dir: &Path, kind: &str, input: &str, args: &[&str]) -> Vec<Vec<String>> {
    let out = dir.join(format!("{kind}-data"));
    let args: Vec<&str> = (args.iter())
        .map(|a| if *a == "--metric" { "--metrics" } else { a })
        .collect();
    let run = sp()
        .args(["export", "plot-data"])
        .arg(repo().join(input))
        .arg("-o")
        .arg(&out)
        .args(["--plots", kind])
        .args(&args)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", show(&run));
    let stem = match kind {
        "timeseries" => "duration_timeseries",
        "density" => "timeline_density",
        _ => kind,
    };
    let text = std::fs::read_to_string(out.join(format!("{stem}_data.csv"))).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

/// The tooltips of the shapes named `tag`.
fn titles(doc: &roxmltree::Document, tag: &str) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name(tag))
        .filter_map(|n| n.children().find(|c| c.has_tag_name("title")))
        .filter_map(|t| t.text().map(str::to_owned))
        .collect()
}

#[test]
fn every_kind_is_deterministic_clean_svg_holding_its_data() {
    let dir = scratch_dir("plot-aggregate");
    for input in [MIXED, GZIP] {
        for kind in KINDS {
            for theme in ["light", "dark"] {
                let args = ["--theme", theme];
                let a = plot(&dir, kind, input, "a.svg", &args);
                assert!(a.status.success(), "{kind}: {}", show(&a));
                let b = plot(&dir, kind, input, "b.svg", &args);
                assert!(b.status.success());
                let svg = std::fs::read_to_string(dir.join("a.svg")).unwrap();
                assert_eq!(
                    svg.as_bytes(),
                    std::fs::read(dir.join("b.svg")).unwrap(),
                    "{kind} twice"
                );
                let doc = roxmltree::Document::parse(&svg).unwrap();
                assert!(doc.root_element().attribute("viewBox").is_some());
                assert!(doc
                    .descendants()
                    .all(|n| !n.has_tag_name("script") && !n.has_tag_name("foreignObject")));
                let text: String = doc
                    .descendants()
                    .filter(|n| n.is_text())
                    .filter_map(|n| n.text())
                    .collect();
                let rows = data(&dir, kind, input, &[]);
                let region_col = if kind == "rank_heatmap" { 2 } else { 1 };
                for row in &rows {
                    assert!(
                        text.contains(&row[region_col]),
                        "{kind}: no label {}",
                        row[region_col]
                    );
                }
                check_shapes(kind, &doc, &rows);
            }
        }
    }
}

/// The shapes say what the rows say.
fn check_shapes(kind: &str, doc: &roxmltree::Document, rows: &[Vec<String>]) {
    match kind {
        "durations" => {
            let tips = titles(doc, "rect");
            for row in rows {
                assert!(
                    tips.iter().any(|t| t.starts_with(&format!("{}: ", row[1]))),
                    "{row:?}"
                );
            }
        }
        "rank_heatmap" => {
            let tips = titles(doc, "rect");
            for row in rows {
                let want = format!("{} on rank {}: ", row[2], row[1]);
                assert_eq!(
                    tips.iter().filter(|t| t.starts_with(&want)).count(),
                    1,
                    "{want}"
                );
            }
        }
        "imbalance" => {
            let tips = titles(doc, "circle");
            assert_eq!(tips.len(), rows.len());
        }
        "histogram" => {
            // A titled point per non-empty bin.
            let tips = titles(doc, "circle");
            assert_eq!(tips.len(), rows.iter().filter(|r| r[5] != "0").count());
        }
        "timeseries" | "density" => {
            let regions: std::collections::BTreeSet<&str> =
                rows.iter().map(|r| r[1].as_str()).collect();
            // Density: titled cells; timeseries: a legend swatch (points only while few).
            let tips = titles(doc, "rect");
            for r in regions {
                let want = |t: &String| match kind {
                    "density" => t.starts_with(&format!("{r}: ")),
                    _ => t == r,
                };
                assert!(tips.iter().any(want), "{kind}: {r}");
            }
        }
        _ => unreachable!(),
    }
}

#[test]
fn options_change_the_picture_and_pngs_decode() {
    let dir = scratch_dir("plot-aggregate-png");
    for kind in KINDS {
        for theme in ["light", "dark"] {
            let out = plot(
                &dir,
                kind,
                GZIP,
                "c.png",
                &["--theme", theme, "--width", "900"],
            );
            assert!(out.status.success(), "{kind}: {}", show(&out));
            let png = std::fs::read(dir.join("c.png")).unwrap();
            let reader = png::Decoder::new(std::io::Cursor::new(&png))
                .read_info()
                .unwrap();
            assert_eq!(reader.info().width, 900, "{kind}");
            assert!(reader.info().height > 150, "{kind}");
        }
    }
    // --top-n keeps N bars and says so; --log-scale and --bins are honoured.
    let out = plot(
        &dir,
        "durations",
        MIXED,
        "top.svg",
        &["--sort-by", "total", "--top-n", "2"],
    );
    assert!(out.status.success(), "{}", show(&out));
    let svg = std::fs::read_to_string(dir.join("top.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let want = data(
        &dir,
        "durations",
        MIXED,
        &["--sort-by", "total", "--top-n", "2"],
    );
    assert_eq!(titles(&doc, "rect").len(), want.len());
    assert!(svg.contains("the top 2 of"));
    let out = plot(
        &dir,
        "histogram",
        MIXED,
        "bins.svg",
        &["--bins", "5", "--log-scale"],
    );
    assert!(out.status.success(), "{}", show(&out));
    assert!(std::fs::read_to_string(dir.join("bins.svg"))
        .unwrap()
        .contains("5 bins"));
}

/// `--stack-children`: one titled segment per row of `plot-data --stack-children` (the
/// reference's numbers), own time first, and the children named in a legend.
#[test]
fn stacked_durations_draw_their_segments() {
    let dir = scratch_dir("plot-durations-stacked");
    for metric in ["total", "avg"] {
        let args = ["--stack-children", "--metric", metric];
        let out = plot(&dir, "durations", MIXED, "stacked.svg", &args);
        assert!(out.status.success(), "{}", show(&out));
        let svg = std::fs::read_to_string(dir.join("stacked.svg")).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert!(svg.contains("children stacked"));
        let rows = data(&dir, "durations", MIXED, &args);
        let mut want: Vec<String> = Vec::new();
        for row in &rows {
            let (bar, segment) = (&row[1], &row[3]);
            if row[4].parse::<f64>().unwrap() > 0.0 {
                want.push(match segment.as_str() {
                    "self" => format!("{bar}: own time"),
                    _ => format!("{bar} in {segment}:"),
                });
            }
        }
        let children: Vec<&String> = (rows.iter().map(|r| &r[3]))
            .filter(|s| *s != "self")
            .collect();
        assert!(!children.is_empty(), "mixed has nested calls");
        let tips = titles(&doc, "rect");
        for w in &want {
            assert_eq!(
                tips.iter().filter(|t| t.starts_with(w)).count(),
                1,
                "{w}: {tips:?}"
            );
        }
        for child in children {
            assert!(
                tips.contains(&format!("in {child}")),
                "legend {child}: {tips:?}"
            );
        }
    }
}

#[test]
fn bad_options_are_one_line_and_leave_no_file() {
    let dir = scratch_dir("plot-aggregate-bad");
    for (kind, args) in [
        ("rank_heatmap", vec!["--ranks", "40"]),
        ("imbalance", vec!["--metric", "first"]),
        ("density", vec!["--start-time", "9", "--end-time", "1"]),
        ("durations", vec!["--include", "zzz"]),
        ("durations", vec!["--stack-children", "--metric", "max"]),
        ("histogram", vec!["--ranks", "40"]),
    ] {
        let out = plot(&dir, kind, MIXED, "bad.svg", &args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{kind} {args:?}: {}",
            show(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("merged.h5"), "{err}");
        assert!(!dir.join("bad.svg").exists());
    }
}
