//! Axes: round ticks (1, 2 or 5 × 10ᵏ, four to eight of them), decades on a log axis, and
//! times in the unit that suits them (ns, µs, ms, s), named once in the axis title rather
//! than on every tick.

use super::scene::Anchor;

/// A unit of time: its name and its size in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    pub name: &'static str,
    pub seconds: f64,
}

const UNITS: [TimeUnit; 4] = [
    TimeUnit {
        name: "s",
        seconds: 1.0,
    },
    TimeUnit {
        name: "ms",
        seconds: 1e-3,
    },
    TimeUnit {
        name: "µs",
        seconds: 1e-6,
    },
    TimeUnit {
        name: "ns",
        seconds: 1e-9,
    },
];

/// The largest unit in which `seconds` (the largest value an axis shows) is at least 1: so
/// 0.0042 s reads 4.2 ms and 950 µs stays µs. Seconds for 0 and above.
pub fn time_unit(seconds: f64) -> TimeUnit {
    let m = seconds.abs();
    if !m.is_finite() || m == 0.0 {
        return UNITS[0];
    }
    UNITS
        .iter()
        .copied()
        .find(|u| m >= u.seconds * 0.9999)
        .unwrap_or(UNITS[3])
}

/// A round step (1, 2 or 5 × 10ᵏ) at or above `raw`.
pub fn round_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= raw * (1.0 - 1e-12) {
            return m * p;
        }
    }
    10.0 * p
}

/// The round step below `step`: 5 → 2 → 1 → 0.5 ….
fn smaller(step: f64) -> f64 {
    let p = 10f64.powf(step.log10().floor());
    let m = (step / p).round();
    if m >= 5.0 {
        2.0 * p
    } else if m >= 2.0 {
        p
    } else {
        0.5 * p
    }
}

/// Ticks of a linear axis over `[lo, hi]`: multiples of one round step inside it, four to
/// eight of them where the span allows.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticks {
    pub values: Vec<f64>,
    pub step: f64,
}

impl Ticks {
    pub fn linear(lo: f64, hi: f64) -> Ticks {
        let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
        let count = |step: f64| ((hi / step + 1e-9).floor() - (lo / step - 1e-9).ceil()) as i64 + 1;
        let mut step = round_step((hi - lo) / 6.0);
        while count(step) > 8 {
            step = round_step(step * 1.5);
        }
        while count(step) < 4 {
            step = smaller(step);
        }
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        let values = (first..=last)
            .map(|k| {
                let v = k as f64 * step;
                // 0.30000000000000004 → 0.3: the tick is the round number.
                if v == 0.0 {
                    0.0
                } else {
                    let d = decimals(step);
                    format!("{v:.d$}").parse().unwrap_or(v)
                }
            })
            .collect();
        Ticks { values, step }
    }

    /// A linear axis from `lo` (often 0) up to the first tick at or above `hi`: the span
    /// drawn, and its ticks.
    pub fn rounded_up(lo: f64, hi: f64) -> (f64, Ticks) {
        let t = Ticks::linear(lo, hi);
        let top = t.values.last().copied().unwrap_or(hi);
        if top >= hi {
            return (top, t);
        }
        let up = top + t.step;
        let t = Ticks::linear(lo, up);
        (up, t)
    }

    /// The ticks of a log axis over `[lo, hi]` (both positive): the powers of ten inside,
    /// with 2 and 5 times them when fewer than three decades are spanned.
    pub fn log(lo: f64, hi: f64) -> Ticks {
        let lo = lo.max(f64::MIN_POSITIVE);
        let hi = hi.max(lo * 10.0);
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let few = b - a <= 2;
        let mut values = Vec::new();
        for k in a..=b {
            let p = 10f64.powi(k);
            for m in if few {
                &[1.0, 2.0, 5.0][..]
            } else {
                &[1.0][..]
            } {
                let v = m * p;
                if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                    values.push(v);
                }
            }
        }
        // A span inside one decade has no power of ten in it: fall back to linear ticks.
        if values.len() < 2 {
            return Ticks::linear(lo, hi);
        }
        Ticks { values, step: 0.0 }
    }
}

/// Decimals a tick step needs: 0 for 5, 1 for 0.5, 2 for 0.25 ….
pub fn decimals(step: f64) -> usize {
    if !(step.is_finite() && step > 0.0) {
        return 0;
    }
    let mut d = 0;
    let mut s = step;
    while d < 12 && (s - s.round()).abs() > 1e-6 * s.max(1e-300) {
        s *= 10.0;
        d += 1;
    }
    d
}

