//! The page as a report: profiles embedded in a copy of `sp.html`, so one offline HTML file
//! opens straight on them (`sp report`). The page (`web/page/app.js`, `SP.openEmbedded`)
//! finds each profile in a `<script type="application/x-sp-profile">` element, as base64,
//! and opens it as if it had been dropped on the page; two or more open compared.
//!
//! The elements go where the page marks them ([`MARKER`]), before its own scripts run. A
//! name reaches the page as an HTML attribute, escaped; base64 has no `<`, so a profile
//! cannot end its element early. A report can also say where the page opens (the filters,
//! ranks, sort and view of the page's URL hash, `web/page/state.js`), as a form-encoded
//! query in a `<script type="application/x-sp-place">` element.

use std::fmt;

/// Where `web/page/index.html` takes the embedded profiles.
pub const MARKER: &str = "<!-- sp:embedded -->";

/// The type of the elements that carry a profile.
pub const SCRIPT_TYPE: &str = "application/x-sp-profile";

/// The type of the element that says where the page opens.
pub const PLACE_TYPE: &str = "application/x-sp-place";

/// A profile to embed: the name the page shows, and the file's bytes.
#[derive(Debug, Clone, Copy)]
pub struct Embedded<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
    /// The bytes are the profile without its calls ([`crate::schema::write::index_only`]):
    /// the element says so (`data-events="omitted"`), and the page asks for the file where a
    /// view needs calls.
    pub index_only: bool,
}

/// How much of each profile a report carries (`sp report --events`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Events {
    /// Whole profiles when they total at most [`Events::AUTO_LIMIT`], else the indexes.
    Auto,
    /// Whole profiles, calls and all.
    Always,
    /// Each profile's index only ([`crate::schema::write::index_only`]).
    Never,
}

impl Events {
    /// Each choice with its name.
    pub const ALL: [(Events, &'static str); 3] = [
        (Events::Auto, "auto"),
        (Events::Always, "always"),
        (Events::Never, "never"),
    ];

    /// The most [`Events::Auto`] embeds whole: a report past it is slow to open.
    pub const AUTO_LIMIT: u64 = 64 << 20;

    /// Whether profiles of `total` bytes go in as their indexes only.
    pub fn index_only(self, total: u64) -> bool {
        match self {
            Events::Auto => total > Self::AUTO_LIMIT,
            Events::Always => false,
            Events::Never => true,
        }
    }
}

/// What a report carries of the profile in `file`: every byte, or its index only.
pub fn carried<R: crate::io::ReadAt>(
    file: &crate::hdf5lite::reader::File<R>,
    index_only: bool,
) -> Result<Vec<u8>, crate::schema::Error> {
    if index_only {
        return crate::schema::write::index_only(file);
    }
    let source = file.reader();
    let len = usize::try_from(source.len())
        .map_err(|_| crate::schema::Error::Unsupported("a profile too large to embed".into()))?;
    let mut bytes = vec![0; len];
    source
        .read_exact_at(0, &mut bytes)
        .map_err(|e| crate::schema::Error::Hdf5(e.into()))?;
    Ok(bytes)
}

/// The page this binary carries (build.rs builds it into release binaries), if any.
pub fn built_in() -> Option<String> {
    #[cfg(sp_page)]
    {
        use std::io::Read;
        const GZIPPED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/sp.html.gz"));
        let mut page = String::new();
        flate2::read::GzDecoder::new(GZIPPED)
            .read_to_string(&mut page)
            .ok()?;
        Some(page)
    }
    #[cfg(not(sp_page))]
    None
}

/// Why a page cannot carry profiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedError {
    /// The page has no [`MARKER`]: it is not sp's page, or one older than `sp report`.
    NotThePage,
    /// The page already carries profiles (it is a report itself).
    AlreadyEmbedded,
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmbedError::NotThePage => write!(
                f,
                "not sp's page, or one older than sp report: it has no `{MARKER}` place for profiles"
            ),
            EmbedError::AlreadyEmbedded => f.write_str("the page is a report already"),
        }
    }
}

impl std::error::Error for EmbedError {}

/// Where a report opens: the region table's filters and order, as `sp inspect` takes them
/// (patterns and rank lists joined by spaces, as the page's fields take them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Opening {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub ranks: Vec<String>,
    /// A sort key of `sp inspect --sort`; `None` (or `start`) is the page's default.
    pub sort: Option<String>,
}

