//! Region-name patterns for `--include`/`--exclude`, matched as Python's `re.match` does
//! (anchored at the start, not at the end). Supports the everyday subset of regex syntax:
//! literals, `.`, classes `[a-z_]`/`[^…]`, escapes (`\d \w \s` and escaped punctuation),
//! `* + ?` (greedy), `^ $`, groups and `|`. Anything else is a [`PatternError`].

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    alternatives: Vec<Vec<Piece>>,
}

/// Why a pattern did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(pub String);

impl std::error::Error for PatternError {}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Atom {
    Char(char),
    Any,
    Class {
        negated: bool,
        items: Vec<ClassItem>,
    },
    Start,
    End,
    Group(Pattern),
}

#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    Range(char, char),
    Digit,
    Word,
    Space,
}

#[derive(Debug, Clone, PartialEq)]
struct Piece {
    atom: Atom,
    min: usize,
    max: Option<usize>,
}

impl Pattern {
    /// Compiles `source`.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        let chars: Vec<char> = source.chars().collect();
        let mut pos = 0;
        let p = parse_alt(&chars, &mut pos, 0)?;
        if pos != chars.len() {
            return Err(PatternError(format!("unbalanced ')' in {source:?}")));
        }
        Ok(p)
    }

    /// Whether the pattern matches at the start of `text` (`re.match`).
    pub fn matches(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let mut budget = 1_000_000u32;
        !self.ends(&chars, 0, &mut budget).is_empty()
    }

    /// Every position where a match starting at `at` can end.
    fn ends(&self, text: &[char], at: usize, budget: &mut u32) -> Vec<usize> {
        let mut out = Vec::new();
        for alt in &self.alternatives {
            seq(alt, text, at, budget, &mut out);
        }
        out
    }
}

fn seq(pieces: &[Piece], text: &[char], at: usize, budget: &mut u32, out: &mut Vec<usize>) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let Some((first, rest)) = pieces.split_first() else {
        out.push(at);
        return;
    };
    // Positions after 0, 1, 2, … repetitions; tried greedily (most first).
    let mut levels: Vec<Vec<usize>> = vec![vec![at]];
    loop {
        let count = levels.len() - 1;
        if first.max.is_some_and(|m| count >= m) {
            break;
        }
        let mut next = Vec::new();
        for &p in &levels[count] {
            for e in step(&first.atom, text, p, budget) {
                if e != p && !next.contains(&e) {
                    next.push(e);
                }
            }
        }
        if next.is_empty() || *budget == 0 {
            break;
        }
        levels.push(next);
    }
    for count in (first.min..levels.len()).rev() {
        for &p in &levels[count] {
            seq(rest, text, p, budget, out);
            if !out.is_empty() {
                return;
            }
        }
    }
    // Zero-width atoms (anchors) that matched without advancing.
    if first.min == 1 && levels.len() == 1 {
        for e in step(&first.atom, text, at, budget) {
            if e == at {
                seq(rest, text, at, budget, out);
            }
        }
    }
}

fn step(atom: &Atom, text: &[char], at: usize, budget: &mut u32) -> Vec<usize> {
    match atom {
        Atom::Start => (at == 0).then_some(at).into_iter().collect(),
        Atom::End => (at == text.len()).then_some(at).into_iter().collect(),
        Atom::Group(p) => p.ends(text, at, budget),
        _ => {
            let Some(&c) = text.get(at) else {
                return Vec::new();
            };
            let ok = match atom {
                Atom::Char(x) => *x == c,
                Atom::Any => c != '\n',
                Atom::Class { negated, items } => items.iter().any(|i| in_item(i, c)) != *negated,
                _ => false,
            };
            if ok {
                vec![at + 1]
            } else {
                Vec::new()
            }
        }
    }
}

fn in_item(item: &ClassItem, c: char) -> bool {
    match item {
        ClassItem::Range(a, b) => (*a..=*b).contains(&c),
        ClassItem::Digit => c.is_ascii_digit(),
        ClassItem::Word => c.is_alphanumeric() || c == '_',
        ClassItem::Space => c.is_whitespace(),
    }
}

fn parse_alt(chars: &[char], pos: &mut usize, depth: u32) -> Result<Pattern, PatternError> {
    if depth > 32 {
        return Err(PatternError("groups nested too deeply".into()));
    }
    let mut alternatives = vec![Vec::new()];
    while let Some(&c) = chars.get(*pos) {
        match c {
            ')' => break,
            '|' => {
                *pos += 1;
                alternatives.push(Vec::new());
                continue;
            }
            _ => {}
        }
        let atom = parse_atom(chars, pos, depth)?;
        let (min, max) = match chars.get(*pos) {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            _ => (1, Some(1)),
        };
        if (min, max) != (1, Some(1)) {
            *pos += 1;
            if chars.get(*pos) == Some(&'?') {
                return Err(PatternError("lazy quantifiers are not supported".into()));
            }
        }
        if let Some(last) = alternatives.last_mut() {
            last.push(Piece { atom, min, max });
        }
    }
    Ok(Pattern { alternatives })
}

