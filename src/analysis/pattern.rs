//! Region-name patterns for `--include`/`--exclude` (and the page's filters), written as
//! the reference takes them: Python's `re` syntax, matched as `re.match` matches
//! (anchored at the start, not at the end). The matching is the `regex-lite` crate's; this
//! module only translates what Python spells differently and refuses what Python refuses.
//!
//! Translated: `\Z` (end of text), `$` (end, or before a final newline), `{,n}`, a `{`
//! that starts no repetition (a literal in Python), `(?P=name)` refused as a
//! backreference, `(?#…)` comments dropped, octal and `\x`/`\u`/`\U` escapes, escaped
//! punctuation and letters Python does not know (`\p`, `\k`, `\z`: refused, as Python
//! refuses them), `[`, `&&`, `--`, `~~` inside a class (literals in Python, set operations
//! in the crate). Refused with the construct named (Python accepts them, the crate has
//! none): lookahead and lookbehind, backreferences, conditionals, atomic groups and
//! possessive repetitions, `\N{…}` names, and the `(?a)` flag. Everything else means what
//! it means in Python, except that `\w`, `\d`, `\s` and `\b` are ASCII only and `(?i)`
//! folds ASCII letters only (Python's are Unicode): see `docs/text.md`.
//!
//! ```
//! use sp::analysis::pattern::Pattern;
//!
//! let p = Pattern::new(r"phase0[0-2]_kernel0{2}")?;
//! assert!(p.matches("phase01_kernel00_extra")); // anchored at the start only
//! assert!(!p.matches("my_phase01_kernel00"));
//! assert!(Pattern::new("(?i)PHASE01")?.matches("phase01"));
//! assert!(Pattern::new("phase(?!01)").is_err()); // lookahead: named in the error
//! # Ok::<(), sp::analysis::pattern::PatternError>(())
//! ```

use std::fmt::Write as _;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    regex: regex_lite::Regex,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

/// Why a pattern did not compile: one line naming the construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(pub String);

impl std::error::Error for PatternError {}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Pattern {
    /// Compiles `source`, a pattern in Python's `re` syntax.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        let translated = translate(source)?;
        let regex = regex_lite::Regex::new(&format!(r"\A(?:{translated})")).map_err(|e| {
            let text = e.to_string();
            let last = text.lines().rev().find(|l| !l.trim().is_empty());
            PatternError(last.unwrap_or("not a valid pattern").trim().to_owned())
        })?;
        Ok(Pattern {
            source: source.to_owned(),
            regex,
        })
    }

    /// Whether the pattern matches at the start of `text` (`re.match`).
    pub fn matches(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// The pattern as it was written.
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

/// An error at character `at` of the pattern.
fn error(what: &str, at: usize) -> PatternError {
    PatternError(format!("{what} at position {at}"))
}

/// The pattern in the crate's syntax.
fn translate(source: &str) -> Result<String, PatternError> {
    let chars: Vec<char> = source.chars().collect();
    let mut t = Translator {
        chars: &chars,
        at: 0,
        out: String::with_capacity(source.len() + 8),
        verbose: false,
        multiline: false,
    };
    t.flags_at_start()?;
    t.sequence(0)?;
    Ok(t.out)
}

struct Translator<'a> {
    chars: &'a [char],
    at: usize,
    out: String,
    /// `(?x)`: whitespace and `#` comments outside classes are not part of the pattern.
    verbose: bool,
    /// `(?m)`: `$` matches before every newline, as the crate's `(?m)$` does.
    multiline: bool,
}

