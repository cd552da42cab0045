//! Byte-annotated tests of the `.sps` reader.

use super::*;

/// A little-endian file, field by field: one region "a", one module "./x" at 0x1000, two
/// samples.
fn little() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(b"SCOPESMP"); // magic
    b.extend_from_slice(&[1, 0, 0, 0]); // version 1
    b.extend_from_slice(&[2, 0, 0, 0]); // rank 2
    b.extend_from_slice(&[0xe8, 0x03, 0, 0]); // 1000 Hz
    b.extend_from_slice(&[5, 0, 0, 0, 0, 0, 0, 0]); // 5 ticks
    b.extend_from_slice(&[1, 0, 0, 0]); // 1 region
    b.extend_from_slice(&[1, 0, 0, 0, b'a']); // "a"
    b.extend_from_slice(&[1, 0, 0, 0]); // 1 module
    b.extend_from_slice(&[3, 0, 0, 0, b'.', b'/', b'x']); // "./x"
    b.extend_from_slice(&[0, 0x10, 0, 0, 0, 0, 0, 0]); // loaded at 0x1000
    b.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]); // 2 samples
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]); // region 0, module 0
    b.extend_from_slice(&[0x34, 0x12, 0, 0, 0, 0, 0, 0]); // at 0x1234
    b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]); // region -1
    b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]); // module -1
    b.extend_from_slice(&[0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0]); // at 0xdeadbeef
    b
}

fn expected() -> SampleFile {
    SampleFile {
        rank: 2,
        hz: 1000,
        ticks: 5,
        regions: vec!["a".into()],
        modules: vec![Module {
            path: "./x".into(),
            base: 0x1000,
        }],
        samples: vec![
            Sample {
                region: 0,
                module: 0,
                address: 0x1234,
            },
            Sample {
                region: -1,
                module: -1,
                address: 0xdead_beef,
            },
        ],
    }
}

#[test]
fn reads_annotated_little_endian() {
    let bytes = little();
    assert_eq!(bytes.len(), 96);
    let view = parse(&bytes).unwrap();
    assert_eq!(view.endian, Endian::Little);
    assert!(
        matches!(view.regions[0], Cow::Borrowed("a")),
        "names are borrowed"
    );
    assert_eq!(view.samples.len(), 2);
    assert_eq!(view.to_owned(), expected());
    assert_eq!(encode(&expected(), Endian::Little), bytes);
}

#[test]
fn reads_annotated_big_endian() {
    let mut b = Vec::new();
    b.extend_from_slice(b"SCOPESMP");
    b.extend_from_slice(&[0, 0, 0, 1]); // version 1, big-endian
    b.extend_from_slice(&[0, 0, 0, 2]); // rank 2
    b.extend_from_slice(&[0, 0, 0x03, 0xe8]); // 1000 Hz
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 5]); // 5 ticks
    b.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1, b'a']); // 1 region: "a"
    b.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 3, b'.', b'/', b'x']); // 1 module: "./x"
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0x10, 0]); // loaded at 0x1000
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 2]); // 2 samples
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34]);
    b.extend_from_slice(&[0xff; 8]); // region -1, module -1
    b.extend_from_slice(&[0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef]);
    let view = parse(&b).unwrap();
    assert_eq!(view.endian, Endian::Big);
    assert_eq!(view.to_owned(), expected());
    assert_eq!(encode(&expected(), Endian::Big), b);
}

fn kind(bytes: &[u8]) -> (SampleErrorKind, u64) {
    let e = parse(bytes).unwrap_err();
    (e.kind().clone(), e.offset())
}

#[test]
fn rejects_magic_and_version() {
    let mut b = little();
    b[0] = b'X';
    assert_eq!(kind(&b), (SampleErrorKind::BadMagic, 0));
    assert_eq!(kind(b"SCOPE").0, SampleErrorKind::BadMagic);
    let mut b = little();
    b[8] = 2; // version 2
    assert_eq!(kind(&b), (SampleErrorKind::UnsupportedVersion(2), 8));
    let e = parse(&b).unwrap_err();
    assert_eq!(e.class(), SampleErrorClass::Unsupported);
    assert_eq!(
        e.to_string(),
        "unsupported sample format version 2 (sp reads version 1)"
    );
}

#[test]
fn every_truncation_is_an_error_naming_the_field() {
    let b = little();
    for len in 0..b.len() {
        let e = parse(&b[..len]).unwrap_err();
        assert_eq!(e.class(), SampleErrorClass::Malformed, "at {len}");
    }
    // Cut before the region name: "a" needs 1 byte at offset 36.
    let e = parse(&b[..36]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "truncated sample file: region name #0 at byte 36 needs 1 bytes, 0 remain"
    );
}

#[test]
fn counts_are_checked_before_allocating() {
    let mut b = little();
    b[28..32].copy_from_slice(&1000i32.to_le_bytes()); // 1000 regions
    assert_eq!(
        kind(&b),
        (
            SampleErrorKind::CountTooLarge {
                field: SampleField::RegionCount,
                count: 1000,
                available: 64,
            },
            28
        )
    );
    b[28..32].copy_from_slice(&(-1i32).to_le_bytes());
    assert_eq!(
        kind(&b).0,
        SampleErrorKind::Negative {
            field: SampleField::RegionCount,
            value: -1
        }
    );
    let mut b = little();
    b[56..64].copy_from_slice(&(1u64 << 40).to_le_bytes()); // samples
    assert_eq!(
        kind(&b).0,
        SampleErrorKind::OverLimit {
            field: SampleField::SampleCount,
            value: 1 << 40,
            limit: 1 << 32
        }
    );
    b[56..64].copy_from_slice(&3u64.to_le_bytes());
    assert!(matches!(
        kind(&b).0,
        SampleErrorKind::CountTooLarge {
            field: SampleField::SampleCount,
            ..
        }
    ));
    let mut b = little();
    b.push(0);
    assert_eq!(kind(&b), (SampleErrorKind::TrailingBytes(1), 96));
}

#[test]
fn invalid_utf8_is_replaced_as_the_reference_decodes() {
    let mut b = little();
    b[36] = 0xff; // the region name "a"
    let view = parse(&b).unwrap();
    assert_eq!(view.regions[0], "\u{fffd}");
}
