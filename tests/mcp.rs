//! `sp mcp`: driven over stdin and stdout as an MCP client drives it, its tools' results
//! equal, value for value (numbers within 1e-9 relative), what the reference's
//! `scope_profiler.mcp_server.tools` functions return for the same arguments on the golden
//! profiles (`tests/mcp/reference_tools.py`); its tools' input schemas are the reference
//! server's; the official MCP client SDK holds a session with it (`tests/mcp/client.py`);
//! and no malformed message ends it.

mod support;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use serde_json::{json, Value};

/// The golden profiles, as paths relative to the repository (so both sides name them the
/// same way in their results).
fn goldens() -> Vec<String> {
    let repo = support::repo();
    let mut files = Vec::new();
    for case in std::fs::read_dir(repo.join("tests/golden")).expect("golden dir") {
        let expected = case.expect("entry").path().join("expected");
        let Ok(entries) = std::fs::read_dir(&expected) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "h5") {
                let relative = path.strip_prefix(&repo).expect("under the repo");
                files.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    assert!(files.len() > 10, "golden profiles: {files:?}");
    files
}

/// Runs `sp mcp` in the repository over `input` (raw lines) and returns its reply lines,
/// checking that it exits 0 and writes nothing to stderr.
fn sp_mcp_raw(input: &[u8]) -> Vec<Value> {
    let mut child = support::sp()
        .arg("mcp")
        .current_dir(support::repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sp mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("sp mcp output");
    writer.join().expect("writer");
    assert!(out.status.success(), "{}", support::show(&out));
    assert!(out.stderr.is_empty(), "{}", support::show(&out));
    String::from_utf8(out.stdout)
        .expect("UTF-8 replies")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// `sp mcp` over one message per line.
fn sp_mcp(messages: &[Value]) -> Vec<Value> {
    let mut input = Vec::new();
    for m in messages {
        input.extend_from_slice(m.to_string().as_bytes());
        input.push(b'\n');
    }
    sp_mcp_raw(&input)
}

/// `sp mcp`'s outcome of each call: `{"ok": structuredContent}` or `{"error": text}`, as
/// the reference script gives them. Checks each reply's envelope on the way.
fn sp_tools(calls: &[Value]) -> Vec<Value> {
    let mut messages = vec![
        json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}}),
    ];
    messages.push(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (i, c) in calls.iter().enumerate() {
        messages.push(json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": c["tool"], "arguments": c["arguments"]}}));
    }
    let replies = sp_mcp(&messages);
    assert_eq!(replies.len(), calls.len() + 1, "one reply per request");
    assert_eq!(replies[0]["result"]["protocolVersion"], "2025-06-18");
    replies[1..]
        .iter()
        .enumerate()
        .map(|(i, reply)| {
            assert_eq!(reply["id"], json!(i), "{reply}");
            let result = &reply["result"];
            let text = result["content"][0]["text"].as_str().expect("text content");
            if result["isError"] == true {
                json!({ "error": text })
            } else {
                let parsed: Value = serde_json::from_str(text).expect("the text is the JSON");
                assert_eq!(
                    parsed, result["structuredContent"],
                    "text and structured content"
                );
                json!({ "ok": result["structuredContent"] })
            }
        })
        .collect()
}

/// The reference's outcome of each call.
fn reference_tools(calls: &[Value], name: &str) -> Vec<Value> {
    let dir = support::scratch_dir(name);
    let file = dir.join("calls.json");
    std::fs::write(&file, serde_json::to_vec(calls).unwrap()).unwrap();
    let script = support::repo().join("tests/mcp/reference_tools.py");
    let out = support::run_python(&support::repo(), [script.as_os_str(), file.as_os_str()]);
    serde_json::from_slice(&out.stdout).expect("reference JSON")
}

/// Asserts `ours` equals `theirs`: the same keys in the same order (serde_json keeps
/// the order of the text, as the reference's dicts keep theirs), the same strings,
/// numbers within 1e-9 relative.
fn assert_same(at: &str, ours: &Value, theirs: &Value) {
    match (ours, theirs) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            let scale = a.abs().max(b.abs());
            assert!(
                (a - b).abs() <= 1e-9 * scale,
                "{at}: sp {a:e}, reference {b:e}"
            );
        }
        (Value::Object(a), Value::Object(b)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(a), keys(b), "{at}: keys");
            for (k, v) in a {
                assert_same(&format!("{at}.{k}"), v, &b[k]);
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(
                a.len(),
                b.len(),
                "{at}: length\nsp {ours}\nreference {theirs}"
            );
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_same(&format!("{at}[{i}]"), x, y);
            }
        }
        _ => assert_eq!(ours, theirs, "{at}"),
    }
}