impl Translator<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn rest_starts_with(&self, s: &str) -> bool {
        (self.at..)
            .zip(s.chars())
            .all(|(i, c)| self.chars.get(i) == Some(&c))
    }

    /// Python's global flags, allowed only at the very start: `(?imsx)`.
    fn flags_at_start(&mut self) -> Result<(), PatternError> {
        while self.rest_starts_with("(?") {
            let mut j = self.at + 2;
            while self.chars.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
                j += 1;
            }
            if j == self.at + 2 || self.chars.get(j) != Some(&')') {
                return Ok(());
            }
            let letters: String = self.chars[self.at + 2..j].iter().collect();
            let start = self.at;
            self.at = j + 1;
            self.out.push_str(&flag_group(&letters, start)?);
            self.verbose |= letters.contains('x');
            self.multiline |= letters.contains('m');
        }
        Ok(())
    }

    /// A sequence of alternatives, up to an unmatched `)` (inside a group) or the end.
    fn sequence(&mut self, depth: usize) -> Result<(), PatternError> {
        // Whether the last thing written can take a repetition (Python: "nothing to repeat").
        let mut repeatable = false;
        while let Some(c) = self.peek(0) {
            let at = self.at;
            match c {
                ')' if depth > 0 => return Ok(()),
                ')' => return Err(error("unbalanced parenthesis", at)),
                '(' => {
                    self.group(depth)?;
                    repeatable = true;
                }
                '[' => {
                    self.class()?;
                    repeatable = true;
                }
                '\\' => {
                    repeatable = self.escape()?;
                }
                '|' => {
                    self.at += 1;
                    self.out.push('|');
                    repeatable = false;
                }
                '*' | '+' | '?' | '{' => {
                    if c == '{' && self.repetition_braces().is_none() {
                        self.at += 1;
                        self.out.push_str(r"\{");
                        repeatable = true;
                        continue;
                    }
                    if !repeatable {
                        return Err(error("nothing to repeat", at));
                    }
                    self.quantifier()?;
                    repeatable = false;
                }
                '$' => {
                    self.at += 1;
                    // Python's `$`: the end, or before a newline that ends the text.
                    self.out.push_str(if self.multiline {
                        "(?m:$)"
                    } else {
                        r"(?:\n?\z)"
                    });
                    repeatable = false;
                }
                '^' => {
                    self.at += 1;
                    self.out
                        .push_str(if self.multiline { "(?m:^)" } else { r"\A" });
                    repeatable = false;
                }
                c if self.verbose && c.is_whitespace() => self.at += 1,
                '#' if self.verbose => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.at += 1;
                    }
                }
                '}' => {
                    self.at += 1;
                    self.out.push_str(r"\}");
                    repeatable = true;
                }
                '.' => {
                    self.at += 1;
                    self.out.push('.');
                    repeatable = true;
                }
                c => {
                    self.at += 1;
                    literal(&mut self.out, c);
                    repeatable = true;
                }
            }
        }
        Ok(())
    }

    /// `{m}`, `{m,}`, `{,n}`, `{m,n}` at the cursor, as (text to write, its length).
    fn repetition_braces(&self) -> Option<(String, usize)> {
        let rest = &self.chars[self.at..];
        let close = rest.iter().position(|&c| c == '}')?;
        let inner: String = rest[1..close].iter().collect();
        let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        let text = match inner.split_once(',') {
            None if !inner.is_empty() && digits(&inner) => format!("{{{inner}}}"),
            Some((lo, hi)) if digits(lo) && digits(hi) => {
                let lo = if lo.is_empty() { "0" } else { lo };
                format!("{{{lo},{hi}}}")
            }
            _ => return None,
        };
        Some((text, close + 1))
    }

    /// A repetition after something repeatable, lazy with `?`; possessive ones are refused.
    fn quantifier(&mut self) -> Result<(), PatternError> {
        let at = self.at;
        match self.peek(0) {
            Some('{') => {
                let (text, len) = self
                    .repetition_braces()
                    .ok_or_else(|| error("bad repeat", at))?;
                if let Some((lo, hi)) = text[1..text.len() - 1].split_once(',') {
                    if !hi.is_empty() && hi.parse::<u64>().ok() < lo.parse::<u64>().ok() {
                        return Err(error("min repeat greater than max repeat", at));
                    }
                }
                self.out.push_str(&text);
                self.at += len;
            }
            Some(c) => {
                self.out.push(c);
                self.at += 1;
            }
            None => return Ok(()),
        }
        match self.peek(0) {
            Some('?') => {
                self.out.push('?');
                self.at += 1;
            }
            Some('+') => {
                return Err(error(
                    "possessive repetitions (*+, ++, ?+) are not supported",
                    self.at,
                ))
            }
            _ => {}
        }
        if matches!(self.peek(0), Some('*' | '+' | '?'))
            || (self.peek(0) == Some('{') && self.repetition_braces().is_some())
        {
            return Err(error("multiple repeat", self.at));
        }
        Ok(())
    }

    /// A group: `(…)`, `(?:…)`, `(?P<name>…)`, `(?flags:…)`, `(?#…)`; the extensions the
    /// crate lacks are refused by name.
    fn group(&mut self, depth: usize) -> Result<(), PatternError> {
        let at = self.at;
        self.at += 1;
        if self.peek(0) != Some('?') {
            self.out.push('(');
            return self.close_group(depth, at);
        }
        self.at += 1;
        let unsupported = |what: &str| Err(error(&format!("{what} are not supported"), at));
        match self.peek(0) {
            Some(':') => {
                self.at += 1;
                self.out.push_str("(?:");
                self.close_group(depth, at)
            }
            Some('P') if self.peek(1) == Some('<') => {
                self.at += 2;
                let start = self.at;
                while self.peek(0).is_some_and(|c| c != '>') {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                if self.peek(0) != Some('>') {
                    return Err(error("missing >, unterminated name", start));
                }
                let first_ok = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_');
                if !first_ok || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return Err(error(
                        &format!("bad character in group name {name:?}"),
                        start,
                    ));
                }
                self.at += 1;
                self.out.push_str(&format!("(?P<{name}>"));
                self.close_group(depth, at)
            }
            Some('P') if self.peek(1) == Some('=') => unsupported("backreferences (?P=name)"),
            Some('P') => Err(error("unknown extension ?P", at)),
            Some('#') => {
                while self.peek(0).is_some_and(|c| c != ')') {
                    self.at += 1;
                }
                if self.peek(0).is_none() {
                    return Err(error("missing ), unterminated comment", at));
                }
                self.at += 1;
                Ok(())
            }
            Some('=') | Some('!') => unsupported("lookahead assertions (?=…) and (?!…)"),
            Some('<') if matches!(self.peek(1), Some('=' | '!')) => {
                unsupported("lookbehind assertions (?<=…) and (?<!…)")
            }
            Some('(') => unsupported("conditional groups (?(…)…)"),
            Some('>') => unsupported("atomic groups (?>…)"),
            Some(c) if c.is_ascii_alphabetic() || c == '-' => {
                let start = self.at;
                while self
                    .peek(0)
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '-')
                {
                    self.at += 1;
                }
                let letters: String = self.chars[start..self.at].iter().collect();
                match self.peek(0) {
                    Some(':') => {
                        self.at += 1;
                        let (on, off) = letters.split_once('-').unwrap_or((&letters, ""));
                        for f in on.chars().chain(off.chars()) {
                            check_flag(f, at)?;
                        }
                        if off.contains('u') || off.contains('a') {
                            return Err(error("bad inline flag", at));
                        }
                        let keep = |s: &str| s.chars().filter(|c| "imsx".contains(*c)).collect();
                        let (on, off): (String, String) = (keep(on), keep(off));
                        self.out.push_str(&match (on.is_empty(), off.is_empty()) {
                            (true, true) => "(?:".to_owned(),
                            (_, true) => format!("(?{on}:"),
                            _ => format!("(?{on}-{off}:"),
                        });
                        self.close_group(depth, at)
                    }
                    Some(')') => Err(error("global flags not at the start of the expression", at)),
                    _ => Err(error("missing -, : or )", at)),
                }
            }
            Some(c) => Err(error(&format!("unknown extension ?{c}"), at)),
            None => Err(error("unexpected end of pattern", at)),
        }
    }

    /// The inside of a group opened at `open`, then its `)`.
    fn close_group(&mut self, depth: usize, open: usize) -> Result<(), PatternError> {
        self.sequence(depth + 1)?;
        if self.peek(0) != Some(')') {
            return Err(error("missing ), unterminated subpattern", open));
        }
        self.at += 1;
        self.out.push(')');
        Ok(())
    }

    /// A character class: `[` is literal inside, and so are `&&`, `--` and `~~`.
    fn class(&mut self) -> Result<(), PatternError> {
        let open = self.at;
        self.at += 1;
        self.out.push('[');
        if self.peek(0) == Some('^') {
            self.at += 1;
            self.out.push('^');
        }
        let mut first = true;
        loop {
            let Some(c) = self.peek(0) else {
                return Err(error("unterminated character set", open));
            };
            match c {
                ']' if !first => {
                    self.at += 1;
                    self.out.push(']');
                    return Ok(());
                }
                '\\' => {
                    let at = self.at;
                    self.at += 1;
                    let Some(e) = self.peek(0) else {
                        return Err(error("bad escape (end of pattern)", at));
                    };
                    self.at += 1;
                    match e {
                        'd' | 'D' | 's' | 'S' | 'w' | 'W' => {
                            self.out.push('\\');
                            self.out.push(e);
                        }
                        'b' => literal(&mut self.out, '\u{8}'),
                        _ => {
                            let c = self.char_escape(e, at, true)?;
                            literal(&mut self.out, c);
                        }
                    }
                }
                _ => {
                    self.at += 1;
                    // `-` between two members is a range; at either end it is a literal.
                    if c == '-' && !first && self.peek(0) != Some(']') {
                        self.out.push('-');
                    } else {
                        literal(&mut self.out, c);
                    }
                }
            }
            first = false;
        }
    }

    /// An escape outside a class; returns whether what it wrote can be repeated.
    fn escape(&mut self) -> Result<bool, PatternError> {
        let at = self.at;
        self.at += 1;
        let Some(e) = self.peek(0) else {
            return Err(error("bad escape (end of pattern)", at));
        };
        self.at += 1;
        let (text, repeatable) = match e {
            'A' => (r"\A".to_owned(), false),
            'Z' => (r"\z".to_owned(), false),
            'b' | 'B' => (format!("\\{e}"), false),
            'd' | 'D' | 's' | 'S' | 'w' | 'W' => (format!("\\{e}"), true),
            '1'..='9' if !self.octal_ahead(e) => {
                return Err(error("backreferences (\\1 …) are not supported", at));
            }
            _ => {
                let c = self.char_escape(e, at, false)?;
                let mut s = String::new();
                literal(&mut s, c);
                (s, true)
            }
        };
        self.out.push_str(&text);
        Ok(repeatable)
    }

    /// Whether `\` `first` and what follows is a three-digit octal escape (`\141`).
    fn octal_ahead(&self, first: char) -> bool {
        let octal = |c: Option<char>| c.is_some_and(|c| ('0'..='7').contains(&c));
        octal(Some(first)) && octal(self.peek(0)) && octal(self.peek(1))
    }

    /// The character an escape `\e` stands for (the cursor after `e`), as Python reads it.
    fn char_escape(&mut self, e: char, at: usize, _in_class: bool) -> Result<char, PatternError> {
        let hex = |t: &mut Self, n: usize| -> Result<char, PatternError> {
            let digits: String = t.chars.get(t.at..t.at + n).unwrap_or(&[]).iter().collect();
            if digits.chars().count() != n || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(error(&format!("incomplete escape \\{e}{digits}"), at));
            }
            t.at += n;
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| error(&format!("bad escape \\{e}{digits}"), at))
        };
        Ok(match e {
            'a' => '\u{7}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            'x' => hex(self, 2)?,
            'u' => hex(self, 4)?,
            'U' => hex(self, 8)?,
            'N' => return Err(error("named Unicode escapes \\N{…} are not supported", at)),
            '0'..='7' => {
                // Octal: `\0` and up to two more digits; outside a class other octal escapes
                // have three digits (checked before), inside one to three.
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.at += 1;
                        }
                        None => break,
                    }
                }
                if value > 0o377 {
                    return Err(error(
                        &format!("octal escape value \\{value:o} outside of range 0-0o377"),
                        at,
                    ));
                }
                char::from_u32(value).unwrap_or('\0')
            }
            c if c.is_ascii_alphanumeric() => {
                return Err(error(&format!("bad escape \\{c}"), at));
            }
            c => c,
        })
    }
}

