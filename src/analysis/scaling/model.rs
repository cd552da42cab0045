//! Scaling models in the spirit of Extra-P's single-parameter PMNF: each region's time per
//! rank as `c0 + c1 · x^i · log2(x)^j`, the hypothesis (i, j) chosen by leave-one-out
//! cross-validation. The selection follows Extra-P 4.0's `SingleParameterModeler`: the
//! constant model first (its SMAPE over all points), then each hypothesis by its
//! cross-validated SMAPE, kept only when its coefficient is not 0 and its term contributes
//! at least `EPSILON` of some measurement; a fold's constant under `PHI` of the smallest
//! value is cleaned to 0. Log terms only when every x ≥ 1. Unlike Extra-P, the adjusted R²
//! is of the final fit's residuals (Extra-P uses the folds'), and the exponent set is the
//! issue's full grid (Extra-P 4.0 skips some pairs and adds 4/5).

use crate::sort::SortSlice;

/// The exponents i, as fractions, in order.
pub const EXPONENTS: [(u32, u32); 19] = [
    (0, 1),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 3),
    (3, 4),
    (1, 1),
    (5, 4),
    (4, 3),
    (3, 2),
    (5, 3),
    (7, 4),
    (2, 1),
    (9, 4),
    (7, 3),
    (5, 2),
    (8, 3),
    (11, 4),
    (3, 1),
];
/// The log exponents j.
pub const LOG_EXPONENTS: [u32; 3] = [0, 1, 2];
/// Minimum share of a measurement a term must reach (Extra-P's epsilon).
pub const EPSILON: f64 = 0.0005;
/// A constant below this share of the smallest value is 0 (Extra-P's phi).
pub const PHI: f64 = 1e-3;
/// Fewest distinct points a model is fitted to (Extra-P's minimum).
pub const MIN_POINTS: usize = 5;

/// The growing term of a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Term {
    pub coefficient: f64,
    /// x's exponent as numerator and denominator.
    pub exponent: (u32, u32),
    pub log_exponent: u32,
}

impl Term {
    /// The exponent as the fraction string of the JSON (`"1/2"`, `"1"`).
    pub fn exponent_text(&self) -> String {
        match self.exponent {
            (n, 1) => n.to_string(),
            (n, d) => format!("{n}/{d}"),
        }
    }

    /// x^i · log2(x)^j.
    pub fn basis(exponent: (u32, u32), log_exponent: u32, x: f64) -> f64 {
        let power = if exponent.0 == 0 {
            1.0
        } else {
            x.powf(f64::from(exponent.0) / f64::from(exponent.1))
        };
        power * x.log2().powi(log_exponent as i32)
    }

    fn at(&self, x: f64) -> f64 {
        self.coefficient * Term::basis(self.exponent, self.log_exponent, x)
    }
}

/// A fitted model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub constant: f64,
    /// Empty for a constant model, else the one PMNF term.
    pub terms: Vec<Term>,
    pub adjusted_r2: f64,
    /// The cross-validated SMAPE it was chosen by, percent.
    pub smape: f64,
}

impl Model {
    /// The model's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.constant + self.terms.iter().map(|t| t.at(x)).sum::<f64>()
    }

    /// The model as text, with `p` for the parameter: `1.0e-4 + 6.0e-5 * p^(1/2)`.
    pub fn text(&self) -> String {
        let mut s = format!("{:.1e}", self.constant);
        for t in &self.terms {
            let sign = if t.coefficient < 0.0 { '-' } else { '+' };
            s.push_str(&format!(" {sign} {:.1e}", t.coefficient.abs()));
            match t.exponent {
                (0, _) => {}
                (1, 1) => s.push_str(" * p"),
                _ => s.push_str(&format!(" * p^({})", t.exponent_text())),
            }
            match t.log_exponent {
                0 => {}
                1 => s.push_str(" * log2(p)"),
                j => s.push_str(&format!(" * log2(p)^{j}")),
            }
        }
        s
    }
}

/// Least squares of y = c0 + c1·f over `points` (x, f, y), skipping index `skip`.
fn fit(f: &[f64], y: &[f64], skip: Option<usize>) -> Option<(f64, f64)> {
    let keep = |i: &usize| Some(*i) != skip;
    let n = (0..f.len()).filter(keep).count() as f64;
    let fm = (0..f.len()).filter(keep).map(|i| f[i]).sum::<f64>() / n;
    let ym = (0..f.len()).filter(keep).map(|i| y[i]).sum::<f64>() / n;
    let (mut sff, mut sfy) = (0.0, 0.0);
    for i in (0..f.len()).filter(keep) {
        sff += (f[i] - fm) * (f[i] - fm);
        sfy += (f[i] - fm) * (y[i] - ym);
    }
    if sff <= 0.0 || !sff.is_finite() {
        return None;
    }
    let c1 = sfy / sff;
    Some((ym - c1 * fm, c1))
}