/// Asserts each call succeeded on both sides with the same result, or failed on both.
fn assert_outcomes(calls: &[Value], ours: &[Value], theirs: &[Value]) {
    assert_eq!(ours.len(), theirs.len());
    for ((call, o), t) in calls.iter().zip(ours).zip(theirs) {
        let at = call.to_string();
        match (&o["ok"], &t["ok"]) {
            (Value::Null, Value::Null) => {}
            (ours, theirs) => assert_same(&at, ours, theirs),
        }
        assert_eq!(
            o.get("error").is_some(),
            t.get("error").is_some(),
            "{at}: sp {o}\nreference {t}"
        );
    }
}

#[test]
fn inspect_and_compare_match_the_reference() {
    let files = goldens();
    let mut calls = Vec::new();
    for f in &files {
        calls.push(json!({"tool": "inspect_profile", "arguments": {"file_path": f}}));
    }
    let first = &files[0];
    let synthetic = "tests/golden/synthetic/expected/golden.h5";
    for args in [
        json!({"file_path": synthetic, "sort": "name", "top_n": null, "full_metadata": true}),
        json!({"file_path": synthetic, "sort": "start", "top_n": 2}),
        json!({"file_path": synthetic, "sort": "p95", "ranks": [1]}),
        json!({"file_path": synthetic, "include": ["s.*", "io"], "exclude": ["solve"]}),
        json!({"file_path": first, "sort": "imbalance", "full_metadata": true}),
        json!({"file_path": synthetic, "ranks": [99]}),
        json!({"file_path": synthetic, "include": ["nomatch"]}),
        // Failures: both sides refuse.
        json!({"file_path": synthetic, "sort": "bogus"}),
        json!({"file_path": synthetic, "top_n": 0}),
        json!({"file_path": "tests/golden/no/such.h5"}),
        json!({"file_path": "Cargo.toml"}),
    ] {
        calls.push(json!({"tool": "inspect_profile", "arguments": args}));
    }
    for pair in files.windows(2) {
        calls.push(json!({"tool": "compare_profiles",
            "arguments": {"baseline_path": pair[0], "candidate_path": pair[1]}}));
    }
    let (a, b) = (
        "tests/golden/merge_gzip/expected/merged.h5",
        "tests/golden/merge_zstd/expected/merged.h5",
    );
    for extra in [
        json!({"metric": "avg", "threshold_pct": 0, "top_n": null}),
        json!({"metric": "calls", "top_n": 1}),
        json!({"metric": "p95", "threshold_pct": 1.5}),
        json!({"metric": "max", "ranks": [0], "include": ["s.*"]}),
        json!({"metric": "imbalance", "top_n": null}),
        json!({"metric": "gpu_total"}),
        json!({"include": ["nomatch"]}),
        json!({"metric": "bogus"}),
    ] {
        let mut args = json!({"baseline_path": a, "candidate_path": b});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        calls.push(json!({"tool": "compare_profiles", "arguments": args}));
    }
    calls.push(json!({"tool": "compare_profiles",
        "arguments": {"baseline_path": synthetic, "candidate_path": synthetic}}));
    calls.push(json!({"tool": "compare_profiles",
        "arguments": {"baseline_path": synthetic, "candidate_path": "tests/golden/no/such.h5"}}));
    let ours = sp_tools(&calls);
    let theirs = reference_tools(&calls, "mcp-tools");
    assert_outcomes(&calls, &ours, &theirs);
}

