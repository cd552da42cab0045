//! Exports to trace viewers, written event by event to any [`Write`]: Chrome Trace Event
//! JSON (Perfetto, chrome://tracing), laid out as the reference's `build_chrome_trace_document`
//! lays it out — one process per rank, one complete ("X") slice per call, microseconds
//! from the run's time origin, source locations in `args`.

use std::io::Write;

use super::error::Result;
use super::profile::Profile;
use super::rows::{selected_regions, Selection};

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number with enough digits to round-trip (`null` if not finite).
fn json_f64(v: f64) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        "null".into()
    }
}

/// Writes a Chrome Trace Event document for the selected ranks (every rank when `None`).
pub fn chrome_trace<W: Write>(
    profile: &Profile,
    sel: &Selection<'_>,
    label: &str,
    out: &mut W,
) -> Result<()> {
    let regions = selected_regions(profile, sel);
    let ranks: Vec<u32> = match &sel.ranks {
        Some(r) => r.clone(),
        // Every rank of the run, as the reference lists them when asked for all.
        None => (0..profile.num_ranks)
            .filter_map(|r| u32::try_from(r).ok())
            .collect(),
    };
    let origin = profile.time_origin();
    write!(
        out,
        "{{\"displayTimeUnit\":\"ms\",\"metadata\":{{\"name\":{},\"exporter\":\"sp\"}},\"traceEvents\":[",
        json_str(label)
    )?;
    let mut first = true;
    let mut sep = |out: &mut W| -> std::io::Result<()> {
        if !std::mem::take(&mut first) {
            out.write_all(b",")?;
        }
        Ok(())
    };
    for &rank in &ranks {
        sep(out)?;
        write!(
            out,
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{rank},\"tid\":0,\"args\":{{\"name\":\"rank {rank}\"}}}}"
        )?;
        sep(out)?;
        write!(
            out,
            "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{rank},\"tid\":0,\"args\":{{\"name\":\"rank {rank}\",\"lane\":\"rank\"}}}}"
        )?;
        for region in &regions {
            let Some(row) = region.rank(rank) else {
                continue;
            };
            let source = region
                .ranks
                .iter()
                .find_map(|r| r.source_file.as_ref().map(|f| (f.clone(), r.source_line)));
            let name = json_str(&region.name);
            for (i, (&s, &e)) in row.starts.iter().zip(&row.ends).enumerate() {
                // As the reference's Region.events: relative start and end, then their
                // difference (not the nanosecond difference) as the duration.
                let start = s as f64 / 1e9 - origin;
                let end = e as f64 / 1e9 - origin;
                let duration = end - start;
                sep(out)?;
                write!(
                    out,
                    "{{\"name\":{name},\"cat\":\"scope-profiler\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{rank},\"tid\":0,\"args\":{{\"rank\":{rank},\"call_index\":{i},\"duration_s\":{}",
                    json_f64(start * 1_000_000.0),
                    json_f64(duration * 1_000_000.0),
                    json_f64(duration)
                )?;
                if let Some(g) = row.gpu.as_ref().and_then(|g| g.get(i)) {
                    if *g >= 0 {
                        write!(out, ",\"gpu_duration\":{}", json_f64(*g as f64 / 1e9))?;
                    }
                }
                if let Some((file, line)) = &source {
                    write!(out, ",\"source_file\":{}", json_str(file))?;
                    if let Some(line) = line {
                        write!(out, ",\"source_line\":{line}")?;
                    }
                }
                out.write_all(b"}}")?;
            }
        }
    }
    out.write_all(b"]}\n")?;
    Ok(())
}
