//! `sp scaling` against the reference's `scope-profiler export plot-data --plots speedup
//! scaling_efficiency weak_scaling weak_scaling_efficiency` on the MPI strong and weak
//! series (made with the reference's C API under mpirun, tests/golden/scaling), alone and
//! pooled (two runs at each rank count): every point within 1e-9 relative. Then the
//! axis errors, which name the run.

mod support;

use std::collections::HashMap;

use serde_json::Value;

const STRONG: [&str; 3] = [
    "tests/golden/scaling/strong/ranks1.h5",
    "tests/golden/scaling/strong/ranks2.h5",
    "tests/golden/scaling/strong/ranks4.h5",
];
const WEAK: [&str; 3] = [
    "tests/golden/scaling/weak/ranks1.h5",
    "tests/golden/scaling/weak/ranks2.h5",
    "tests/golden/scaling/weak/ranks4.h5",
];
const KINDS: [(&str, &str, &str); 4] = [
    ("speedup", "speedup", "speedup"),
    ("scaling_efficiency", "efficiency", "efficiency"),
    ("weak_scaling", "normalized_runtime", "normalized_runtime"),
    ("weak_scaling_efficiency", "efficiency", "weak_efficiency"),
];

fn sp(args: &[&str]) -> std::process::Output {
    support::sp()
        .current_dir(support::repo())
        .args(args)
        .output()
        .expect("run sp")
}

fn compare_with_reference(files: &[&str]) {
    let dir = support::scratch_dir(&format!("scaling_{}", files.len()));
    let mut args = vec!["-m", "scope_profiler", "export", "plot-data"];
    args.extend(files);
    let out = dir.to_str().unwrap();
    args.extend(["--format", "json", "-o", out, "--plots"]);
    args.extend(KINDS.map(|k| k.0));
    support::run_python(&support::repo(), &args);
    let mut ours = vec!["scaling", "--format", "json"];
    ours.extend(files);
    let result = sp(&ours);
    assert!(result.status.success(), "{}", support::show(&result));
    let doc: Value = serde_json::from_slice(&result.stdout).unwrap();
    let mut points = HashMap::new();
    for p in doc["points"].as_array().unwrap() {
        points.insert(
            (p["region"].to_string(), p["num_ranks"].to_string()),
            p.clone(),
        );
    }
    for (kind, their_key, our_key) in KINDS {
        let path = dir.join(format!("{kind}_data.json"));
        let theirs: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let theirs = theirs["points"].as_array().unwrap();
        assert!(!theirs.is_empty());
        for t in theirs {
            let key = (t["region"].to_string(), t["num_ranks"].to_string());
            let o = &points.get(&key).unwrap_or_else(|| panic!("{kind} {key:?}"))[our_key];
            let (a, b) = (o.as_f64().unwrap(), t[their_key].as_f64().unwrap());
            assert!(
                (a - b).abs() <= 1e-9 * b.abs(),
                "{kind} {key:?}: {a} vs {b}"
            );
        }
        assert_eq!(theirs.len(), points.len(), "{kind}: the same points");
    }
}

#[test]
fn strong_series_matches_export_plot_data() {
    compare_with_reference(&STRONG);
}

#[test]
fn weak_series_pooled_with_strong_matches_export_plot_data() {
    let both: Vec<&str> = STRONG.iter().chain(&WEAK).copied().collect();
    compare_with_reference(&both);
}

