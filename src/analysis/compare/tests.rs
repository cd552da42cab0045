use super::*;
use crate::analysis::report::gpu_timing_warning;
use crate::schema::{Depth, ProfileLayout, RankCalls, Region};

/// A profile of one rank whose regions have calls of the given (start, end) times in ns.
pub(super) fn profile(regions: &[(&str, &[(i64, i64)])]) -> Profile {
    Profile {
        schema: 3,
        layout: ProfileLayout::Columnar,
        metadata: Default::default(),
        num_ranks: 1,
        region_names: regions.iter().map(|(n, _)| n.to_string()).collect(),
        regions: regions
            .iter()
            .map(|(name, calls)| Region {
                name: name.to_string(),
                ranks: vec![RankCalls {
                    calls: crate::schema::Calls {
                        starts: calls.iter().map(|c| c.0).collect(),
                        ends: calls.iter().map(|c| c.1).collect(),
                        ..Default::default()
                    }
                    .into(),
                    rank: 0,
                    ..RankCalls::default()
                }],
            })
            .collect(),
        depth: Depth::Events,
        summary_statistics: false,
    }
}

fn before() -> Profile {
    profile(&[
        ("solve", &[(0, 10), (20, 50)]),
        ("io", &[(60, 64)]),
        ("idle", &[]),
        ("setup", &[(100, 300)]),
    ])
}

fn after() -> Profile {
    profile(&[
        ("solve", &[(0, 10), (20, 70)]),
        ("setup", &[(100, 298)]),
        ("plot", &[(80, 81), (90, 93)]),
    ])
}

fn row<'c>(c: &'c Comparison, name: &str) -> &'c DiffRow {
    c.rows
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

#[test]
fn rows_pair_regions_by_name_and_order_by_delta() {
    let c = diff(
        &before(),
        &after(),
        &Selection::all(),
        &DiffOptions::default(),
    );
    // |delta|: solve 20 ns, io 4 ns, plot 4 ns, setup 2 ns; idle has no total on either side.
    let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["solve", "io", "plot", "setup"]);
    let solve = row(&c, "solve");
    assert_eq!(solve.a, Some(10e-9 + 30e-9));
    assert_eq!(solve.b, Some(10e-9 + 50e-9));
    assert_eq!(solve.delta, (10e-9 + 50e-9) - (10e-9 + 30e-9));
    assert_eq!(solve.pct, Some(solve.delta / (10e-9 + 30e-9) * 100.0));
    let io = row(&c, "io");
    assert_eq!(
        (io.a, io.b, io.delta, io.pct),
        (Some(4e-9), None, -4e-9, Some(-100.0))
    );
    let plot = row(&c, "plot");
    assert_eq!((plot.a, plot.b, plot.pct), (None, Some(1e-9 + 3e-9), None));
    assert_eq!(c.only_in_a().collect::<Vec<_>>(), ["io"]);
    assert_eq!(c.only_in_b().collect::<Vec<_>>(), ["plot"]);
    assert!(c.warnings.is_empty());
}

#[test]
fn percent_order_puts_rows_without_a_baseline_last_by_name() {
    let options = DiffOptions {
        order: DiffOrder::Pct,
        ..DiffOptions::default()
    };
    let c = diff(&before(), &after(), &Selection::all(), &options);
    let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
    // io -100 %, solve +50 %, setup -1 %, then plot (no baseline).
    assert_eq!(names, ["io", "solve", "setup", "plot"]);
    let by_name = diff(
        &before(),
        &after(),
        &Selection::all(),
        &DiffOptions {
            order: DiffOrder::Name,
            ..DiffOptions::default()
        },
    );
    let names: Vec<&str> = by_name.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["io", "plot", "setup", "solve"]);
}

#[test]
fn threshold_drops_small_changes_but_keeps_one_sided_rows() {
    let options = DiffOptions {
        threshold: Some(2.0),
        ..DiffOptions::default()
    };
    let c = diff(&before(), &after(), &Selection::all(), &options);
    let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
    // setup changed by -1 %: dropped; plot has no percentage: kept.
    assert_eq!(names, ["solve", "io", "plot"]);
}

#[test]
fn calls_compare_regions_without_calls_and_zero_has_no_percentage() {
    let options = DiffOptions {
        metric: Metric::Calls,
        order: DiffOrder::Name,
        threshold: None,
    };
    let c = diff(&before(), &after(), &Selection::all(), &options);
    let idle = row(&c, "idle");
    assert_eq!(
        (idle.a, idle.b, idle.delta, idle.pct),
        (Some(0.0), None, 0.0, None)
    );
    let plot = row(&c, "plot");
    assert_eq!((plot.a, plot.b, plot.delta), (None, Some(2.0), 2.0));
    assert_eq!(row(&c, "solve").pct, Some(0.0));
    assert_eq!(c.only_in_a().collect::<Vec<_>>(), ["idle", "io"]);
}

#[test]
fn selection_limits_the_regions() {
    let sel = Selection::new(Some(&["s.*".to_string()]), None, None).expect("patterns");
    let c = diff(&before(), &after(), &sel, &DiffOptions::default());
    let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["solve", "setup"]);
}

