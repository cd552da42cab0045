//! Region patterns against Python's `re.match` (`tests/text/re_match.py`, the test venv's
//! Python): each pattern of a table, on a list of region names, matches the same names, or
//! both refuse it; the constructs sp refuses while Python takes them are exactly the ones
//! `docs/text.md` names, and the known differences (ASCII `\w`, `\b` and case folding) are
//! pinned here so a change in them shows.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use sp::analysis::pattern::Pattern;

const NAMES: [&str; 16] = [
    "phase01_kernel00",
    "phase02_kernel02",
    "phase04_kernel00",
    "phase05_kernel02",
    "PHASE01_kernel01",
    "solve",
    "solver_x",
    "my_solve",
    "io.write",
    "io write",
    "a{x}",
    "tab\there",
    "end\n",
    "日本語の領域",
    "io 🚀 checkpoint",
    "",
];

/// Patterns both accept, and on which they agree name for name.
const AGREE: [&str; 44] = [
    "phase0[0-2]_kernel0{2}",
    "(?i)PHASE01",
    "phase0[3-5].*?0$",
    r"\bphase02\b",
    "(?P<p>phase)0[15]_kernel0(?:0|2)",
    "solve",
    "solve$",
    r"solve\Z",
    ".*solve",
    "s.l",
    "(io|comm)[._ ]",
    r"io\.write",
    r"io\ write",
    "[a-c]+_",
    "[^a-z]",
    r"\d",
    r"\w+_kernel\d\d$",
    r"\s",
    r"\S+$",
    r".*\t",
    "end$",
    r"end\n\Z",
    "a{x}",
    "a{,2}",
    "phase0{1,}",
    "ph(?:a|e)se",
    "x*y+z?",
    "(?s)end.",
    "(?x) p h a s e  # spaced out",
    "(?i:ph)ASE",
    "a(?#comment)",
    r"[\d_]+",
    r"\x69o",
    r"\u0069o",
    r"\151o",
    "日本",
    "io 🚀",
    ".{3}の",
    "^so",
    "[[]",
    "$",
    "",
    "(((phase)))",
    "phase0[1-2]|solve",
];

/// Patterns Python refuses; sp must refuse them too.
const BOTH_REFUSE: [&str; 16] = [
    "(a", "a)", "*a", "a**", "[a", r"\p{L}", r"\z", r"\k<x>", "a{3,1}", "a(?i)b", "(?<n>a)",
    "(?L)a", r"\x6", "?", "(?Q)", "[b-a]",
];

/// Patterns Python takes and sp refuses, each with the construct its error names.
const SP_REFUSES: [(&str, &str); 9] = [
    (r"phase(?!01)\d+_kernel00", "lookahead"),
    ("phase(?=0)", "lookahead"),
    ("(?<=a)b", "lookbehind"),
    (r"(a)\1", "backreferences"),
    ("(?P<x>a)(?P=x)", "backreferences"),
    ("(?>a)", "atomic groups"),
    ("a*+", "possessive"),
    (r"\N{DIGIT ONE}", "named Unicode escapes"),
    ("(?a)a", "ASCII flag"),
];

/// Patterns both take on which they differ, with the names where they differ: Python's
/// classes, boundaries and case folding are Unicode, sp's ASCII.
const DIFFER: [(&str, &[&str]); 3] = [
    (r"\w+$", &["日本語の領域"]),
    (r"\w\w\w\w", &["日本語の領域"]),
    (r"io \W\W checkpoint", &[]),
];

fn python(patterns: &[&str]) -> Vec<Value> {
    let script = support::repo().join("tests/text/re_match.py");
    let mut child = Command::new(support::python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python");
    let table = json!({"patterns": patterns, "names": NAMES});
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(table.to_string().as_bytes())
        .expect("write table");
    let out = child.wait_with_output().expect("python output");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&out.stdout).expect("JSON")
}

fn ours(pattern: &Pattern) -> Vec<bool> {
    NAMES.iter().map(|n| pattern.matches(n)).collect()
}

fn python_matches(v: &Value) -> Vec<bool> {
    v["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("Python refused: {}", v["error"]))
        .iter()
        .map(|b| b.as_bool().expect("bool"))
        .collect()
}

#[test]
fn patterns_match_as_python_re_match_does() {
    for (pattern, reference) in AGREE.iter().zip(python(&AGREE)) {
        let compiled = Pattern::new(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
        assert_eq!(ours(&compiled), python_matches(&reference), "{pattern:?}");
    }
}

#[test]
fn patterns_python_refuses_are_refused() {
    for (pattern, reference) in BOTH_REFUSE.iter().zip(python(&BOTH_REFUSE)) {
        assert!(reference["error"].is_string(), "Python took {pattern:?}");
        assert!(Pattern::new(pattern).is_err(), "sp took {pattern:?}");
    }
}

#[test]
fn what_sp_refuses_or_reads_otherwise_is_what_the_docs_name() {
    let patterns: Vec<&str> = SP_REFUSES.iter().map(|p| p.0).collect();
    for ((pattern, construct), reference) in SP_REFUSES.iter().zip(python(&patterns)) {
        assert!(reference["error"].is_null(), "Python refused {pattern:?}");
        let error = Pattern::new(pattern).expect_err(pattern).to_string();
        assert!(
            error.contains(construct) && error.contains("not supported"),
            "{pattern:?}: {error}"
        );
    }
    let patterns: Vec<&str> = DIFFER.iter().map(|p| p.0).collect();
    for ((pattern, differ), reference) in DIFFER.iter().zip(python(&patterns)) {
        let theirs = python_matches(&reference);
        let mine = ours(&Pattern::new(pattern).expect(pattern));
        let differing: Vec<&str> = NAMES
            .iter()
            .zip(theirs.iter().zip(&mine))
            .filter(|(_, (a, b))| a != b)
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(differing, *differ, "{pattern:?}");
    }
}

/// A bad pattern is a usage error (exit 2) naming the pattern and the reason.
#[test]
fn a_bad_pattern_is_a_usage_error() {
    let file = support::repo().join("tests/golden/synthetic/expected/golden.h5");
    let out = support::sp()
        .arg("inspect")
        .arg(&file)
        .args(["--include", "phase(?!01)"])
        .output()
        .expect("sp");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sp: pattern \"phase(?!01)\": lookahead assertions (?=…) and (?!…) are not supported \
         at position 5\n"
    );
}
