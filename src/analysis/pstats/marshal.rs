//! The few Python `marshal` types a pstats dict is made of, written as `marshal.dump`
//! (version 4) lays them out, so `pstats.Stats(path)`, snakeviz and friends load the file.
//! No back-references are written: `marshal.load` does not need them, and a file without
//! them loads to the same objects.

/// A value of the pstats dict.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Tuple(Vec<Value>),
    /// Key and value pairs, in insertion order (a Python dict's order).
    Dict(Vec<(Value, Value)>),
}

/// Appends the marshal bytes of `value` to `out`.
pub fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Int(n) => match i32::try_from(*n) {
            Ok(small) => {
                out.push(b'i');
                out.extend_from_slice(&small.to_le_bytes());
            }
            Err(_) => long(*n, out),
        },
        Value::Float(x) => {
            out.push(b'g');
            out.extend_from_slice(&x.to_le_bytes());
        }
        Value::Str(s) if s.is_ascii() && s.len() < 256 => {
            out.push(b'z');
            out.push(s.len() as u8);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Str(s) => {
            out.push(b'u');
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        Value::Tuple(items) => {
            match u8::try_from(items.len()) {
                Ok(n) => out.extend_from_slice(&[b')', n]),
                Err(_) => {
                    out.push(b'(');
                    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
                }
            }
            items.iter().for_each(|item| write(item, out));
        }
        Value::Dict(pairs) => {
            out.push(b'{');
            for (k, v) in pairs {
                write(k, out);
                write(v, out);
            }
            out.push(b'0');
        }
    }
}

/// An int beyond 32 bits: its magnitude in 15-bit digits, least significant first, after
/// the digit count carrying the sign.
fn long(n: i64, out: &mut Vec<u8>) {
    let mut magnitude = n.unsigned_abs();
    let mut digits = Vec::new();
    while magnitude > 0 {
        digits.push((magnitude & 0x7fff) as u16);
        magnitude >>= 15;
    }
    let count = digits.len() as i32;
    out.push(b'l');
    out.extend_from_slice(&(if n < 0 { -count } else { count }).to_le_bytes());
    digits
        .iter()
        .for_each(|d| out.extend_from_slice(&d.to_le_bytes()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write(v, &mut out);
        out
    }

    #[test]
    fn scalars_are_laid_out_as_marshal_writes_them() {
        // The bytes of marshal.dumps(7), (1.5), 'ab' and 2**40 with refs cleared.
        assert_eq!(bytes(&Value::Int(7)), b"i\x07\0\0\0");
        assert_eq!(bytes(&Value::Float(1.5)), b"g\0\0\0\0\0\0\xf8\x3f".to_vec());
        assert_eq!(bytes(&Value::Str("ab".into())), b"z\x02ab");
        assert_eq!(bytes(&Value::Int(1 << 40)), b"l\x03\0\0\0\0\0\0\0\0\x04");
        assert_eq!(bytes(&Value::Int(-(1 << 40)))[1..5], (-3i32).to_le_bytes());
        assert_eq!(bytes(&Value::Str("é".into())), b"u\x02\0\0\0\xc3\xa9");
    }

    #[test]
    fn containers_nest_and_a_dict_ends_with_null() {
        let v = Value::Dict(vec![(
            Value::Tuple(vec![Value::Int(0)]),
            Value::Tuple(Vec::new()),
        )]);
        assert_eq!(bytes(&v), b"{)\x01i\0\0\0\0)\x000");
        let long = Value::Tuple(vec![Value::Int(1); 256]);
        assert_eq!(bytes(&long)[..5], [b'(', 0, 1, 0, 0]);
    }
}
