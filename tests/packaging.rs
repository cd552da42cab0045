//! The site packages in `packaging/`: the EasyBuild easyconfig and the Spack package parse
//! as Python (with the reference's interpreter, `$SP_PYTHON`), carry Cargo.toml's version,
//! and install every file the release archive holds — the list `scripts/release.sh --files`
//! prints, which is what its `stage` writes and checks — each to a place of its own.

mod support;

use std::collections::BTreeMap;

use serde_json::Value;
use support::{repo, run_ok, run_python};

/// Reads both files with Python's `ast` (and runs the easyconfig, as EasyBuild does, for
/// its computed `install_cmd`), printing what the test checks as one JSON document.
const READ: &str = r#"
import ast, json, sys
eb_path, spack_path = sys.argv[1], sys.argv[2]

eb_text = open(eb_path).read()
eb = {}
for node in ast.parse(eb_text, eb_path).body:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        try:
            eb[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError:
            pass
space = {"SYSTEM": {"name": "system", "version": "system"}}
exec(compile(eb_text, eb_path, "exec"), space)
eb["install_cmd"] = space["install_cmd"]
eb["toolchain"] = space["toolchain"]

spack_text = open(spack_path).read()
(cls,) = [n for n in ast.parse(spack_text, spack_path).body if isinstance(n, ast.ClassDef)]
spack = {"class": cls.name, "bases": [ast.unparse(b) for b in cls.bases], "versions": []}
for node in cls.body:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        if isinstance(call.func, ast.Name) and call.func.id == "version":
            spack["versions"].append(ast.literal_eval(call.args[0]))
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        name = node.targets[0].id
        if name == "archive_files":
            spack[name] = ast.literal_eval(node.value)
        if name == "url":
            spack[name] = ast.unparse(node.value)
    if isinstance(node, ast.FunctionDef):
        spack.setdefault("methods", []).append(node.name)
print(json.dumps({"eb": eb, "spack": spack}))
"#;

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn map(v: &Value) -> BTreeMap<String, String> {
    (v.as_object().unwrap().iter())
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn easyconfig_and_spack_package_install_the_release_archive() {
    let version = env!("CARGO_PKG_VERSION");
    let eb_path = repo().join(format!("packaging/easybuild/sp-{version}.eb"));
    let spack_path = repo().join("packaging/spack/package.py");
    assert!(
        eb_path.is_file(),
        "no easyconfig for {version}: {eb_path:?}"
    );
    let out = run_python(
        &repo(),
        ["-c", READ].iter().map(|s| s.to_string()).chain([
            eb_path.display().to_string(),
            spack_path.display().to_string(),
        ]),
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (eb, spack) = (&doc["eb"], &doc["spack"]);

    // The version, and the archives named as scripts/release.sh names them.
    assert_eq!(eb["name"], "sp");
    assert_eq!(eb["version"], version);
    assert_eq!(eb["easyblock"], "Binary");
    assert_eq!(eb["toolchain"]["name"], "system");
    assert_eq!(
        strings(&eb["sources"]),
        ["sp-%(version)s-%(arch)s-linux-musl.tar.gz"]
    );
    let sums = eb["checksums"][0].as_object().unwrap();
    // The easyconfig's dict order is not meaningful: compared sorted.
    let mut archives: Vec<&String> = sums.keys().collect();
    archives.sort();
    assert_eq!(
        archives,
        [
            "sp-%(version)s-aarch64-linux-musl.tar.gz",
            "sp-%(version)s-x86_64-linux-musl.tar.gz"
        ]
    );
    assert_eq!(spack["class"], "Sp");
    assert_eq!(strings(&spack["bases"]), ["Package"]);
    assert_eq!(strings(&spack["versions"]), [version]);
    let url = spack["url"].as_str().unwrap();
    assert!(
        url.contains(&format!("sp-{version}-{{1}}-linux-musl.tar.gz")),
        "{url}"
    );
    let methods = strings(&spack["methods"]);
    assert!(methods.contains(&"install".to_owned()), "{methods:?}");
    // scripts/release.sh --pack fills in the checksums of both archives.
    let release = std::fs::read_to_string(repo().join("scripts/release.sh")).unwrap();
    let spack_text = std::fs::read_to_string(&spack_path).unwrap();
    for arch in ["x86_64", "aarch64"] {
        let mark = format!("@SHA256_{arch}@");
        assert!(spack_text.contains(&mark), "package.py lacks {mark}");
        assert!(
            sums.values().any(|v| v == &Value::String(mark.clone())),
            "{mark}"
        );
    }
    assert!(release.contains("s/@SHA256_${target%%-*}@/"));

    // The same places in both, each file of the archive installed, nothing else named.
    let places = map(&eb["local_files"]);
    assert_eq!(places, map(&spack["archive_files"]));
    let sp_bin = support::sp().get_program().to_owned();
    let listed = run_ok(
        std::process::Command::new("bash")
            .arg(repo().join("scripts/release.sh"))
            .arg("--files")
            .arg(&sp_bin),
    );
    let archive: Vec<String> = String::from_utf8(listed.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(
        archive.contains(&"man/man1/sp-convert.1".to_owned()),
        "{archive:?}"
    );
    let covers = |src: &str, file: &str| file == src || file.starts_with(&format!("{src}/"));
    for file in &archive {
        let n = places.keys().filter(|src| covers(src, file)).count();
        assert_eq!(n, 1, "{file} of the archive is installed by {n} entries");
    }
    for src in places.keys() {
        assert!(
            archive.iter().any(|f| covers(src, f)),
            "{src} is not in the archive"
        );
    }
    let mut targets: Vec<&String> = places.values().collect();
    targets.sort();
    targets.dedup();
    assert_eq!(targets.len(), places.len(), "two files to one place");
    let install = eb["install_cmd"].as_str().unwrap();
    for (src, dst) in &places {
        assert!(install.contains(&format!(" {src}")), "{src}: {install}");
        assert!(
            install.contains(&format!("%(installdir)s/{dst}")),
            "{dst}: {install}"
        );
    }
    for file in strings(&eb["sanity_check_paths"]["files"]) {
        let installed = places.values().any(|dst| covers(dst, &file));
        assert!(installed, "sanity check {file} is not installed");
    }
}
