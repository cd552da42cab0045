//! Pooling repeated runs: mean, median, min, max and coefficient of variation of a sample,
//! and Welch's unequal-variance t-test, which `sp check` uses to tell a slowdown from noise.
//! Plain `f64` arithmetic over small samples (one value per run), no allocation beyond a
//! sorted copy for the median.

use crate::sort::SortSlice;

/// The pooled statistics of one value over repeated runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooled {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation over the mean (`None` for fewer than two values or a zero
    /// mean).
    pub cv: Option<f64>,
}

impl Pooled {
    /// The statistics of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Pooled> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_stable_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let m = mean(values);
        let cv = variance(values)
            .filter(|_| m != 0.0)
            .map(|v| v.sqrt() / m.abs());
        Some(Pooled {
            n,
            mean: m,
            median,
            min: sorted[0],
            max: sorted[n - 1],
            cv,
        })
    }
}

/// Arithmetic mean (0 for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// Sample variance (n − 1 in the denominator); `None` below two values.
pub fn variance(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let m = mean(values);
    let ss: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    Some(ss / (values.len() - 1) as f64)
}

/// Welch's test that `b`'s mean is greater than `a`'s (one-sided).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// P(T ≥ t) under equal means.
    pub p: f64,
}

/// Welch's one-sided test of mean(b) > mean(a). `None` when a side has fewer than two
/// values. Two samples without spread give p = 0 when b's mean is larger, else 1.
pub fn welch_greater(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (va, vb) = (variance(a)?, variance(b)?);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let diff = mean(b) - mean(a);
    let se2 = va / na + vb / nb;
    if se2 <= 0.0 || !se2.is_finite() {
        let p = if diff > 0.0 { 0.0 } else { 1.0 };
        return Some(Welch {
            t: if diff > 0.0 { f64::INFINITY } else { 0.0 },
            df: na + nb - 2.0,
            p,
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / ((va / na).powi(2) / (na - 1.0) + (vb / nb).powi(2) / (nb - 1.0));
    Some(Welch {
        t,
        df,
        p: student_t_sf(t, df),
    })
}

/// P(T ≥ t) for Student's t with `df` degrees of freedom.
pub fn student_t_sf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    let x = df / (df + t * t);
    let tail = 0.5 * regularized_beta(x, df / 2.0, 0.5);
    if t >= 0.0 {
        tail
    } else {
        1.0 - tail
    }
}

/// The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz).
fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(x, a, b) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_values() {
        let p = Pooled::of(&[3.0, 1.0, 2.0, 4.0]).unwrap();
        assert_eq!(
            (p.n, p.mean, p.median, p.min, p.max),
            (4, 2.5, 2.5, 1.0, 4.0)
        );
        let sd = (5.0f64 / 3.0).sqrt();
        assert!((p.cv.unwrap() - sd / 2.5).abs() < 1e-15);
        assert_eq!(Pooled::of(&[]), None);
        assert_eq!(Pooled::of(&[7.0]).unwrap().cv, None);
    }

    #[test]
    fn t_tail_matches_known_values() {
        // scipy.stats.t.sf(2.0, 5) = 0.05096973941492914; t.sf(1.0, 1) = 0.25.
        assert!((student_t_sf(2.0, 5.0) - 0.050_969_739_414_929_14).abs() < 1e-12);
        assert!((student_t_sf(1.0, 1.0) - 0.25).abs() < 1e-12);
        assert!((student_t_sf(0.0, 3.0) - 0.5).abs() < 1e-15);
        assert!((student_t_sf(-2.0, 5.0) - (1.0 - 0.050_969_739_414_929_14)).abs() < 1e-12);
    }

    #[test]
    fn welch_on_clear_and_equal_samples() {
        let a = [1.0, 1.01, 0.99, 1.0, 1.02];
        let b = [1.1, 1.11, 1.09, 1.1, 1.12];
        let w = welch_greater(&a, &b).unwrap();
        assert!(w.p < 1e-6, "{w:?}");
        assert!(welch_greater(&a, &a).unwrap().p >= 0.5);
        assert_eq!(welch_greater(&[1.0], &b), None);
    }
}
