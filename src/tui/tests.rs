//! Snapshot tests of every view through ratatui's TestBackend, at 80×24 and 200×60, on
//! golden profiles; the region rows on screen are `sp inspect`'s (the library's report
//! rows, in its order, with its numbers). `SP_UPDATE_SNAPSHOTS=1` rewrites the snapshots
//! in src/tui/snapshots and the screenshots in docs/img.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;
use sp::analysis::report::compute::{file_rows, InOrder};
use sp::analysis::report::{Format, ReportOptions};
use sp::analysis::units::{count_text, duration_text};
use sp::analysis::Selection;

use super::app::{App, View};
use super::data::Doc;
use super::style::Look;
use super::{input, svg, views};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden(name: &str) -> PathBuf {
    repo().join("tests").join(name)
}

/// The app over `files` with every background job finished.
fn open(files: &[&str], look: Look) -> App {
    let docs = files
        .iter()
        .map(|f| Doc::open(&golden(f)).unwrap())
        .collect();
    let mut app = App::new(docs, look);
    for d in &mut app.docs {
        // Snapshots name the file as the repository does.
        d.name = d.name.replace(&format!("{}/", repo().display()), "");
    }
    wait(&mut app);
    app
}

fn wait(app: &mut App) {
    let start = std::time::Instant::now();
    while app.jobs.running() > 0 && start.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
        app.collect();
    }
    assert_eq!(app.jobs.running(), 0, "background work did not finish");
}

/// The screen once the jobs a frame asks for (the timeline's) have finished.
fn render(app: &mut App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    loop {
        t.draw(|f| views::draw(app, f)).unwrap();
        if !app.start_wanted() {
            return t.backend().buffer().clone();
        }
        wait(app);
    }
}

fn text(buf: &Buffer) -> String {
    let mut s = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn press(app: &mut App, code: KeyCode) {
    input::key(app, KeyEvent::new(code, KeyModifiers::NONE));
    wait(app);
}

/// Compares the screen with its snapshot (or writes it with `SP_UPDATE_SNAPSHOTS`).
fn snapshot(name: &str, screen: &str) {
    let path = repo().join("src/tui/snapshots").join(format!("{name}.txt"));
    if std::env::var_os("SP_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, screen).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run with SP_UPDATE_SNAPSHOTS=1",
            path.display()
        )
    });
    assert_eq!(screen, want, "{name} differs from its snapshot");
}

const MERGED: &str = "golden/merge_zstd/expected/merged.h5";

/// `sp inspect`'s rows of a golden profile (the library's report, default options).
fn inspect_rows(file: &str) -> Vec<sp::analysis::RegionRow> {
    let bytes = std::fs::read(golden(file)).unwrap();
    let file = sp::hdf5lite::reader::File::open(&bytes[..]).unwrap();
    file_rows(
        &file,
        &ReportOptions::default(),
        Format::Json,
        &Selection::all(),
        &InOrder,
    )
    .unwrap()
    .rows
}

#[test]
fn every_view_at_both_sizes() {
    let mut app = open(&[MERGED], Look::mono());
    for (view, _) in View::ALL {
        if view == View::Compare {
            continue;
        }
        if view == View::Detail {
            app.view = View::Regions;
            press(&mut app, KeyCode::Down);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.view, View::Detail);
        }
        app.view = view;
        for (w, h) in [(80, 24), (200, 60)] {
            let screen = text(&render(&mut app, w, h));
            snapshot(
                &format!("merged_{}_{w}x{h}", view.title().to_lowercase()),
                &screen,
            );
        }
    }
}

