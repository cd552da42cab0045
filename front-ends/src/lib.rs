//! Every front end of `sp` driven through the library alone — bytes in, bytes out: convert
//! traces to a profile in memory, inspect it (table, CSV, JSON), export it (Chrome trace,
//! speedscope, JSON) and list its tree. No file system, no process, no threads: this crate
//! builds for `wasm32-unknown-unknown` (`cargo test -p sp-front-ends --no-run --target
//! wasm32-unknown-unknown`, run by `scripts/test.sh`), so it shows the browser page can do
//! what the CLI does with the same code. Its tests compare each output with what the CLI
//! prints for the same file (`tests/front_ends/`, checked against the CLI by
//! `tests/front_end_snapshots.rs`).

use sp::analysis::export::{Exporter, Format as ExportFormat};
use sp::analysis::report::{FileReport, Format, ReportOptions, ReportWriter};
use sp::analysis::Selection;
use sp::hdf5lite::reader::File;
use sp::hdf5lite::tree;
use sp::schema::{self, Merger, RegionCalls};
use sp::trace;

/// Any failure of a front end, as text (this crate only demonstrates; the CLI types them).
pub type Error = Box<dyn std::error::Error>;

/// `sp convert` in memory: traces (`.spt` bytes) merged into a schema-3 profile.
pub fn convert(traces: &[(&str, &[u8])], label: &str) -> Result<Vec<u8>, Error> {
    let mut merger = Merger::new();
    for (name, bytes) in traces {
        let view = trace::parse(bytes)?;
        let regions = view.regions.iter().map(RegionCalls::from).collect();
        merger.add_rank(name, i64::from(view.rank), regions, None)?;
    }
    let profile = merger.finish(Some(label));
    let mut out = Vec::new();
    schema::write::to_hdf5(&profile)?.finish(&mut out)?;
    Ok(out)
}

/// `sp inspect` of one profile named `name`, in `format`.
pub fn inspect(
    bytes: &[u8],
    name: &str,
    format: Format,
    options: ReportOptions,
) -> Result<Vec<u8>, Error> {
    let file = File::open(bytes)?;
    let profile = options.reading().read(&file)?;
    let rows = options.rows(&profile, &Selection::all());
    let mut report = ReportWriter::new(Vec::new(), format, options);
    report.file(&FileReport {
        name,
        size: bytes.len() as u64,
        profile: &profile,
        rows: &rows,
        rows_from_calls: profile.has_events(),
    })?;
    Ok(report.finish()?)
}

/// `sp export FORMAT` of a profile whose file stem is `stem`.
pub fn export(bytes: &[u8], stem: &str, format: ExportFormat) -> Result<Vec<u8>, Error> {
    let file = File::open(bytes)?;
    let exporter = Exporter::open(&file, stem)?;
    let mut out = Vec::new();
    exporter.write(format, &Selection::all(), &mut out)?;
    Ok(out)
}

/// `sp ls --json [--data]`: the tree of any HDF5 file under `path`, as the CLI prints it.
pub fn ls_json(bytes: &[u8], path: &str, values: bool) -> Result<Vec<u8>, Error> {
    let file = File::open(bytes)?;
    let options = tree::Options {
        values,
        max_elements: None,
    };
    let mut out = Vec::new();
    tree::write_json(&mut out, tree::Walk::new(&file, path, options)?)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = "tests/golden/synthetic/expected/golden.h5";
    const GOLDEN: &[u8] = include_bytes!("../../tests/golden/synthetic/expected/golden.h5");

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).expect("utf-8")
    }

    /// The traces of the synthetic run merge into the content of the reference's output.
    #[test]
    fn convert_in_memory_gives_the_reference_content() {
        let traces: [(&str, &[u8]); 2] = [
            (
                "g_rank00000.spt",
                include_bytes!("../../tests/golden/synthetic/inputs/g_rank00000.spt"),
            ),
            (
                "g_rank00001.spt",
                include_bytes!("../../tests/golden/synthetic/inputs/g_rank00001.spt"),
            ),
        ];
        let converted = convert(&traces, "golden").expect("convert");
        let ours = schema::read(
            &File::open(converted.as_slice()).unwrap(),
            schema::Depth::Events,
        )
        .expect("read ours");
        let reference =
            schema::read(&File::open(GOLDEN).unwrap(), schema::Depth::Events).expect("read");
        assert_eq!(ours, reference);
        assert_eq!(ours.regions.len(), 4);
    }

    #[test]
    fn inspect_table_csv_and_json_equal_the_cli() {
        let table = inspect(GOLDEN, PROFILE, Format::Table, ReportOptions::default()).unwrap();
        assert_eq!(
            text(table),
            include_str!("../../tests/inspect/snapshots/synthetic.txt")
        );
        let json = inspect(GOLDEN, PROFILE, Format::Json, ReportOptions::default()).unwrap();
        assert_eq!(
            text(json),
            include_str!("../../tests/front_ends/synthetic_inspect.json")
        );
        let flat = ReportOptions {
            flat: true,
            ..ReportOptions::default()
        };
        let csv = inspect(
            include_bytes!("../../tests/golden/c_trace/expected/profiling_data.h5"),
            "tests/golden/c_trace/expected/profiling_data.h5",
            Format::Csv,
            flat,
        )
        .unwrap();
        assert_eq!(
            text(csv),
            include_str!("../../tests/inspect/snapshots/c_trace_flat_csv.txt")
        );
    }

    #[test]
    fn exports_equal_the_cli() {
        for (format, expected) in [
            (
                ExportFormat::ChromeTrace,
                &include_bytes!("../../tests/front_ends/synthetic_export_chrome-trace.json")[..],
            ),
            (
                ExportFormat::Speedscope,
                &include_bytes!("../../tests/front_ends/synthetic_export_speedscope.json")[..],
            ),
            (
                ExportFormat::Json,
                &include_bytes!("../../tests/front_ends/synthetic_export_json.json")[..],
            ),
        ] {
            let ours = export(GOLDEN, "golden", format).unwrap();
            assert!(ours == expected, "{format:?}: {}", text(ours));
        }
    }

    #[test]
    fn ls_equals_the_cli() {
        let ours = ls_json(GOLDEN, "/", false).unwrap();
        assert_eq!(
            text(ours),
            include_str!("../../tests/front_ends/synthetic_ls.json")
        );
    }
}