fn smape_term(actual: f64, predicted: f64) -> f64 {
    let sum = actual.abs() + predicted.abs();
    if sum == 0.0 {
        0.0
    } else {
        (predicted - actual).abs() / sum * 2.0
    }
}

/// The best model of `y` over `x` (one value per distinct x, x > 0); `None` below
/// [`MIN_POINTS`] points or with values that are not finite.
pub fn fit_model(x: &[f64], y: &[f64]) -> Option<Model> {
    let n = x.len();
    if n < MIN_POINTS || n != y.len() || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    let ym = y.iter().sum::<f64>() / n as f64;
    let tss: f64 = y.iter().map(|v| (v - ym) * (v - ym)).sum();
    let constant_smape = y.iter().map(|&v| smape_term(v, ym)).sum::<f64>() / n as f64 * 100.0;
    let mut best = Model {
        constant: ym,
        terms: Vec::new(),
        adjusted_r2: 1.0,
        smape: constant_smape,
    };
    let logs = x.iter().all(|&v| v >= 1.0);
    let mut f = vec![0.0; n];
    // The two smallest values, for the fold's minimum without the left-out point.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_stable_by(|&a, &b| y[a].total_cmp(&y[b]));
    for &exponent in &EXPONENTS {
        for &log_exponent in &LOG_EXPONENTS {
            if (exponent.0 == 0 && log_exponent == 0) || (!logs && log_exponent > 0) {
                continue;
            }
            for (fi, &xi) in f.iter_mut().zip(x) {
                *fi = Term::basis(exponent, log_exponent, xi);
            }
            if f.iter().any(|v| !v.is_finite()) {
                continue;
            }
            let mut smape = 0.0;
            let mut ok = true;
            for k in 0..n {
                let Some((mut c0, c1)) = fit(&f, y, Some(k)) else {
                    ok = false;
                    break;
                };
                let minimum = if order[0] == k {
                    y[order[1]]
                } else {
                    y[order[0]]
                };
                if minimum != 0.0 && (c0 / minimum).abs() < PHI {
                    c0 = 0.0;
                }
                smape += smape_term(y[k], c0 + c1 * f[k]) / (n - 1) as f64 * 100.0;
            }
            let Some((c0, c1)) = fit(&f, y, None).filter(|_| ok) else {
                continue;
            };
            let contributes = f
                .iter()
                .zip(y)
                .any(|(fi, yi)| (c1 * fi / yi).abs() >= EPSILON);
            if c1 == 0.0 || !contributes || !smape.is_finite() || smape >= best.smape {
                continue;
            }
            let rss: f64 = f
                .iter()
                .zip(y)
                .map(|(fi, yi)| (yi - c0 - c1 * fi).powi(2))
                .sum();
            let r2 = if tss > 0.0 { 1.0 - rss / tss } else { 1.0 };
            best = Model {
                constant: c0,
                terms: vec![Term {
                    coefficient: c1,
                    exponent,
                    log_exponent,
                }],
                adjusted_r2: 1.0 - (1.0 - r2) * (n as f64 - 1.0) / (n as f64 - 2.0),
                smape,
            };
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_law_of_exact_series() {
        let x = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
        let y: Vec<f64> = x.iter().map(|&p: &f64| 1e-4 + 6e-5 * p.sqrt()).collect();
        let m = fit_model(&x, &y).unwrap();
        assert_eq!(m.terms[0].exponent, (1, 2));
        assert_eq!(m.terms[0].log_exponent, 0);
        assert!((m.terms[0].coefficient - 6e-5).abs() < 1e-12);
        assert_eq!(m.text(), "1.0e-4 + 6.0e-5 * p^(1/2)");
        let y: Vec<f64> = x.iter().map(|&p: &f64| 2.0 + 0.5 * p * p.log2()).collect();
        let m = fit_model(&x, &y).unwrap();
        assert_eq!((m.terms[0].exponent, m.terms[0].log_exponent), ((1, 1), 1));
        assert!(m.adjusted_r2 > 0.999_999);
        let flat = [3.0; 7];
        assert!(fit_model(&x, &flat).unwrap().terms.is_empty());
        assert!(fit_model(&x[..4], &flat[..4]).is_none());
    }
}