/// The crate's group for Python's global flags `letters` (at the start of the pattern).
fn flag_group(letters: &str, at: usize) -> Result<String, PatternError> {
    for f in letters.chars() {
        check_flag(f, at)?;
    }
    if letters.contains('a') && letters.contains('u') {
        return Err(error(
            "bad inline flag: flags 'a', 'u' and 'L' are incompatible",
            at,
        ));
    }
    let kept: String = letters.chars().filter(|c| "imsx".contains(*c)).collect();
    Ok(if kept.is_empty() {
        String::new()
    } else {
        format!("(?{kept})")
    })
}

/// Python's inline flags: `i m s x u` are taken; `a` (ASCII) is refused, as the crate's
/// classes are ASCII already but its case folding is not switchable; `L` is Python's
/// error for a text pattern.
fn check_flag(f: char, at: usize) -> Result<(), PatternError> {
    match f {
        'i' | 'm' | 's' | 'x' | 'u' => Ok(()),
        'a' => Err(error("the ASCII flag (?a) is not supported", at)),
        'L' => Err(error(
            "bad inline flag: cannot use 'L' flag with a str pattern",
            at,
        )),
        c => Err(error(&format!("unknown flag {c:?}"), at)),
    }
}

/// Writes `c` as a literal of the crate's syntax: as it is, or `\x{…}` for anything the
/// crate could read otherwise.
fn literal(out: &mut String, c: char) {
    if c.is_alphanumeric() || c == '_' || (!c.is_ascii() && !c.is_control() && !c.is_whitespace()) {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:x}}}", u32::from(c));
    }
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
        // Python's `$` also matches before a final newline; `\Z` only at the end.
        assert!(m("solve$", "solve\n"));
        assert!(!m(r"solve\Z", "solve\n"));
        assert!(m("a|b", "b_then"));
    }

    #[test]
    fn the_issue_s_patterns() {
        assert!(m("phase0[0-2]_kernel0{2}", "phase01_kernel00"));
        assert!(!m("phase0[0-2]_kernel0{2}", "phase01_kernel01"));
        assert!(m("(?i)PHASE01", "phase01_kernel00"));
        assert!(m("phase0[3-5].*?0$", "phase04_kernel00"));
        assert!(m(r"\bphase02\b", "phase02"));
        assert!(m("(?P<p>phase)0[15]_kernel0(?:0|2)", "phase05_kernel02"));
        let err = Pattern::new(r"phase(?!01)\d+_kernel00").unwrap_err();
        assert_eq!(
            err.to_string(),
            "lookahead assertions (?=…) and (?!…) are not supported at position 5"
        );
    }

    #[test]
    fn python_spellings_are_translated() {
        // `{` that starts no repetition is a literal; `{,2}` is `{0,2}`.
        assert!(m("a{x}", "a{x}"));
        assert!(m("ba{,2}c", "bac"));
        // `[` and `&&` inside a class are literals in Python.
        assert!(m("[[&]+", "&[&"));
        assert!(m("[a&&b]", "&"));
        // Escapes: octal, hex, punctuation, a comment group.
        assert!(m(r"\141\x62\u0063\.", "abc."));
        assert!(m("a(?#note)b", "ab"));
        assert!(m("(?x) a b # spaced", "ab"));
        assert!(m("(?s).", "\n"));
        assert!(!m(".", "\n"));
    }

    #[test]
    fn what_python_refuses_is_refused() {
        for (p, why) in [
            ("(a", "missing ), unterminated subpattern at position 0"),
            ("a)", "unbalanced parenthesis at position 1"),
            ("*a", "nothing to repeat at position 0"),
            ("a**", "multiple repeat at position 2"),
            (r"\p{L}", r"bad escape \p at position 0"),
            (r"\z", r"bad escape \z at position 0"),
            ("[a", "unterminated character set at position 0"),
            ("a{3,1}", "min repeat greater than max repeat at position 1"),
            (
                "a(?i)b",
                "global flags not at the start of the expression at position 1",
            ),
            ("(?<n>a)", "unknown extension ?< at position 0"),
        ] {
            assert_eq!(Pattern::new(p).unwrap_err().to_string(), why, "{p}");
        }
    }
}