#[test]
fn a_missing_axis_names_the_run() {
    let out = sp(&["scaling", STRONG[0], STRONG[1], "--x", "threads"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(STRONG[0]) && err.contains("omp_num_threads"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    let out = sp(&["scaling", STRONG[0]]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least two profiles"), "{err}");
    let out = sp(&["scaling", STRONG[0], STRONG[0]]);
    assert_eq!(out.status.code(), Some(1), "{}", support::show(&out));
}

/// `sp plot KIND` of the strong series: every point the reference's plot data has is a
/// dot whose tooltip holds its value (to the 4 digits shown), and no other; the ideal line
/// is drawn; the PNG decodes to the SVG's size.
#[test]
fn scaling_charts_plot_the_reference_points() {
    let dir = support::scratch_dir("scaling_plots");
    let out = dir.to_str().unwrap();
    let mut args = vec!["-m", "scope_profiler", "export", "plot-data"];
    args.extend(STRONG);
    args.extend(["--format", "json", "-o", out, "--plots"]);
    args.extend(KINDS.map(|k| k.0));
    support::run_python(&support::repo(), &args);
    for (kind, their_key, _) in KINDS {
        let path = dir.join(format!("{kind}_data.json"));
        let theirs: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let svg = dir.join(format!("{kind}.svg"));
        let png = dir.join(format!("{kind}.png"));
        for file in [&svg, &png] {
            let mut plot = vec!["plot", kind];
            plot.extend(STRONG);
            plot.extend(["-o", file.to_str().unwrap()]);
            let result = sp(&plot);
            assert!(result.status.success(), "{}", support::show(&result));
        }
        let text = std::fs::read_to_string(&svg).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let mut dots = HashMap::new();
        for c in doc.descendants().filter(|n| n.has_tag_name("circle")) {
            // The dots before the names at the lines' ends have no tooltip.
            let Some(tip) = c.children().find(|n| n.has_tag_name("title")) else {
                continue;
            };
            let tip = tip.text().unwrap();
            // "REGION · MPI ranks = N: KEY VALUE"
            let (region, rest) = tip.split_once(" · MPI ranks = ").unwrap();
            let (ranks, value) = rest.split_once(": ").unwrap();
            let value: f64 = value.rsplit(' ').next().unwrap().parse().unwrap();
            dots.insert((region.to_string(), ranks.to_string()), value);
        }
        let points = theirs["points"].as_array().unwrap();
        assert_eq!(dots.len(), points.len(), "{kind}: one dot per point");
        for t in points {
            let key = (
                t["region"].as_str().unwrap().to_string(),
                t["num_ranks"].to_string(),
            );
            let ours = dots[&key];
            let want = t[their_key].as_f64().unwrap();
            assert!(
                (ours - want).abs() <= 5e-4 * want.abs(),
                "{kind} {key:?}: {ours} vs {want}"
            );
        }
        assert!(text.contains("class=\"ideal\""), "{kind}: the ideal line");
        assert!(
            text.contains(">MPI ranks</text>"),
            "{kind}: the x axis title"
        );
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
        let info = decoder.read_info().unwrap();
        let root = doc.root_element();
        let width: u32 = root.attribute("width").unwrap().parse::<f32>().unwrap() as u32;
        assert_eq!(info.info().width, width, "{kind}: PNG width");
    }
    // A directory gives the series its files give.
    let from_dir = dir.join("from_dir.svg");
    let result = sp(&[
        "plot",
        "speedup",
        "tests/golden/scaling/strong/",
        "-o",
        from_dir.to_str().unwrap(),
    ]);
    assert!(result.status.success(), "{}", support::show(&result));
    assert_eq!(
        std::fs::read(&from_dir).unwrap(),
        std::fs::read(dir.join("speedup.svg")).unwrap()
    );
    let one_file = dir.join("one.svg");
    let one = sp(&[
        "plot",
        "speedup",
        STRONG[0],
        "-o",
        one_file.to_str().unwrap(),
    ]);
    assert_eq!(one.status.code(), Some(1), "{}", support::show(&one));
    assert!(String::from_utf8_lossy(&one.stderr).contains("two profiles or more"));
}

/// A six-run series whose regions follow known laws (tests/golden/scaling/models, written
/// by the reference from models.py).
const MODELS: [&str; 6] = [
    "tests/golden/scaling/models/ranks1.h5",
    "tests/golden/scaling/models/ranks2.h5",
    "tests/golden/scaling/models/ranks4.h5",
    "tests/golden/scaling/models/ranks8.h5",
    "tests/golden/scaling/models/ranks16.h5",
    "tests/golden/scaling/models/ranks32.h5",
];

#[test]
fn the_model_chart_draws_the_models_sp_scaling_fits() {
    let mut args = vec!["scaling", "--mode", "strong", "--model", "--format", "json"];
    args.extend(MODELS);
    let out = sp(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let models: HashMap<String, Value> = (json["models"].as_array().unwrap().iter())
        .map(|m| {
            (
                m["region"].as_str().unwrap().to_string(),
                m["model"].clone(),
            )
        })
        .collect();
    // The laws of models.py: log2(p) for exchange, p^(1/2) for allreduce, a constant io.
    let text = |r: &str| models[r]["text"].as_str().unwrap().to_string();
    assert!(
        text("exchange").ends_with("* log2(p)"),
        "{}",
        text("exchange")
    );
    assert!(
        text("allreduce").ends_with("* p^(1/2)"),
        "{}",
        text("allreduce")
    );
    assert_eq!(models["io"]["terms"].as_array().map(Vec::len), Some(0));

    let dir = support::scratch_dir("scaling_model_chart");
    let svg = dir.join("models.svg");
    let mut args = vec!["plot", "scaling_model"];
    args.extend(MODELS);
    args.extend(["-o", svg.to_str().unwrap()]);
    let out = sp(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let texts: Vec<&str> = (doc.descendants())
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for (region, model) in &models {
        let r2 = model["adjusted_r2"].as_f64().unwrap();
        let line = format!("{} · adjusted R² {}", text(region), python_g4(r2));
        assert!(
            texts.contains(&line.as_str()),
            "{region}: {line:?} not in {texts:?}"
        );
    }
    // A dot per region and run, with its time per rank as the tooltip.
    let dots = (doc.descendants())
        .filter(|n| n.has_tag_name("circle"))
        .filter(|n| n.children().any(|c| c.has_tag_name("title")))
        .count();
    assert_eq!(dots, 4 * MODELS.len());
}

/// `%.4g` as Python writes it, for the adjusted R² of the chart (values in (0, 1]).
fn python_g4(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}