impl Opening {
    /// The keys of the page's URL hash (`web/page/state.js`) for the first of `files`;
    /// empty when everything is the page's default.
    fn place(&self, files: &[Embedded<'_>]) -> Vec<(&'static str, String)> {
        let sort = self
            .sort
            .clone()
            .filter(|s| s != "start")
            .unwrap_or_default();
        let mut place: Vec<(&str, String)> = [
            ("include", self.include.join(" ")),
            ("exclude", self.exclude.join(" ")),
            ("ranks", self.ranks.join(" ")),
            ("sort", sort),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .collect();
        if let (false, Some(first)) = (place.is_empty(), files.first()) {
            place.insert(0, ("file", first.name.to_owned()));
        }
        place
    }
}

/// `page` with `files` embedded at its [`MARKER`], opening the first on its Overview with
/// the filters of `opening`.
pub fn embed(page: &str, files: &[Embedded<'_>], opening: &Opening) -> Result<String, EmbedError> {
    let at = page.find(MARKER).ok_or(EmbedError::NotThePage)?;
    if page.contains(&format!("<script type=\"{SCRIPT_TYPE}\"")) {
        return Err(EmbedError::AlreadyEmbedded);
    }
    let payload: usize = files
        .iter()
        .map(|f| f.bytes.len().div_ceil(3) * 4 + 96)
        .sum();
    let mut out = String::with_capacity(page.len() + payload);
    out.push_str(&page[..at]);
    for file in files {
        out.push_str("<script type=\"");
        out.push_str(SCRIPT_TYPE);
        out.push_str("\" data-name=\"");
        crate::chart::text::escape_into(&mut out, file.name);
        if file.index_only {
            out.push_str("\" data-events=\"omitted");
        }
        out.push_str("\">");
        base64_into(&mut out, file.bytes);
        out.push_str("</script>\n");
    }
    let place = opening.place(files);
    if !place.is_empty() {
        out.push_str("<script type=\"");
        out.push_str(PLACE_TYPE);
        out.push_str("\">");
        for (i, (key, value)) in place.iter().enumerate() {
            if i > 0 {
                out.push('&');
            }
            form_encode_into(&mut out, key);
            out.push('=');
            form_encode_into(&mut out, value);
        }
        out.push_str("</script>\n");
    }
    out.push_str(&page[at..]);
    Ok(out)
}

/// Appends `text` as `application/x-www-form-urlencoded`, as the page's `URLSearchParams`
/// reads it: ASCII letters, digits and `*-._` kept, space as `+`, every other byte of its
/// UTF-8 as `%XX`.
fn form_encode_into(out: &mut String, text: &str) {
    for &b in text.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.extend([
                    '%',
                    char::from(HEX[usize::from(b >> 4)]),
                    char::from(HEX[usize::from(b & 15)]),
                ]);
            }
        }
    }
}

/// Appends `bytes` to `out` in standard base64 (RFC 4648 §4, with padding), as the page's
/// `atob` reads it.
fn base64_into(out: &mut String, bytes: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let digit = |v: u32| char::from(ALPHABET[(v & 63) as usize]);
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let v = u32::from(c[0]) << 16 | u32::from(c[1]) << 8 | u32::from(c[2]);
        out.extend([digit(v >> 18), digit(v >> 12), digit(v >> 6), digit(v)]);
    }
    match *chunks.remainder() {
        [a] => {
            let v = u32::from(a) << 16;
            out.extend([digit(v >> 18), digit(v >> 12), '=', '=']);
        }
        [a, b] => {
            let v = u32::from(a) << 16 | u32::from(b) << 8;
            out.extend([digit(v >> 18), digit(v >> 12), digit(v >> 6), '=']);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base64(bytes: &[u8]) -> String {
        let mut s = String::new();
        base64_into(&mut s, bytes);
        s
    }

    /// RFC 4648 §10's test vectors.
    #[test]
    fn base64_is_rfc_4648() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain:?}");
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn profiles_go_at_the_marker_with_their_names_escaped() {
        let page = format!("<body><p>x</p>{MARKER}<script>SP.start();</script></body>");
        let files = [
            Embedded {
                name: "a.h5",
                bytes: b"foo",
                index_only: false,
            },
            Embedded {
                name: "\"><script>alert(1)</script>.h5",
                bytes: b"fo",
                index_only: true,
            },
        ];
        let out = embed(&page, &files, &Opening::default()).unwrap();
        assert_eq!(
            out,
            format!(
                "<body><p>x</p>\
                 <script type=\"application/x-sp-profile\" data-name=\"a.h5\">Zm9v</script>\n\
                 <script type=\"application/x-sp-profile\" \
                 data-name=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;.h5\" \
                 data-events=\"omitted\">Zm8=</script>\n\
                 {MARKER}<script>SP.start();</script></body>"
            )
        );
        assert_eq!(
            embed(&out, &files, &Opening::default()),
            Err(EmbedError::AlreadyEmbedded)
        );
    }

    #[test]
    fn the_place_is_a_form_encoded_query_before_the_marker() {
        let page = format!("<body>{MARKER}</body>");
        let files = [Embedded {
            name: "a.h5",
            bytes: b"",
            index_only: false,
        }];
        let opening = Opening {
            include: vec!["solve.*".into(), "</script>".into()],
            ranks: vec!["0-3".into(), "7".into()],
            sort: Some("start".into()),
            ..Opening::default()
        };
        let out = embed(&page, &files, &opening).unwrap();
        assert!(out.ends_with(&format!(
            "<script type=\"application/x-sp-place\">\
             file=a.h5&include=solve.*+%3C%2Fscript%3E&ranks=0-3+7</script>\n{MARKER}</body>"
        )));
    }

    #[test]
    fn a_page_without_the_marker_is_refused() {
        assert_eq!(
            embed("<html></html>", &[], &Opening::default()),
            Err(EmbedError::NotThePage)
        );
    }
}
