//! Metadata values as the reference's analysis sees them: h5py decodes each attribute into a
//! Python value (`int`, `float`, `bool`, `str`, or a list of them), which is what `inspect`
//! prints, JSON carries and `_metadata_time` converts. Here that view is derived from the
//! schema's [`MetaValue`], the one metadata model.

use crate::hdf5lite::reader::Value;
use crate::schema::{MetaValue, Metadata, Profile};

/// A metadata value as Python holds it after h5py decoded it.
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    List(Vec<PyValue>),
}

impl PyValue {
    /// The Python value of a stored metadata value.
    pub fn of(value: &MetaValue) -> PyValue {
        match value {
            MetaValue::Str(s) => PyValue::Str(s.clone()),
            MetaValue::Int(i) => PyValue::Int(*i),
            MetaValue::Float(f) => PyValue::Float(*f),
            MetaValue::Bool(b) => PyValue::Bool(*b),
            MetaValue::StrList(items) => {
                PyValue::List(items.iter().cloned().map(PyValue::Str).collect())
            }
            MetaValue::Typed(_, shape, _) => {
                let elements = value.typed_elements().unwrap_or_default();
                match (shape, elements.as_slice()) {
                    (crate::hdf5lite::Shape::Scalar, [one]) => Self::decoded(one.clone()),
                    _ => PyValue::List(elements.into_iter().map(Self::decoded).collect()),
                }
            }
            MetaValue::Unsupported(_, value) | MetaValue::Foreign { value, .. } => {
                Self::decoded(value.clone())
            }
        }
    }

    /// An HDF5 value as h5py and Python's `str`/`int` see it.
    fn decoded(value: Value) -> PyValue {
        match value {
            Value::Int(i) => i64::try_from(i).map_or(PyValue::Float(i as f64), PyValue::Int),
            Value::Float(f) => PyValue::Float(f),
            Value::String(s) => PyValue::Str(s),
            Value::Bytes(b) => PyValue::Str(String::from_utf8_lossy(&b).into_owned()),
            Value::Enum { name, value } => match name.as_deref() {
                Some("TRUE") => PyValue::Bool(true),
                Some("FALSE") => PyValue::Bool(false),
                _ => PyValue::Int(i64::try_from(value).unwrap_or(0)),
            },
            // numpy's `np.void` prints as a tuple of its members' reprs.
            Value::Compound(members) => {
                let items: Vec<String> = members
                    .into_iter()
                    .map(|(_, v)| Self::decoded(v).repr())
                    .collect();
                let comma = if items.len() == 1 { "," } else { "" };
                PyValue::Str(format!("({}{comma})", items.join(", ")))
            }
            Value::Array(items) => PyValue::List(items.into_iter().map(Self::decoded).collect()),
            // h5py's `Reference` and `RegionReference` objects.
            Value::Reference(r) => PyValue::Str(
                match r {
                    crate::hdf5lite::reader::Reference::Object { .. } => "<HDF5 object reference>",
                    _ => "<HDF5 region reference>",
                }
                .into(),
            ),
        }
    }

    /// The value as Python's `str()` prints it (close enough for display).
    pub fn text(&self) -> String {
        match self {
            PyValue::Int(i) => i.to_string(),
            PyValue::Float(f) => python_float(*f),
            PyValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            PyValue::Str(s) => s.clone(),
            PyValue::List(items) => {
                let inner: Vec<String> = items.iter().map(PyValue::repr).collect();
                format!("[{}]", inner.join(", "))
            }
        }
    }

    /// The value as an item of a printed list or tuple: a string in quotes.
    fn repr(&self) -> String {
        match self {
            PyValue::Str(s) => format!("'{s}'"),
            other => other.text(),
        }
    }

    /// The value in seconds, for a `*_time_ns` field (`_metadata_time`).
    pub fn seconds(&self) -> Option<f64> {
        match self {
            PyValue::Int(v) => Some(*v as f64 / 1e9),
            PyValue::Float(v) => Some(v / 1e9),
            PyValue::Bool(b) => Some(f64::from(u8::from(*b)) / 1e9),
            PyValue::Str(s) => s.trim().parse::<f64>().ok().map(|v| v / 1e9),
            PyValue::List(_) => None,
        }
    }
}

/// Python's `repr` of a float for ordinary magnitudes.
pub fn python_float(f: f64) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e16 {
        format!("{f:.1}")
    } else {
        format!("{f}")
    }
}

/// A `*_time_ns` metadata field of `profile` in seconds (`_metadata_time`).
pub fn meta_seconds(profile: &Profile, key: &str) -> Option<f64> {
    PyValue::of(profile.meta(key)?).seconds()
}

/// The run's label, if it has a non-empty one.
pub fn label(profile: &Profile) -> Option<String> {
    match PyValue::of(profile.meta("label")?) {
        PyValue::Str(s) if s.is_empty() => None,
        other => Some(other.text()),
    }
}