#[test]
fn plots_match_the_reference() {
    let one = "tests/golden/synthetic/expected/golden.h5";
    let two = [
        "tests/golden/merge_gzip/expected/merged.h5",
        "tests/golden/h5_python_rich/expected/rich_import.h5",
    ];
    let scratch = support::scratch_dir("mcp-plots");
    let mut calls = Vec::new();
    for plot_type in [
        "gantt",
        "flame_chart",
        "flame",
        "flame_graph",
        "durations",
        "timeseries",
    ] {
        calls.push(json!({"plot_type": plot_type, "file_paths": one}));
    }
    calls.push(json!({"plot_type": "speedup", "file_paths": two}));
    calls.push(json!({"plot_type": "gantt", "file_paths": [one], "ranks": [0]}));
    calls.push(json!({"plot_type": "durations", "file_paths": [one], "ranks": [99]}));
    calls.push(json!({"plot_type": "speedup", "file_paths": [one, one]}));
    // Failures: both sides refuse.
    calls.push(json!({"plot_type": "speedup", "file_paths": one}));
    calls.push(json!({"plot_type": "pie", "file_paths": one}));
    calls.push(json!({"plot_type": "gantt", "file_paths": [], }));
    calls.push(json!({"plot_type": "gantt", "file_paths": one, "backend": "svg"}));
    calls.push(json!({"plot_type": "gantt", "file_paths": one, "x_field": "num_ranks"}));
    calls.push(json!({"plot_type": "gantt", "file_paths": "tests/golden/no/such.h5"}));
    calls.push(json!({"plot_type": "gantt", "file_paths": one, "include": ["nomatch"]}));
    calls.push(json!({"plot_type": "speedup", "file_paths": two, "x_field": "num_nodes"}));
    let with_dir = |side: &str| -> Vec<Value> {
        (calls.iter().enumerate())
            .map(|(i, args)| {
                let mut args = args.clone();
                let dir = scratch.join(side).join(i.to_string());
                args["output_dir"] = json!(dir.to_string_lossy());
                json!({"tool": "plot_profile", "arguments": args})
            })
            .collect()
    };
    let ours = sp_tools(&with_dir("sp"));
    let theirs = reference_tools(&with_dir("reference"), "mcp-plots-reference");
    assert_eq!(ours.len(), theirs.len());
    for ((call, o), t) in calls.iter().zip(&ours).zip(&theirs) {
        assert_eq!(
            o.get("error").is_some(),
            t.get("error").is_some(),
            "{call}: sp {o}\nreference {t}"
        );
        let (Value::Object(o), Value::Object(t)) = (&o["ok"], &t["ok"]) else {
            continue;
        };
        assert_eq!(
            (&o["plot_type"], &o["backend"]),
            (&t["plot_type"], &t["backend"])
        );
        let names = |paths: &Value| -> Vec<String> {
            let paths = paths.as_array().expect("paths");
            paths
                .iter()
                .map(|p| {
                    let p = Path::new(p.as_str().expect("a path"));
                    let bytes = std::fs::read(p).expect("the chart is written");
                    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{}", p.display());
                    let dir = p.parent().unwrap().file_name().unwrap();
                    format!(
                        "{}/{}",
                        dir.to_string_lossy(),
                        p.file_name().unwrap().to_string_lossy()
                    )
                })
                .collect()
        };
        assert_eq!(names(&o["paths"]), names(&t["paths"]), "{call}");
    }
    // The HTML backend: a page holding the SVG, in a new temporary directory.
    let html = sp_tools(&[json!({"tool": "plot_profile",
        "arguments": {"file_paths": [one], "plot_type": "flame_graph", "backend": "plotly"}})]);
    let path = html[0]["ok"]["paths"][0]
        .as_str()
        .expect("a path")
        .to_string();
    assert!(path.ends_with("/flame_graph_plot.html"), "{path}");
    let page = std::fs::read_to_string(&path).expect("the page");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg"));
    std::fs::remove_dir_all(Path::new(&path).parent().unwrap()).unwrap();
}

#[test]
fn json_profiles_match_the_reference() {
    let dir = support::scratch_dir("mcp-json");
    let h5 = support::repo().join("tests/golden/synthetic/expected/golden.h5");
    let export = ["-m", "scope_profiler", "export", "json"];
    let args = [h5.to_str().unwrap(), "-o", dir.to_str().unwrap()];
    support::run_python(&dir, export.iter().chain(&args));
    let json_file = dir.join("profile.json");
    let json_file = json_file.to_str().expect("a UTF-8 path");
    assert!(
        Path::new(json_file).exists(),
        "the reference wrote {json_file}"
    );
    let h5 = h5.to_str().unwrap();
    let calls = [
        json!({"tool": "inspect_profile", "arguments": {"file_path": json_file}}),
        json!({"tool": "inspect_profile",
            "arguments": {"file_path": json_file, "sort": "start", "full_metadata": true}}),
        json!({"tool": "compare_profiles",
            "arguments": {"baseline_path": h5, "candidate_path": json_file, "metric": "p99"}}),
    ];
    let ours = sp_tools(&calls);
    let theirs = reference_tools(&calls, "mcp-json-reference");
    assert_outcomes(&calls, &ours, &theirs);
    assert!(theirs.iter().all(|t| t.get("ok").is_some()), "{theirs:?}");
}