fn escape(c: char) -> Result<Atom, PatternError> {
    Ok(match c {
        'd' => Atom::Class {
            negated: false,
            items: vec![ClassItem::Digit],
        },
        'w' => Atom::Class {
            negated: false,
            items: vec![ClassItem::Word],
        },
        's' => Atom::Class {
            negated: false,
            items: vec![ClassItem::Space],
        },
        'D' => Atom::Class {
            negated: true,
            items: vec![ClassItem::Digit],
        },
        'W' => Atom::Class {
            negated: true,
            items: vec![ClassItem::Word],
        },
        'S' => Atom::Class {
            negated: true,
            items: vec![ClassItem::Space],
        },
        'n' => Atom::Char('\n'),
        't' => Atom::Char('\t'),
        c if c.is_ascii_punctuation() || c == ' ' => Atom::Char(c),
        c => return Err(PatternError(format!("escape \\{c} is not supported"))),
    })
}

fn parse_atom(chars: &[char], pos: &mut usize, depth: u32) -> Result<Atom, PatternError> {
    let c = chars[*pos];
    *pos += 1;
    Ok(match c {
        '.' => Atom::Any,
        '^' => Atom::Start,
        '$' => Atom::End,
        '*' | '+' | '?' => return Err(PatternError(format!("nothing to repeat before {c:?}"))),
        '{' | '}' => {
            return Err(PatternError(
                "counted repetition {m,n} is not supported".into(),
            ))
        }
        '(' => {
            if chars.get(*pos) == Some(&'?') {
                if chars.get(*pos + 1) == Some(&':') {
                    *pos += 2;
                } else {
                    return Err(PatternError("(?…) extensions are not supported".into()));
                }
            }
            let inner = parse_alt(chars, pos, depth + 1)?;
            if chars.get(*pos) != Some(&')') {
                return Err(PatternError("missing ')'".into()));
            }
            *pos += 1;
            Atom::Group(inner)
        }
        '\\' => {
            let e = *chars
                .get(*pos)
                .ok_or_else(|| PatternError("pattern ends with '\\'".into()))?;
            *pos += 1;
            escape(e)?
        }
        '[' => {
            let negated = chars.get(*pos) == Some(&'^');
            if negated {
                *pos += 1;
            }
            let mut items = Vec::new();
            let mut first = true;
            loop {
                let Some(&c) = chars.get(*pos) else {
                    return Err(PatternError("missing ']'".into()));
                };
                *pos += 1;
                if c == ']' && !first {
                    break;
                }
                first = false;
                let lo = if c == '\\' {
                    let e = *chars
                        .get(*pos)
                        .ok_or_else(|| PatternError("missing ']'".into()))?;
                    *pos += 1;
                    match escape(e)? {
                        Atom::Char(x) => x,
                        Atom::Class {
                            items: mut more, ..
                        } => {
                            items.append(&mut more);
                            continue;
                        }
                        _ => e,
                    }
                } else {
                    c
                };
                if chars.get(*pos) == Some(&'-') && chars.get(*pos + 1).is_some_and(|&n| n != ']') {
                    let hi = chars[*pos + 1];
                    *pos += 2;
                    items.push(ClassItem::Range(lo, hi));
                } else {
                    items.push(ClassItem::Range(lo, lo));
                }
            }
            Atom::Class { negated, items }
        }
        c => Atom::Char(c),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Pattern::new(p).unwrap().matches(t)
    }

    #[test]
    fn anchored_at_start_only() {
        assert!(m("solve", "solve_x"));
        assert!(!m("solve", "my_solve"));
        assert!(m(".*solve", "my_solve"));
        assert!(!m("solve$", "solve_x"));
        assert!(m("solve$", "solve"));
    }

    #[test]
    fn classes_quantifiers_and_alternation() {
        assert!(m("[a-c]+_\\d", "abc_7"));
        assert!(!m("[^a]", "a"));
        assert!(m("(io|comm)_", "comm_x"));
        assert!(m("a?b", "b"));
        assert!(m("x*y+z", "yyz"));
        assert!(!m("x*y+z", "xz"));
        assert!(m("a\\.b", "a.b"));
        assert!(!m("a\\.b", "axb"));
    }

    #[test]
    fn unsupported_syntax_is_an_error() {
        assert!(Pattern::new("a{2}").is_err());
        assert!(Pattern::new("(a").is_err());
        assert!(Pattern::new("*a").is_err());
    }
}