/// A run's metadata split into the reference's titled sections
/// (`inspection._metadata_sections`): every key in exactly one of Run, System and
/// Parallelism (known fields, in their order), Slurm, Environment (upper-case keys) and
/// Other (both sorted), and the `modules` list apart. `inspect` prints them and the MCP
/// tools return them.
#[derive(Debug, Clone, PartialEq)]
pub struct Sections<'a> {
    pub sections: Vec<(&'static str, Vec<(&'a str, &'a MetaValue)>)>,
    pub modules: Option<&'a MetaValue>,
}

impl<'a> Sections<'a> {
    /// The sections of `md`.
    pub fn of(md: &'a Metadata) -> Sections<'a> {
        const RUN: [&str; 8] = [
            "timestamp",
            "start_time_ns",
            "finalize_time_ns",
            "user",
            "hostname",
            "working_directory",
            "scope_profiler_version",
            "python_version",
        ];
        const SYSTEM: [&str; 3] = ["platform", "uname", "chip_information"];
        const PARALLEL: [&str; 4] = ["mpi_size", "num_nodes", "omp_num_threads", "total_cores"];
        let mut taken: Vec<&str> = vec!["modules"];
        let mut sections = Vec::new();
        for (title, keys) in [
            ("Run", &RUN[..]),
            ("System", &SYSTEM[..]),
            ("Parallelism", &PARALLEL[..]),
        ] {
            let entries: Vec<(&str, &MetaValue)> = keys
                .iter()
                .filter_map(|k| md.get_key_value(*k).map(|(n, v)| (n.as_str(), v)))
                .collect();
            taken.extend(entries.iter().map(|e| e.0));
            sections.push((title, entries));
        }
        let slurm = |k: &str| k.starts_with("SLURM_") || k.starts_with("SLURMD_");
        // BTreeMap order is code-point order, as Python's `sorted` orders strings.
        let rest = || {
            md.iter()
                .filter(|(k, _)| !taken.contains(&k.as_str()))
                .map(|(k, v)| (k.as_str(), v))
        };
        let in_slurm: Vec<_> = rest().filter(|(k, _)| slurm(k)).collect();
        let env: Vec<_> = rest().filter(|(k, _)| !slurm(k) && is_upper(k)).collect();
        let other: Vec<_> = rest().filter(|(k, _)| !slurm(k) && !is_upper(k)).collect();
        sections.push(("Slurm", in_slurm));
        sections.push(("Environment", env));
        sections.push(("Other", other));
        Sections {
            sections,
            modules: md.get("modules"),
        }
    }
}

/// Python's `str.isupper`: some cased character, and none lower-case.
fn is_upper(k: &str) -> bool {
    k.chars().any(char::is_uppercase) && !k.chars().any(char::is_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdf5lite::{ByteOrder, Data, Datatype, Shape};

    #[test]
    fn values_print_as_python_does() {
        assert_eq!(PyValue::of(&MetaValue::Float(2.0)).text(), "2.0");
        assert_eq!(PyValue::of(&MetaValue::Bool(false)).text(), "False");
        let list = MetaValue::StrList(vec!["a".into(), "b".into()]);
        assert_eq!(PyValue::of(&list).text(), "['a', 'b']");
        let ints = MetaValue::Typed(
            Datatype::Integer {
                size: 2,
                signed: false,
                order: ByteOrder::Little,
            },
            Shape::vector(2),
            Data::Fixed(vec![1, 0, 2, 0]),
        );
        assert_eq!(PyValue::of(&ints).text(), "[1, 2]");
        let huge = MetaValue::Typed(Datatype::U64, Shape::Scalar, Data::u64s(&[u64::MAX]));
        assert_eq!(PyValue::of(&huge), PyValue::Float(u64::MAX as f64));
        let odd = MetaValue::Unsupported(
            Datatype::I8,
            Value::Enum {
                name: Some("TRUE".into()),
                value: 1,
            },
        );
        assert_eq!(PyValue::of(&odd), PyValue::Bool(true));
        // str() of h5py's values: a compound's np.void, an object reference.
        let pair = Value::Compound(vec![
            ("a".into(), Value::Int(7)),
            ("b".into(), Value::Float(2.5)),
        ]);
        assert_eq!(PyValue::decoded(pair).text(), "(7, 2.5)");
        let one = Value::Compound(vec![("s".into(), Value::String("x".into()))]);
        assert_eq!(PyValue::decoded(one).text(), "('x',)");
        let reference = Value::Reference(crate::hdf5lite::reader::Reference::Object {
            address: 96,
            path: Some("/a".into()),
        });
        assert_eq!(
            PyValue::decoded(reference).text(),
            "<HDF5 object reference>"
        );
    }

    #[test]
    fn seconds_from_any_number() {
        assert_eq!(PyValue::Int(1_500_000_000).seconds(), Some(1.5));
        assert_eq!(PyValue::Str(" 2e9 ".into()).seconds(), Some(2.0));
        assert_eq!(PyValue::List(vec![]).seconds(), None);
    }
}
