//! The tools as `tools/list` describes them: names, descriptions and input schemas. The
//! schemas are the reference server's (`scope_profiler.mcp_server.server`, as FastMCP
//! derives them from its signatures), so a client calls both the same way.

use serde_json::{json, Value as Json};

/// What the server tells a client it is for.
pub const INSTRUCTIONS: &str = "Tools for inspecting, comparing and plotting scope-profiler \
profiles (HDF5, or the reference's JSON profiles). Typical workflow: inspect_profile to see \
where the time goes -> change the code and profile again -> compare_profiles to see whether \
it got faster.";

fn strings() -> Json {
    json!({"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}], "default": null})
}

fn ranks() -> Json {
    json!({"anyOf": [{"items": {"type": "integer"}, "type": "array"}, {"type": "null"}], "default": null, "title": "Ranks"})
}

fn titled(mut schema: Json, title: &str) -> Json {
    schema["title"] = json!(title);
    schema
}

fn top_n() -> Json {
    json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 20, "title": "Top N"})
}

/// Every tool, as `tools/list` returns them.
pub fn tools() -> Json {
    json!([
        {
            "name": "inspect_profile",
            "description": "Summarize a scope-profiler profile: runtime, ranks, region stats, metadata.\n\n\
    Use this to answer \"what does this profile look like?\" or \"where did the time go?\" for a \
    single run. Returns structured JSON, not a formatted table.\n\n\
    Args:\n\
    file_path: Path to a profile (a merged profiling_data.h5, or a JSON profile).\n\
    include: Only report regions whose name matches one of these regex patterns.\n\
    exclude: Skip regions whose name matches one of these regex patterns.\n\
    ranks: Restrict region statistics to these MPI ranks (default: all ranks).\n\
    sort: Region ordering: one of \"start\", \"total\", \"calls\", \"avg\", \"min\", \"max\", \
    \"first\", \"last\", \"std\", \"p50\", \"p95\", \"p99\", \"imbalance\" (descending) or \"name\" \
    (alphabetical).\n\
    top_n: Maximum number of regions to return, ranked by `sort` (default: 20; null for every \
    region). The response also reports how many regions matched in total.\n\
    full_metadata: If false (default), raw environment variables and unrecognized metadata \
    fields are collapsed to a count. Set true to get everything.\n\n\
    Returns:\n\
    file_path, label, num_ranks, num_regions, total_time_seconds, wall_clock_seconds, \
    metadata (grouped run/system/parallelism/slurm/modules info), regions (sorted, possibly \
    truncated per-region statistics plus counts), and likwid (per-region hardware counters, or \
    null if the run did not use LIKWID).",
            "inputSchema": {
                "properties": {
                    "file_path": {"title": "File Path", "type": "string"},
                    "include": titled(strings(), "Include"),
                    "exclude": titled(strings(), "Exclude"),
                    "ranks": ranks(),
                    "sort": {"default": "total", "title": "Sort", "type": "string"},
                    "top_n": top_n(),
                    "full_metadata": {"default": false, "title": "Full Metadata", "type": "boolean"}
                },
                "required": ["file_path"],
                "title": "inspect_profileArguments",
                "type": "object"
            }
        },
        {
            "name": "compare_profiles",
            "description": "Compare two scope-profiler profiles and report whether it got faster.\n\n\
    Use this after changing code and re-profiling: point `baseline_path` at the run before the \
    change and `candidate_path` at the run after. All the arithmetic (absolute and relative \
    change, per-region deltas, which regions regressed or improved) is computed here.\n\n\
    Args:\n\
    baseline_path: The \"before\" profile.\n\
    candidate_path: The \"after\" profile.\n\
    include: Only compare regions whose name matches one of these regex patterns.\n\
    exclude: Skip regions whose name matches one of these regex patterns.\n\
    ranks: Restrict the comparison to these MPI ranks (default: all).\n\
    metric: Which per-region statistic to compare: one of \"gpu_total\", \"gpu_avg\", \
    \"total\", \"avg\", \"min\", \"max\", \"p50\", \"p95\", \"p99\", \"imbalance\", \"calls\".\n\
    threshold_pct: Percent change above which a region is listed in `regressions`, or below \
    whose negation it is listed in `improvements` (default: 5.0).\n\
    top_n: Maximum number of entries in `regions`, `regressions` and `improvements` \
    (default: 20; null for no limit).\n\n\
    Returns:\n\
    baseline/candidate (each a headline: total_time_seconds, num_ranks, ...), overall \
    (absolute_diff_seconds, relative_change_pct, speedup, and `faster`), metric, threshold_pct, \
    regions (per-region deltas, by descending |pct|), and regressions/improvements (the regions \
    beyond `threshold_pct`, largest change first).",
            "inputSchema": {
                "properties": {
                    "baseline_path": {"title": "Baseline Path", "type": "string"},
                    "candidate_path": {"title": "Candidate Path", "type": "string"},
                    "include": titled(strings(), "Include"),
                    "exclude": titled(strings(), "Exclude"),
                    "ranks": ranks(),
                    "metric": {"default": "total", "title": "Metric", "type": "string"},
                    "threshold_pct": {"default": 5.0, "title": "Threshold Pct", "type": "number"},
                    "top_n": top_n()
                },
                "required": ["baseline_path", "candidate_path"],
                "title": "compare_profilesArguments",
                "type": "object"
            }
        },
        {
            "name": "plot_profile",
            "description": "Render one figure from scope-profiler profile(s) and return its path.\n\n\
    Prefer inspect_profile/compare_profiles, which return numbers. Use this when a human will \
    look at the image.\n\n\
    Args:\n\
    file_paths: One path, or a list of paths, to profiles. `plot_type=\"speedup\"` requires \
    at least two.\n\
    plot_type: One of \"gantt\", \"flame_chart\", \"flame_graph\", \"durations\", \
    \"timeseries\", or \"speedup\" (\"flame\" is an alias of \"flame_chart\").\n\
    output_dir: Directory to write the figure into. Defaults to a new temporary directory.\n\
    include: Only plot regions whose name matches one of these regex patterns.\n\
    exclude: Skip regions whose name matches one of these regex patterns.\n\
    ranks: Restrict the plot to these MPI ranks (default: all).\n\
    backend: \"matplotlib\" (default, writes a `.png`) or \"plotly\" (writes an `.html` \
    page holding the chart as SVG).\n\
    x_field: Speedup x-axis, only for `plot_type=\"speedup\"`: \"num_ranks\" (default), \
    \"num_nodes\", \"omp_num_threads\", \"total_cores\", or any other metadata field.\n\n\
    Returns:\n\
    plot_type, backend, and paths (the file written).",
            "inputSchema": {
                "properties": {
                    "file_paths": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "string"}], "title": "File Paths"},
                    "plot_type": {"default": "gantt", "title": "Plot Type", "type": "string"},
                    "output_dir": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Output Dir"},
                    "include": titled(strings(), "Include"),
                    "exclude": titled(strings(), "Exclude"),
                    "ranks": ranks(),
                    "backend": {"default": "matplotlib", "title": "Backend", "type": "string"},
                    "x_field": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "X Field"}
                },
                "required": ["file_paths"],
                "title": "plot_profileArguments",
                "type": "object"
            }
        }
    ])
}