/// A tick's label: `value` with the decimals its step needs (for a log axis, its own), a
/// real minus sign, thousands separated by commas.
pub fn label(value: f64, step: f64) -> String {
    let d = if step > 0.0 {
        decimals(step)
    } else {
        decimals(value.abs())
    };
    let text = format!("{:.d$}", value.abs());
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i.to_string(), Some(f.to_string())),
        None => (text.clone(), None),
    };
    let mut grouped = String::new();
    for (k, c) in int.chars().enumerate() {
        if k > 0 && (int.len() - k) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if value < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        "−"
    } else {
        ""
    };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A linear or log mapping of data values to pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub lo: f64,
    pub hi: f64,
    /// Pixels of `lo` and `hi`.
    pub p0: f32,
    pub p1: f32,
    pub log: bool,
}

impl Scale {
    pub fn linear(lo: f64, hi: f64, p0: f32, p1: f32) -> Scale {
        Scale {
            lo,
            hi: if hi > lo { hi } else { lo + 1.0 },
            p0,
            p1,
            log: false,
        }
    }

    pub fn log(lo: f64, hi: f64, p0: f32, p1: f32) -> Scale {
        let lo = lo.max(f64::MIN_POSITIVE);
        Scale {
            lo,
            hi: if hi > lo { hi } else { lo * 10.0 },
            p0,
            p1,
            log: true,
        }
    }

    /// The pixel of `v` (values outside the span map outside the pixels; on a log scale,
    /// values at or below zero map to the low end).
    pub fn at(&self, v: f64) -> f32 {
        let t = if self.log {
            let v = v.max(self.lo);
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        let t = if t.is_finite() { t } else { 0.0 };
        self.p0 + (f64::from(self.p1 - self.p0) * t) as f32
    }

    /// The ticks of the scale's span.
    pub fn ticks(&self) -> Ticks {
        if self.log {
            Ticks::log(self.lo, self.hi)
        } else {
            Ticks::linear(self.lo, self.hi)
        }
    }
}

/// Where a horizontal axis' tick label is anchored so that the last one stays inside.
pub fn tick_anchor(x: f32, left: f32, right: f32, half_width: f32) -> Anchor {
    if x + half_width > right {
        Anchor::End
    } else if x - half_width < left {
        Anchor::Start
    } else {
        Anchor::Middle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_four_to_eight() {
        for (lo, hi) in [
            (0.0, 1.0),
            (0.0, 7.3),
            (0.0, 13.0),
            (0.0, 0.0042),
            (3.0, 3.5),
            (-5.0, 17.0),
            (0.0, 123_456.0),
            (0.0, 1e-9),
            (0.0, 99.0),
        ] {
            let t = Ticks::linear(lo, hi);
            let n = t.values.len();
            assert!((4..=8).contains(&n), "{lo}..{hi}: {:?}", t.values);
            let m = t.step / 10f64.powf(t.step.log10().floor());
            assert!(
                [1.0, 2.0, 5.0].iter().any(|r| (m - r).abs() < 1e-9),
                "{}",
                t.step
            );
            assert!(t
                .values
                .iter()
                .all(|v| *v >= lo - 1e-12 && *v <= hi + 1e-12));
        }
        assert_eq!(
            Ticks::linear(0.0, 10.0).values,
            [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(
            Ticks::linear(0.0, 0.3).values,
            [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
        );
        let (top, t) = Ticks::rounded_up(0.0, 7.3);
        assert_eq!(top, 8.0);
        assert_eq!(t.values.last(), Some(&8.0));
    }

    #[test]
    fn log_ticks_are_decades() {
        assert_eq!(
            Ticks::log(1e-6, 1e-2).values,
            [1e-6, 1e-5, 1e-4, 1e-3, 1e-2]
        );
        assert_eq!(
            Ticks::log(1.0, 50.0).values,
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
    }

    #[test]
    fn times_take_the_unit_that_suits_them() {
        assert_eq!(time_unit(0.0042).name, "ms");
        assert_eq!(time_unit(0.00095).name, "µs");
        assert_eq!(time_unit(12.0).name, "s");
        assert_eq!(time_unit(3e-9).name, "ns");
        assert_eq!(time_unit(0.0).name, "s");
        assert_eq!(time_unit(1e-3).name, "ms");
    }

    #[test]
    fn labels_use_the_steps_decimals() {
        assert_eq!(label(0.25, 0.05), "0.25");
        assert_eq!(label(2.0, 0.5), "2.0");
        assert_eq!(label(12500.0, 2500.0), "12,500");
        assert_eq!(label(-3.0, 1.0), "−3");
        assert_eq!(label(0.0, 0.1), "0.0");
        assert_eq!(label(0.001, 0.0), "0.001");
        assert_eq!(label(1000.0, 0.0), "1,000");
    }

    #[test]
    fn scales_map_their_ends() {
        let s = Scale::linear(0.0, 10.0, 100.0, 300.0);
        assert_eq!((s.at(0.0), s.at(5.0), s.at(10.0)), (100.0, 200.0, 300.0));
        let l = Scale::log(1.0, 100.0, 0.0, 200.0);
        assert_eq!((l.at(1.0), l.at(10.0), l.at(100.0)), (0.0, 100.0, 200.0));
        assert_eq!(l.at(0.0), 0.0);
    }
}