#[test]
fn check_fails_on_a_regression_over_budget() {
    let sel = Selection::all();
    let strict = check(
        &before(),
        &after(),
        &sel,
        Metric::Total,
        Budget::new(10.0, false).expect("budget"),
    );
    assert!(!strict.passed());
    let failed: Vec<&str> = strict.violations().map(|r| r.name.as_str()).collect();
    assert_eq!(failed, ["solve"]);
    // The table lists every region, ordered by |delta %|.
    assert_eq!(strict.comparison.rows.len(), 4);
    assert_eq!(strict.comparison.options.order, DiffOrder::Pct);

    let loose = check(
        &before(),
        &after(),
        &sel,
        Metric::Total,
        Budget::new(50.0, false).expect("budget"),
    );
    assert!(loose.passed(), "+50 % is within a 50 % budget");
}

#[test]
fn new_regions_fail_only_when_asked() {
    let sel = Selection::all();
    let budget = |fail_on_new| Budget::new(100.0, fail_on_new).expect("budget");
    assert!(check(&before(), &after(), &sel, Metric::Total, budget(false)).passed());
    let strict = check(&before(), &after(), &sel, Metric::Total, budget(true));
    let failed: Vec<&str> = strict.violations().map(|r| r.name.as_str()).collect();
    assert_eq!(failed, ["plot"]);
}

#[test]
fn a_negative_budget_is_refused() {
    assert_eq!(Budget::new(-1.0, false), Err(BudgetError(-1.0)));
    assert_eq!(
        BudgetError(-1.0).to_string(),
        "the maximum regression must be non-negative, not -1%"
    );
    // As the reference's `max_regression < 0`: NaN (which nothing exceeds) and -0 pass.
    assert!(
        Budget::new(f64::NAN, false).is_ok_and(|b| !b.violated_by(&DiffRow {
            name: "x".into(),
            a: Some(1.0),
            b: Some(9.0),
            delta: 8.0,
            pct: Some(800.0),
        }))
    );
    assert!(Budget::new(-0.0, false).is_ok());
    assert!(Budget::new(0.0, true).is_ok());
}

#[test]
fn metric_names_round_trip() {
    for (metric, name) in Metric::ALL {
        assert_eq!(Metric::from_name(name), Some(metric));
        assert_eq!(metric.name(), name);
    }
    for (order, name) in DiffOrder::ALL {
        assert_eq!(DiffOrder::from_name(name), Some(order));
    }
    assert_eq!(Metric::P95.reading(), Reading::Full);
    assert_eq!(Metric::Imbalance.reading(), Reading::Summary);
}

#[test]
fn gpu_time_over_twice_cpu_time_is_noted() {
    let rows = [
        RegionRow {
            name: "kernel".into(),
            total: Some(1.0),
            gpu_total: Some(2.5),
            ..RegionRow::default()
        },
        RegionRow {
            name: "copy".into(),
            total: Some(1.0),
            gpu_total: Some(2.0),
            ..RegionRow::default()
        },
    ];
    let warning = gpu_timing_warning(&rows).expect("a warning");
    assert!(
        warning.starts_with("Warning: GPU time exceeds CPU time by more than 2x for kernel. "),
        "{warning}"
    );
    assert_eq!(gpu_timing_warning(&rows[1..]), None);
}

/// A profile read to its index, with the percentiles read a region at a time from its
/// events, compares as the full read does: the page's path gives the CLI's numbers.
#[test]
fn index_rows_with_percentiles_compare_as_a_full_read() {
    let pairs: [(&[u8], &[u8]); 2] = [
        (
            include_bytes!("../../../tests/golden/c_trace/expected/profiling_data.h5"),
            include_bytes!("../../../tests/golden/fortran/expected/profiling_data.h5"),
        ),
        (
            include_bytes!(
                "../../../tests/golden/h5_gzip_with_traces/expected/h5_gzip_with_traces.h5"
            ),
            include_bytes!("../../../tests/golden/merge_gzip/expected/merged.h5"),
        ),
    ];
    for (before, after) in pairs {
        index_compares_as_full(before, after);
    }
}

fn index_compares_as_full(before: &[u8], after: &[u8]) {
    use crate::analysis::load::{read_full, read_summary};
    use crate::analysis::quantiles::region_percentiles;
    use crate::hdf5lite::reader::File;
    use crate::schema::EventReader;

    let (before, after) = (
        File::open(before).expect("a"),
        File::open(after).expect("b"),
    );
    for sel in [Selection::all(), Selection::ranks(Some(vec![0]))] {
        let from_index = |file: &File<&[u8]>| {
            let index = read_summary(file).expect("index");
            let reader = EventReader::open(file).expect("events");
            FlatRows::of(&index, &sel).with_percentiles(|name| {
                let region = index.region(name).expect("region");
                region_percentiles(reader.as_ref(), region, sel.ranks.as_deref())
            })
        };
        let (a, b) = (
            from_index(&before).expect("a"),
            from_index(&after).expect("b"),
        );
        let (full_a, full_b) = (
            read_full(&before).expect("a"),
            read_full(&after).expect("b"),
        );
        for metric in [Metric::P50, Metric::P95, Metric::P99] {
            let options = DiffOptions {
                metric,
                ..DiffOptions::default()
            };
            let expected = diff(&full_a, &full_b, &sel, &options);
            assert!(expected.rows.iter().any(|r| r.a.is_some() && r.b.is_some()));
            assert_eq!(
                diff_flat(&a, &b, &options).rows,
                expected.rows,
                "{metric:?}"
            );
        }
    }
}