#[test]
fn input_schemas_are_the_reference_servers() {
    let script = support::repo().join("tests/mcp/reference_tools.py");
    let out = support::run_python(&support::repo(), [script.as_os_str(), "--schemas".as_ref()]);
    let theirs: Value = serde_json::from_slice(&out.stdout).expect("schemas");
    let replies = sp_mcp(&[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})]);
    let tools = replies[0]["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["inspect_profile", "compare_profiles", "plot_profile"]
    );
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(tool["inputSchema"], theirs[name], "{name}");
        assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
    }
}

#[test]
fn the_official_client_sdk_talks_to_it() {
    let script = support::repo().join("tests/mcp/client.py");
    let sp = support::sp().get_program().to_owned();
    let profile = "tests/golden/synthetic/expected/golden.h5";
    let out = support::run_python(
        &support::repo(),
        [script.as_os_str(), sp.as_os_str(), profile.as_ref()],
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("the client's JSON");
    let protocol = sp::mcp::protocol::PROTOCOL_VERSIONS.last().copied();
    assert_eq!(seen["server"], "sp");
    assert_eq!(seen["protocol"].as_str(), protocol, "{seen}");
    assert_eq!(
        seen["tools"],
        json!(["inspect_profile", "compare_profiles", "plot_profile"])
    );
    assert_eq!(seen["inspect"]["isError"], false, "{seen}");
    assert_eq!(
        seen["inspect"]["result"]["regions"]["returned"], 1,
        "{seen}"
    );
    assert_eq!(seen["missing"]["isError"], true, "{seen}");
    assert_eq!(seen["unknown_tool"], -32602, "{seen}");
    assert_eq!(seen["ping"], true);
}

#[test]
fn bad_messages_get_errors_and_the_server_goes_on() {
    let mut input = Vec::new();
    let lines: [&[u8]; 12] = [
        b"{not json",
        b"\xff\xfe binary",
        b"[1, 2]",
        br#"{"jsonrpc": "2.0", "id": 1, "method": "resources/list"}"#,
        br#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "rm_rf", "arguments": {}}}"#,
        br#"{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "inspect_profile", "arguments": {"file_path": "no/such.h5"}}}"#,
        br#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "inspect_profile", "arguments": {"file_path": 7, "ranks": [-1]}}}"#,
        br#"{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "inspect_profile", "arguments": {"file_path": "README.md"}}}"#,
        br#"{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": "x"}"#,
        br#"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}"#,
        b"",
        br#"{"jsonrpc": "2.0", "id": 7, "method": "ping"}"#,
    ];
    for line in lines {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    // A line far over the limit, then a request that must still be answered.
    input.extend(std::iter::repeat_n(b'x', sp::mcp::MAX_MESSAGE + 10));
    input.extend_from_slice(b"\n{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"ping\"}");
    let replies = sp_mcp_raw(&input);
    let code = |i: usize| replies[i]["error"]["code"].as_i64();
    assert_eq!(replies.len(), 12, "{replies:?}");
    assert_eq!(
        (code(0), code(1), code(2)),
        (Some(-32700), Some(-32700), Some(-32600))
    );
    assert_eq!(
        (replies[3]["id"].clone(), code(3)),
        (json!(1), Some(-32601))
    );
    assert_eq!(
        (replies[4]["id"].clone(), code(4)),
        (json!(2), Some(-32602))
    );
    for (i, id) in [(5, 3), (6, 4), (7, 5)] {
        assert_eq!(replies[i]["id"], id);
        assert_eq!(replies[i]["result"]["isError"], true, "{}", replies[i]);
    }
    let missing = replies[5]["result"]["content"][0]["text"].as_str().unwrap();
    assert!(missing.contains("no/such.h5"), "{missing}");
    assert_eq!(code(8), Some(-32602));
    assert_eq!(replies[9], json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
    assert_eq!(code(10), Some(-32700));
    assert_eq!(replies.last().map(|r| r["id"].clone()), Some(json!(8)));
}
