//! Text from a file on a terminal and in a pipe (`sp::text`): through a pseudo-terminal
//! every front end shows region names, labels and metadata with their control characters
//! escaped (no raw control sequence reaches the terminal, each name stays recognisable,
//! the columns stay aligned by display width); to a pipe the text equals the reference's,
//! byte for byte, on profiles whose names hold wide characters, emoji and control
//! sequences. The profiles are made by the reference (`tests/text/make_profiles.py`).

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Makes the test profiles in `dir`.
fn make_profiles(dir: &Path) {
    let script = support::repo().join("tests/text/make_profiles.py");
    support::run_ok(Command::new(support::python()).arg(script).arg(dir));
}

/// What a command wrote to its stdout and stderr, each a pseudo-terminal, and its status.
struct OnTerminal {
    status: i64,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Runs `sp ARGS` in `dir` with stdout and stderr on pseudo-terminals.
fn on_terminal(dir: &Path, args: &[&str]) -> OnTerminal {
    let helper = support::repo().join("tests/text/on_a_terminal.py");
    let sp = support::sp();
    let out = support::run_ok(
        Command::new(support::python())
            .current_dir(dir)
            .arg(helper)
            .arg(sp.get_program())
            .args(args),
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("helper JSON");
    OnTerminal {
        status: doc["status"].as_i64().expect("status"),
        stdout: hex(doc["stdout"].as_str().expect("stdout")),
        stderr: hex(doc["stderr"].as_str().expect("stderr")),
    }
}

/// The names of evil.h5 as an instrumented program passed them, and as a terminal shows
/// them.
const EVIL: [(&str, &str); 5] = [
    ("evil\x1b]0;PWNED\x07title", r"evil\x1b]0;PWNED\atitle"),
    ("clear\x1b[2Jscreen", r"clear\x1b[2Jscreen"),
    ("\x1b[31mred\x1b[0m", r"\x1b[31mred\x1b[0m"),
    ("bell\x07and\x08back", r"bell\aand\bback"),
    ("c1\u{9b}csi", r"c1\x9bcsi"),
];

/// Fails if `bytes` hold a control character other than a newline: ESC, BEL, BS, CR, …,
/// DEL, or a C1 control (U+0080–U+009F, encoded c2 80 – c2 9f).
fn assert_no_controls(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<(usize, char)> = text
        .char_indices()
        .filter(|(_, c)| *c != '\n' && (c.is_control()))
        .collect();
    assert!(bad.is_empty(), "{what}: raw controls {bad:?} in\n{text}");
}

/// Every line of a boxed table (`  │ … │`, `  ╭…╮`) in `text` is as wide on screen as the
/// first.
fn assert_boxes_aligned(what: &str, text: &str) {
    let lines: Vec<&str> = text
        .lines()
        .take_while(|l| !l.contains("╭─ Info"))
        .filter(|l| l.starts_with("  │") || l.starts_with("  ╭") || l.starts_with("  ╰"))
        .collect();
    assert!(lines.len() >= 4, "{what}: no table in\n{text}");
    let width = sp::text::width(lines[0]);
    for line in &lines {
        assert_eq!(
            sp::text::width(line),
            width,
            "{what}: misaligned {line:?} in\n{text}"
        );
    }
}

#[test]
fn names_reach_a_terminal_escaped_and_aligned() {
    let dir = support::scratch_dir("terminal-text");
    make_profiles(&dir);
    let commands: [&[&str]; 7] = [
        &["inspect", "evil.h5"],
        &["inspect", "evil.h5", "--flat"],
        &["diff", "evil.h5", "evil_b.h5"],
        &["check", "evil.h5", "evil_b.h5"],
        &["convert", "evil.h5", "-o", "converted.h5"],
        &["ls", "evil.h5", "--data"],
        &["inspect", "wide.h5"],
    ];
    for args in commands {
        let run = on_terminal(&dir, args);
        let what = args.join(" ");
        assert!(matches!(run.status, 0 | 1), "{what}: status {}", run.status);
        assert_no_controls(&what, &run.stdout);
        assert_no_controls(&what, &run.stderr);
        let text = String::from_utf8(run.stdout).expect("UTF-8");
        if args.contains(&"wide.h5") {
            for name in [
                "日本語の領域",
                "io 🚀 checkpoint",
                "👩\u{200d}💻 dev",
                "한국어",
            ] {
                assert!(text.contains(name), "{what}: {name} missing in\n{text}");
            }
        } else {
            for (_, shown) in EVIL {
                assert!(text.contains(shown), "{what}: {shown} missing in\n{text}");
            }
        }
        if args[0] != "convert" && args[0] != "ls" {
            assert_boxes_aligned(&what, &text);
        }
    }
    // The label and a metadata value are from the file too.
    let run = on_terminal(&dir, &["inspect", "evil.h5", "--metadata-only"]);
    let text = String::from_utf8(run.stdout).expect("UTF-8");
    assert!(text.contains(r"evil\x1b[2J - evil.h5"), "{text}");
    assert!(text.contains(r": title\x1b]0;PWNED\a"), "{text}");
    // An error message quoting a name: the file name holds CSI 2 J.
    let run = on_terminal(&dir, &["inspect", "no\x1b[2Jsuch.h5"]);
    assert_eq!(run.status, 1);
    assert_no_controls("error", &run.stderr);
    let err = String::from_utf8(run.stderr).expect("UTF-8");
    assert!(
        err.starts_with(r"sp: no\x1b[2Jsuch.h5: cannot open: "),
        "{err}"
    );
    // JSON keeps its own quoting: the names decode to what the program passed.
    let run = on_terminal(&dir, &["inspect", "evil.h5", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let names: Vec<&str> = doc["files"][0]["regions"]
        .as_array()
        .expect("regions")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    for (raw, _) in EVIL {
        assert!(names.contains(&raw), "{raw:?} not in {names:?}");
    }
}

/// `sp inspect`'s text up to the end of the region table (the Info box below it names
/// sp's own commands where the reference names its own).
fn up_to_the_table_end(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        out.push_str(line);
        if line.starts_with("  ╰") {
            break;
        }
    }
    out
}

#[test]
fn piped_text_equals_the_reference() {
    let dir = support::scratch_dir("piped-text");
    make_profiles(&dir);
    let reference = |args: &[&str]| {
        let mut cmd = Command::new(support::python());
        cmd.current_dir(&*dir)
            .args(["-m", "scope_profiler"])
            .args(args);
        cmd.output().expect("reference")
    };
    let ours = |args: &[&str]| {
        support::sp()
            .current_dir(&*dir)
            .env("COLUMNS", "200")
            .args(args)
            .output()
            .expect("sp")
    };
    // foreign.h5's metadata holds an f32, which Python prints in its own precision.
    for args in [
        &["inspect", "wide.h5"][..],
        &["inspect", "evil.h5"],
        &["inspect", "foreign.h5", "--regions-only"],
    ] {
        let file = args[1];
        let expected = reference(args);
        let got = ours(args);
        let (expected, got) = (
            String::from_utf8_lossy(&expected.stdout),
            String::from_utf8_lossy(&got.stdout),
        );
        assert!(
            expected.contains("  ╰"),
            "{file}: reference printed\n{expected}"
        );
        assert_eq!(
            up_to_the_table_end(&got),
            up_to_the_table_end(&expected),
            "{file}"
        );
    }
    for command in ["diff", "check"] {
        for (a, b) in [("evil.h5", "evil_b.h5"), ("wide.h5", "foreign.h5")] {
            let expected = reference(&[command, a, b]);
            let got = ours(&[command, a, b]);
            assert_eq!(
                got.status.code(),
                expected.status.code(),
                "{command} {a} {b}"
            );
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&expected.stdout),
                "{command} {a} {b}"
            );
        }
    }
}
