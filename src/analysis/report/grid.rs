//! The reference's boxed table (`tabulate` with scope-profiler's rounded outline): every
//! cell left-aligned, each column as wide as its widest cell or its header plus two,
//! one space of padding and two between columns, indented by two.

/// The width of each column of `rows` under `headers`, in characters.
pub(crate) fn column_widths(headers: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    headers
        .iter()
        .enumerate()
        .map(|(i, header)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|cell| cell.chars().count())
                .chain([header.chars().count() + 2])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The table of `rows` under `headers` in columns `widths` wide (no cell wider), one line
/// each, every line ending in a newline.
pub(crate) fn draw(headers: &[&str], rows: &[Vec<String>], widths: &[usize]) -> String {
    let line = |l: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        format!("  {l}{}{r}\n", parts.join("──"))
    };
    let data = |cells: &mut dyn Iterator<Item = &str>| {
        let parts: Vec<String> = cells
            .zip(widths)
            .map(|(c, w)| {
                let pad = w.saturating_sub(c.chars().count());
                format!(" {c}{} ", " ".repeat(pad))
            })
            .collect();
        format!("  │{}│\n", parts.join("  "))
    };
    let mut s = line("╭", "╮");
    s.push_str(&data(&mut headers.iter().copied()));
    s.push_str(&line("├", "┤"));
    for r in rows {
        s.push_str(&data(&mut r.iter().map(String::as_str)));
    }
    s.push_str(&line("╰", "╯"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout `summary._print_table` prints for the same cells.
    #[test]
    fn boxed_like_tabulate() {
        let rows = vec![
            vec!["fib_call".to_string(), "0.000210203".to_string()],
            vec!["checkpoint".to_string(), "-".to_string()],
        ];
        let headers = ["region", "total [s] (a)"];
        let widths = column_widths(&headers, &rows);
        assert_eq!(widths, [10, 15]);
        assert_eq!(
            draw(&headers, &rows, &widths),
            "  ╭───────────────────────────────╮\n\
             \x20 │ region        total [s] (a)   │\n\
             \x20 ├───────────────────────────────┤\n\
             \x20 │ fib_call      0.000210203     │\n\
             \x20 │ checkpoint    -               │\n\
             \x20 ╰───────────────────────────────╯\n"
        );
    }
}
