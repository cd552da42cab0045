//! `sp convert` on a profile to which another tool (h5py) added `/metadata` attributes of
//! types the reference never writes: the object and region references are left out with a
//! warning naming each and why; every other attribute is carried with its datatype, shape
//! and value (`tests/text/foreign_check.py`, through h5py); the rest of the profile
//! converts exactly as the same profile without those attributes does.

mod support;

use std::process::Command;

#[test]
fn references_are_left_out_with_a_warning_and_the_rest_is_carried() {
    let dir = support::scratch_dir("foreign-metadata");
    let script = support::repo().join("tests/text/make_profiles.py");
    support::run_ok(Command::new(support::python()).arg(script).arg(&*dir));
    // The same profile without the added attributes.
    support::run_python(
        &dir,
        [
            "-c",
            "import h5py, shutil\n\
             shutil.copy('foreign.h5', 'plain.h5')\n\
             with h5py.File('plain.h5', 'a') as f:\n\
             \x20   for k in ['object_ref', 'region_ref', 'int16s', 'float32', 'fixed_bytes',\n\
             \x20             'enum', 'compound']:\n\
             \x20       del f['metadata'].attrs[k]\n",
        ],
    );
    let out = support::run_ok(support::sp().current_dir(&*dir).args([
        "convert",
        "foreign.h5",
        "-o",
        "converted.h5",
    ]));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "sp: warning: /metadata attribute \"object_ref\" is left out: it holds an object \
         reference, an address in the file it came from that cannot point into the new one\n\
         sp: warning: /metadata attribute \"region_ref\" is left out: it holds a region \
         reference, an address in the file it came from that cannot point into the new one\n"
    );
    let check = support::repo().join("tests/text/foreign_check.py");
    let checked = Command::new(support::python())
        .current_dir(&*dir)
        .arg(check)
        .args(["foreign.h5", "converted.h5"])
        .output()
        .expect("foreign_check.py");
    assert!(checked.status.success(), "{}", support::show(&checked));
    // Otherwise the same content as the plain profile converted, once the carried
    // attributes are taken out again.
    support::sp_convert(&dir, &["plain.h5", "-o", "plain_converted.h5"]);
    support::run_python(
        &dir,
        [
            "-c",
            "import h5py\n\
             with h5py.File('converted.h5', 'a') as f:\n\
             \x20   for k in ['int16s', 'float32', 'fixed_bytes', 'enum', 'compound']:\n\
             \x20       del f['metadata'].attrs[k]\n\
             \x20   f['metadata'].attrs['label'] = 'plain_converted'\n",
        ],
    );
    support::assert_same_content(&dir.join("converted.h5"), &dir.join("plain_converted.h5"));
}