#[test]
fn the_region_rows_are_those_of_sp_inspect() {
    let mut app = open(&[MERGED], Look::mono());
    app.view = View::Regions;
    let screen = text(&render(&mut app, 200, 60));
    let lines: Vec<&str> = screen
        .lines()
        .skip(2)
        .filter(|l| !l.contains("(own)") && !l.trim().is_empty())
        .collect();
    let rows = inspect_rows(MERGED);
    assert!(rows.len() > 3);
    for (row, line) in rows.iter().zip(&lines) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert!(
            cells.contains(&row.name.as_str()),
            "{line:?} is not {}",
            row.name
        );
        let (calls, total) = (count_text(row.calls), duration_text(row.total));
        assert!(
            line.contains(&format!(" {calls} ")),
            "{line:?} lacks calls {calls}"
        );
        assert!(line.contains(&total), "{line:?} lacks total {total}");
    }
    assert!(lines.len() >= rows.len(), "{screen}");
}

#[test]
fn keys_collapse_sort_filter_and_help() {
    let mut app = open(&[MERGED], Look::mono());
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.view, View::Regions);
    let before = app.lines().len();
    press(&mut app, KeyCode::Left);
    assert!(app.lines().len() < before, "collapsing hides the children");
    press(&mut app, KeyCode::Right);
    assert_eq!(app.lines().len(), before);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(app.options.sort, sp::analysis::SortKey::Total);
    press(&mut app, KeyCode::Char('/'));
    for c in "inner".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    let report = app.report.as_ref().unwrap();
    assert!(app.lines().iter().all(|l| match l {
        super::app::Line::Row(i) | super::app::Line::Own(i) => report.rows[*i].name == "inner",
    }));
    press(&mut app, KeyCode::Char('?'));
    assert!(text(&render(&mut app, 80, 24)).contains("this help"));
    press(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

#[test]
fn compare_two_profiles_and_a_file_that_is_not_a_profile() {
    let mut app = open(
        &[MERGED, "golden/h5_python_zstd/expected/zstd_import.h5"],
        Look::mono(),
    );
    app.view = View::Compare;
    for (w, h) in [(80, 24), (200, 60)] {
        snapshot(&format!("compare_{w}x{h}"), &text(&render(&mut app, w, h)));
    }
    press(&mut app, KeyCode::Char('M'));
    assert!(text(&render(&mut app, 80, 24)).contains("metric"));

    // Any other HDF5 file opens on its tree.
    let mut plain = open(&["corpus/references_latest.h5"], Look::mono());
    assert_eq!(plain.view, View::Hdf5);
    assert_eq!(plain.views(), [View::Hdf5]);
    let screen = text(&render(&mut plain, 80, 24));
    assert!(
        screen.contains("is not a scope-profiler profile"),
        "{screen}"
    );
    assert!(screen.contains("/  group"), "{screen}");
}

#[test]
fn screenshots() {
    let dark = Look {
        color: true,
        light: false,
    };
    let mut app = open(&[MERGED], dark);
    let out = repo().join("docs/img");
    let write = std::env::var_os("SP_UPDATE_SNAPSHOTS").is_some();
    for (view, file) in [
        (View::Overview, "overview"),
        (View::Regions, "regions"),
        (View::Ranks, "ranks"),
        (View::Timeline, "timeline"),
    ] {
        app.view = view;
        if view == View::Regions {
            press(&mut app, KeyCode::Down);
            press(&mut app, KeyCode::Down);
        }
        for (palette, theme, look) in [
            (&svg::DARK, "dark", dark),
            (
                &svg::LIGHT,
                "light",
                Look {
                    color: true,
                    light: true,
                },
            ),
        ] {
            app.look = look;
            let picture = svg::svg(&render(&mut app, 100, 30), palette);
            assert!(picture.starts_with("<svg") && picture.ends_with("</svg>\n"));
            if write {
                std::fs::create_dir_all(&out).unwrap();
                std::fs::write(out.join(format!("tui-{file}-{theme}.svg")), picture).unwrap();
            }
        }
    }
}

/// A profile of 300 ranks written to a scratch file: `solve` and `halo`, one call each a
/// rank, rank 123 far the slowest in `solve`.
fn many_ranks_file() -> PathBuf {
    use sp::schema::{Merger, RegionCalls};
    let path = std::env::temp_dir().join(format!("sp-tui-many-ranks-{}.h5", std::process::id()));
    let mut merger = Merger::new();
    let call = |name: &str, start: i64, end: i64| RegionCalls {
        name: name.into(),
        source_file: None,
        source_line: None,
        source_text: None,
        starts: vec![start],
        ends: vec![end],
    };
    for rank in 0..300u32 {
        let solve = if rank == 123 {
            9_000_000
        } else {
            1_000_000 + i64::from(rank * 37 % 50) * 1_000
        };
        let halo = 500_000 + i64::from(rank * 11 % 20) * 1_000;
        let regions = vec![call("solve", 0, solve), call("halo", solve, solve + halo)];
        merger
            .add_rank(&format!("r{rank}.spt"), i64::from(rank), regions, None)
            .unwrap();
    }
    let writer = sp::schema::write::to_hdf5(&merger.finish(Some("many"))).unwrap();
    let mut out = std::fs::File::create(&path).unwrap();
    writer.finish(&mut out).unwrap();
    path
}

#[test]
fn many_ranks_show_their_distribution_and_drill_down() {
    let path = many_ranks_file();
    let mut app = App::new(vec![Doc::open(&path).unwrap()], Look::mono());
    app.docs[0].name = "many_ranks.h5".into();
    wait(&mut app);
    app.view = View::Ranks;
    let screen = text(&render(&mut app, 160, 30));
    snapshot("many_ranks_160x30", &screen);
    assert!(screen.contains("rank 123"), "{screen}");
    // Enter lists the selected region's ranks by value; only the rows on screen.
    press(&mut app, KeyCode::Enter);
    let screen = text(&render(&mut app, 160, 30));
    snapshot("many_ranks_drill_160x30", &screen);
    assert!(screen.lines().count() <= 30);
    press(&mut app, KeyCode::End);
    let screen = text(&render(&mut app, 160, 30));
    assert!(screen.contains(" 300 "), "{screen}");
    press(&mut app, KeyCode::Esc);
    assert!(app.rank_drill.is_none());
    let _ = std::fs::remove_file(path);
}

/// A JSON profile (the reference's `export json` layout, plain and gzip) shows every
/// profile view as the `.h5` it came from does; it has no HDF5 view.
#[test]
fn a_json_profile_shows_what_its_h5_shows() {
    use std::io::Write;
    let bytes = std::fs::read(golden(MERGED)).unwrap();
    let file = sp::hdf5lite::reader::File::open(&bytes[..]).unwrap();
    let exporter = sp::analysis::export::Exporter::open(&file, "merged").unwrap();
    let mut json = Vec::new();
    let all = Selection::new(None, None, None).unwrap();
    (exporter.write(sp::analysis::export::Format::Json, &all, &mut json)).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&json).unwrap();
    let dir = std::env::temp_dir().join(format!("sp-tui-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("merged.json");
    let zipped = dir.join("merged.json.gz");
    std::fs::write(&plain, &json).unwrap();
    std::fs::write(&zipped, gz.finish().unwrap()).unwrap();
    let h5 = open(&[MERGED], Look::mono());
    for path in [&plain, &zipped] {
        let mut app = App::new(vec![Doc::open(path).unwrap()], Look::mono());
        app.docs[0].name.clone_from(&h5.docs[0].name);
        app.docs[0].size = h5.docs[0].size;
        wait(&mut app);
        assert!(!app.views().contains(&View::Hdf5));
        for view in [
            View::Overview,
            View::Regions,
            View::Ranks,
            View::Timeline,
            View::Metadata,
        ] {
            let (mut a, mut b) = (open(&[MERGED], Look::mono()), app);
            a.view = view;
            b.view = view;
            // The tab bar (no HDF5 view) and the bytes read on the status line differ.
            let body = |app: &mut App| {
                let screen = text(&render(app, 200, 60));
                let lines: Vec<&str> = screen.lines().collect();
                lines[1..lines.len() - 1].join("\n")
            };
            assert_eq!(body(&mut b), body(&mut a), "{view:?} of {}", path.display());
            app = b;
        }
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A frame as drawn, without starting the jobs it asks for.
/// Starts a job of `kind` that sends `report` as file 0's, computed for `generation`: what a
/// report job sends when it lands, for the tests of what the app does with it.
fn land(
    app: &mut App,
    kind: super::jobs::Kind,
    generation: u64,
    report: Result<super::report::Report, String>,
) {
    use super::jobs::{Done, Stop};
    app.jobs.spawn(
        kind,
        String::new(),
        std::sync::Arc::default(),
        move |send| {
            let _ = send.send(Done::Report {
                doc: 0,
                generation,
                report: report.map(Box::new).map_err(Stop::Failed),
            });
        },
    );
}

fn frame(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| views::draw(app, f)).unwrap();
    text(t.backend().buffer())
}

/// While the timeline's job reads, the status line says what it reads and how far it has
/// got; Esc stops it, and the screen goes back to where it was.
#[test]
fn a_timeline_read_shows_its_progress_and_esc_stops_it() {
    use sp::analysis::progress::Progress;
    use std::sync::Arc;
    let mut app = open(&[MERGED], Look::mono());
    press(&mut app, KeyCode::Char('5'));
    assert_eq!(app.view, View::Timeline);
    // A job that reads until it is stopped, 312 MiB into 977 MiB.
    let progress = Arc::new(Progress::default());
    progress.add_total(977 << 20);
    progress.advance(312 << 20);
    let p = progress.clone();
    let kind = super::jobs::Kind::Timeline {
        view: sp::analysis::timeline::View {
            t0: 0,
            t1: 1,
            width: 1,
        },
        window: None,
    };
    let what = "timeline of ranks 0–3".to_string();
    app.jobs.spawn(kind, what, progress, move |_| {
        while !p.is_cancelled() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    let screen = frame(&app, 100, 24);
    snapshot("progress_100x24", &screen);
    let status = screen.lines().last().unwrap();
    assert!(
        status.contains("timeline of ranks 0–3 ▕███▏      ▏ 312 MiB of 977 MiB · Esc stops"),
        "{status}"
    );
    // The timeline was never drawn whole: Esc goes back to the view before it.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.jobs.running(), 0);
    assert_eq!(app.view, View::Overview);
    let status = frame(&app, 100, 24).lines().last().unwrap().to_string();
    assert!(
        status.contains("stopped the timeline of ranks 0–3 at 312 MiB of 977 MiB"),
        "{status}"
    );

    // A real read: zoomed in, then stopped before the frame collects it. The window goes
    // back to the one drawn whole, and nothing is read until a key of the timeline.
    press(&mut app, KeyCode::Char('5'));
    let whole = text(&render(&mut app, 100, 24));
    press(&mut app, KeyCode::Char('+'));
    assert!(app.window.is_some());
    let _ = frame(&app, 100, 24);
    assert!(app.start_wanted());
    press(&mut app, KeyCode::Esc);
    assert_eq!(
        (app.view, app.window, app.stopped),
        (View::Timeline, None, true)
    );
    assert!(!app.start_wanted());
    let again = frame(&app, 100, 24);
    assert_eq!(again.lines().nth(1), whole.lines().nth(1), "{again}");
    assert!(again
        .lines()
        .last()
        .unwrap()
        .contains("stopped the timeline"));
    press(&mut app, KeyCode::Char('+'));
    assert!(!app.stopped);
}

#[test]
fn the_progress_bar_fills_in_eighths() {
    assert_eq!(views::bar(0, 100, 4), "▕    ▏");
    assert_eq!(views::bar(50, 100, 4), "▕██  ▏");
    assert_eq!(views::bar(10, 100, 4), "▕▍   ▏");
    assert_eq!(views::bar(100, 100, 4), "▕████▏");
    assert_eq!(views::bar(7, 0, 2), "▕  ▏");
}

#[test]
fn detail_names_the_regions_tags() {
    let mut app = open(&["corpus/golden/python_rich_rich.h5"], Look::mono());
    app.show_detail("solve".into());
    assert_eq!(app.detail_tags, ["a", "b"]);
    let screen = text(&render(&mut app, 100, 24));
    assert!(screen.contains("solve  tags a, b"), "{screen}");
    app.show_detail("io".into());
    assert!(app.detail_tags.is_empty());
    assert!(!text(&render(&mut app, 100, 24)).contains("tags"));
}

/// The call tree of a whole profile is built on a job: the index's rows meanwhile, the
/// status line shows how far it has got, Esc stops it and leaves the index's rows, and a
/// tree built for older options is dropped. What lands is `Report::of`'s.
#[test]
fn the_call_tree_is_built_on_a_job_that_esc_stops() {
    use super::jobs::{Done, Kind, Stop};
    use super::report::Report;
    use sp::analysis::progress::Progress;
    use std::sync::Arc;
    let mut app = open(&[MERGED], Look::mono());
    let whole = app.docs[0].whole.clone().unwrap();
    let options = app.options.clone();
    let rows = |r: &Result<Report, String>| r.as_ref().unwrap().rows.clone();
    assert!(app.report.as_ref().unwrap().tree);
    assert_eq!(rows(&app.report), rows(&Report::of(&whole, true, &options)));
    // Other options: the index's rows at once, the tree when its job lands.
    press(&mut app, KeyCode::Char('m'));
    let exclusive = app.options.clone();
    assert_eq!(
        rows(&app.report),
        rows(&Report::of(&whole, true, &exclusive))
    );

    // A build that runs until it is stopped, 42 % done, over the index's rows.
    let head = app.docs[0].head.clone().unwrap();
    app.report = Report::of(&head, false, &exclusive);
    app.view = View::Regions;
    let progress = Arc::new(Progress::default());
    progress.add_total(100);
    progress.advance(42);
    let p = progress.clone();
    let generation = app.generation;
    let (send_whole, send_options) = (whole.clone(), exclusive.clone());
    let what = "building the call tree".to_string();
    app.jobs
        .spawn(Kind::Report { doc: 0 }, what, progress, move |send| {
            while !p.is_cancelled() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            // The library's answer to the cancel.
            let report = Report::build(&send_whole, true, &send_options, &p).map(Box::new);
            let _ = send.send(Done::Report {
                doc: 0,
                generation,
                report,
            });
        });
    let screen = frame(&app, 100, 24);
    snapshot("building_100x24", &screen);
    assert!(screen.contains("region (index; tree: 42 %)"), "{screen}");
    let status = screen.lines().last().unwrap();
    assert!(
        status.contains("building the call tree ▕████▏     ▏ 42 % · Esc stops"),
        "{status}"
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.jobs.running(), 0);
    assert!(!app.report.as_ref().unwrap().tree, "nothing applied");
    let status = frame(&app, 100, 24).lines().last().unwrap().to_string();
    assert!(
        status.contains("stopped the call tree at 42 %: the index's rows stay"),
        "{status}"
    );

    // A tree for options changed since is not applied.
    let stale = Report::of(&whole, true, &options);
    let generation = app.generation - 1;
    land(&mut app, Kind::Report { doc: 0 }, generation, stale);
    wait(&mut app);
    assert!(!app.report.as_ref().unwrap().tree);
    // The next change of options builds it again.
    press(&mut app, KeyCode::Char('m'));
    assert!(app.report.as_ref().unwrap().tree);
    assert_eq!(rows(&app.report), rows(&Report::of(&whole, true, &options)));

    // The build itself: stopped, no report; run, `of`'s, its progress at its total.
    let cancelled = Progress::default();
    cancelled.cancel();
    let built = Report::build(&whole, true, &options, &cancelled);
    assert!(matches!(built, Err(Stop::Cancelled)));
    let progress = Progress::default();
    progress.add_total(Report::work(&whole, true, &options));
    let built = Report::build(&whole, true, &options, &progress).map_err(|_| "stopped");
    assert_eq!(
        built.unwrap().rows,
        rows(&Report::of(&whole, true, &options))
    );
    assert!(progress.total() > 0);
    assert_eq!(progress.done(), progress.total());
}

/// A change of the sort sorts the rows already built (both files' call trees, or the
/// index's rows while a tree is built) on the UI thread: no job starts, and the rows are
/// those a fresh build for the new key gives, for every key and back to start order. A
/// tree that lands after the change, built for the old key, is shown in the new order.
#[test]
fn a_sort_change_sorts_the_rows_built_without_a_job() {
    use super::jobs::Kind;
    use super::report::Report;
    use sp::analysis::SortKey;
    let mut app = open(
        &[MERGED, "golden/h5_python_zstd/expected/zstd_import.h5"],
        Look::mono(),
    );
    app.view = View::Regions;
    let rows = |r: &Result<Report, String>| r.as_ref().unwrap().rows.clone();
    let wholes: Vec<_> = (app.docs.iter())
        .map(|d| d.whole.clone().unwrap())
        .collect();
    let keys: Vec<SortKey> = (SortKey::ALL.iter().cycle().skip(1))
        .take(SortKey::ALL.len())
        .map(|k| k.0)
        .collect();
    assert_eq!(keys.last(), Some(&SortKey::Start));
    let mut orders = std::collections::HashSet::new();
    for key in keys {
        let (started, generation) = (app.jobs.started(), app.generation);
        // The key alone, without waiting for jobs: nothing runs after it.
        input::key(
            &mut app,
            KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE),
        );
        assert_eq!(app.options.sort, key);
        assert_eq!((app.jobs.started(), app.jobs.running()), (started, 0));
        assert_eq!(app.generation, generation);
        let fresh = Report::of(&wholes[0], true, &app.options);
        assert_eq!(rows(&app.report), rows(&fresh), "{key:?}");
        let other = app.other.as_ref().unwrap();
        let fresh = Report::of(&wholes[1], true, &app.options);
        assert_eq!(rows(other), rows(&fresh), "{key:?}");
        let names: Vec<String> = rows(&app.report).into_iter().map(|r| r.name).collect();
        orders.insert(names);
    }
    // The keys do order the rows differently (start, total, name at least).
    assert!(orders.len() >= 3, "{} orders", orders.len());

    // The index's rows while the tree is built for start order: sorted at once; the tree
    // built for start order lands in total order.
    let head = app.docs[0].head.clone().unwrap();
    let start = app.options.clone();
    app.report = Report::of(&head, false, &start);
    press(&mut app, KeyCode::Char('s'));
    let total = app.options.clone();
    assert_eq!(total.sort, SortKey::Total);
    assert!(!app.report.as_ref().unwrap().tree);
    assert_eq!(rows(&app.report), rows(&Report::of(&head, false, &total)));
    let built = Report::of(&wholes[0], true, &start);
    assert_ne!(rows(&built), rows(&Report::of(&wholes[0], true, &total)));
    let generation = app.generation;
    land(&mut app, Kind::Report { doc: 0 }, generation, built);
    wait(&mut app);
    assert!(app.report.as_ref().unwrap().tree);
    assert_eq!(
        rows(&app.report),
        rows(&Report::of(&wholes[0], true, &total))
    );
}

/// The index's rows of a profile where they are much work (100,000 ranks' million rows;
/// here `sync_work` lowered to 0) are recomputed on a job when an option other than the
/// sort changes: the old rows and their options are shown meanwhile, and say so; the job's
/// rows are `Report::of`'s for the new options; a result for older options is dropped;
/// Esc leaves the old rows with their options, nothing half applied.
#[test]
fn an_option_change_recomputes_a_large_index_on_a_job() {
    use super::app::SYNC_WORK;
    use super::jobs::{Kind, Stop};
    use super::report::{Options, Report};
    use sp::analysis::progress::Progress;
    use sp::analysis::PercentageMode;
    use std::sync::Arc;
    let mut doc = Doc::open(&golden(MERGED)).unwrap();
    // The index alone, as for a profile too large to be read whole.
    doc.whole = None;
    doc.calls = u64::MAX;
    doc.name = MERGED.into();
    let head = doc.head.clone().unwrap();
    let mut app = App::new(vec![doc], Look::mono());
    assert_eq!(app.sync_work, SYNC_WORK);
    // The first screen's rows are computed at once, whatever the work.
    assert_eq!(app.jobs.started(), 0);
    app.sync_work = 0;
    app.view = View::Regions;
    let rows = |r: &Result<Report, String>| r.as_ref().unwrap().rows.clone();
    let coverage = app.options.clone();
    let key = |app: &mut App, code| input::key(app, KeyEvent::new(code, KeyModifiers::NONE));

    // `m`: a job starts; until it lands the old rows and options are shown.
    key(&mut app, KeyCode::Char('m'));
    let exclusive = app.options.clone();
    assert_eq!(exclusive.mode, PercentageMode::Exclusive);
    assert_eq!(app.jobs.started(), 1);
    assert!(matches!(app.jobs.tasks[0].kind, Kind::Rows { doc: 0 }));
    assert_eq!(
        rows(&app.report),
        rows(&Report::of(&head, false, &coverage))
    );
    assert_eq!(app.report.as_ref().unwrap().options, coverage);
    assert!(app.recomputing(0).is_some());
    wait(&mut app);
    assert_eq!(app.recomputing(0), None);
    assert_eq!(app.report.as_ref().unwrap().options, exclusive);
    assert_eq!(
        rows(&app.report),
        rows(&Report::of(&head, false, &exclusive))
    );
    assert_ne!(
        rows(&app.report),
        rows(&Report::of(&head, false, &coverage))
    );

    // Ranks typed at the prompt: the same (a rank with rows, not the first).
    let rank = app.rank_list().last().copied().unwrap();
    assert!(rank > 0 && rank < 10, "{rank}");
    let digit = char::from_digit(rank, 10).unwrap();
    for code in [KeyCode::Char('r'), KeyCode::Char(digit), KeyCode::Enter] {
        key(&mut app, code);
    }
    let rank_1 = app.options.clone();
    assert_eq!(rank_1.ranks, rank.to_string());
    assert_eq!(app.report.as_ref().unwrap().options, exclusive);
    wait(&mut app);
    assert_eq!(rows(&app.report), rows(&Report::of(&head, false, &rank_1)));
    assert_ne!(
        rows(&app.report),
        rows(&Report::of(&head, false, &exclusive))
    );

    // Two changes in a row: the first job is stopped, and a result for older options,
    // landing after the second, is dropped.
    key(&mut app, KeyCode::Char('m'));
    let older = app.generation;
    key(&mut app, KeyCode::Char('m'));
    assert_eq!(app.options.mode, PercentageMode::Exclusive);
    let stale = Report::of(
        &head,
        false,
        &Options {
            ranks: rank.to_string(),
            ..coverage.clone()
        },
    );
    land(&mut app, Kind::Rows { doc: 0 }, older, stale);
    wait(&mut app);
    assert_eq!(app.report.as_ref().unwrap().options, rank_1);
    assert_eq!(rows(&app.report), rows(&Report::of(&head, false, &rank_1)));

    // A recompute that runs until it is stopped, 42 % done: what the screen says.
    app.options.mode = PercentageMode::Coverage;
    let progress = Arc::new(Progress::default());
    progress.add_total(100);
    progress.advance(42);
    let p = progress.clone();
    let what = "recomputing for the new options".to_string();
    app.jobs
        .spawn(Kind::Rows { doc: 0 }, what, progress, move |_| {
            while !p.is_cancelled() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
    let screen = frame(&app, 100, 24);
    snapshot("recomputing_100x24", &screen);
    assert!(
        screen.contains("region (old options; new 42 %)"),
        "{screen}"
    );
    let status = screen.lines().last().unwrap();
    assert!(
        status.contains(&format!(
            "recomputing for the new options ▕████▏     ▏ 42 % · Esc stops · sort start · ranks {rank}"
        )),
        "{status}"
    );
    assert!(!status.contains("exclusive"), "{status}");
    // Esc: the rows shown stay, and so do their options (exclusive, rank 1).
    let generation = app.generation;
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.jobs.running(), 0);
    assert_eq!(app.generation, generation + 1);
    assert_eq!(app.options, rank_1);
    assert_eq!(app.report.as_ref().unwrap().options, rank_1);
    assert_eq!(rows(&app.report), rows(&Report::of(&head, false, &rank_1)));
    assert_eq!(
        app.message.as_deref(),
        Some("stopped at 42 %: the rows shown and their options stay")
    );

    // A real job stopped at once: whether or not it had sent its rows, they are dropped
    // and the rows and options are those before the key.
    key(&mut app, KeyCode::Char('m'));
    assert_eq!(app.options.mode, PercentageMode::Coverage);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.options, rank_1);
    assert_eq!(rows(&app.report), rows(&Report::of(&head, false, &rank_1)));
    // The sort is not undone: it applies to the rows shown at once.
    key(&mut app, KeyCode::Char('m'));
    key(&mut app, KeyCode::Char('s'));
    let sorted = app.options.sort;
    assert_ne!(sorted, rank_1.sort);
    press(&mut app, KeyCode::Esc);
    let want = Options {
        sort: sorted,
        ..rank_1.clone()
    };
    assert_eq!(app.options, want);
    assert_eq!(rows(&app.report), rows(&Report::of(&head, false, &want)));

    // The job's own build: its progress reaches the total it announced; stopped, no rows.
    let progress = Progress::default();
    progress.add_total(Report::work(&head, false, &exclusive));
    let built = Report::build(&head, false, &exclusive, &progress).map_err(|_| "stopped");
    assert_eq!(
        built.unwrap().rows,
        rows(&Report::of(&head, false, &exclusive))
    );
    assert!(progress.total() > 0);
    assert_eq!(progress.done(), progress.total());
    let cancelled = Progress::default();
    cancelled.cancel();
    let built = Report::build(&head, false, &exclusive, &cancelled);
    assert!(matches!(built, Err(Stop::Cancelled)));
}

/// With the calls loaded and the index's rows much work, a change of options keeps the
/// call tree shown, for the old options, until the new one lands (no index rows between).
#[test]
fn an_option_change_on_a_large_profile_read_whole_keeps_its_tree_until_the_new_one() {
    use super::jobs::Kind;
    use super::report::Report;
    let mut app = open(&[MERGED], Look::mono());
    app.sync_work = 0;
    let whole = app.docs[0].whole.clone().unwrap();
    let rows = |r: &Result<Report, String>| r.as_ref().unwrap().rows.clone();
    let before = app.options.clone();
    input::key(
        &mut app,
        KeyEvent::new(KeyCode::Char('m'), KeyModifiers::NONE),
    );
    let after = app.options.clone();
    assert_eq!(app.jobs.running(), 1);
    assert!(matches!(app.jobs.tasks[0].kind, Kind::Report { doc: 0 }));
    assert!(app.report.as_ref().unwrap().tree);
    assert_eq!(rows(&app.report), rows(&Report::of(&whole, true, &before)));
    assert!(app.recomputing(0).is_some());
    wait(&mut app);
    assert_eq!(rows(&app.report), rows(&Report::of(&whole, true, &after)));
    assert_eq!(app.report.as_ref().unwrap().options, after);
}
