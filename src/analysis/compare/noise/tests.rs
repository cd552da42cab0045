//! The gate's statistics against scipy, and its error rates on seeded noise.

use super::*;

/// A small seeded generator (SplitMix64) with normal deviates (Box–Muller).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let u = self.next().max(f64::MIN_POSITIVE);
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * self.next()).cos()
    }
}

/// The reference interpreter: `SP_PYTHON`, else the repository's `.venv`.
fn python() -> std::path::PathBuf {
    std::env::var_os("SP_PYTHON").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"),
        Into::into,
    )
}

/// p-values of Welch's test equal scipy's `ttest_ind(a, b, equal_var=False,
/// alternative="less")` (b slower), and the two-sided p and t follow.
#[test]
fn p_values_equal_scipy() {
    let mut rng = Rng(7);
    let mut cases: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for (na, nb, shift, spread) in [
        (5, 5, 0.10, 0.02),
        (5, 5, 0.0, 0.05),
        (3, 8, 0.03, 0.05),
        (11, 11, 0.02, 0.05),
        (20, 20, -0.01, 0.05),
        (2, 2, 0.5, 0.3),
        (4, 30, 0.001, 0.002),
        (6, 5, 0.2, 0.01),
    ] {
        let a: Vec<f64> = (0..na).map(|_| 1.0 + spread * rng.normal()).collect();
        let b: Vec<f64> = (0..nb)
            .map(|_| (1.0 + shift) * (1.0 + 2.0 * spread * rng.normal()))
            .collect();
        cases.push((a, b));
    }
    let script = "import json,sys\nfrom scipy import stats\nfor a,b in json.load(sys.stdin):\n    \
        r=stats.ttest_ind(a,b,equal_var=False,alternative='less')\n    \
        s=stats.ttest_ind(a,b,equal_var=False)\n    \
        print(repr(float(r.pvalue)),repr(float(s.pvalue)),repr(float(s.statistic)),repr(float(s.df)))\n";
    let mut child = std::process::Command::new(python())
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the reference's Python (set SP_PYTHON, or make .venv as docs/testing.md says)");
    let input = serde_json::to_vec(&cases).unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), &input).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "scipy: {} (install it: $SP_PYTHON -m pip install scipy)",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), cases.len());
    for ((a, b), line) in cases.iter().zip(lines) {
        let v: Vec<f64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        let w = welch_greater(a, b).unwrap();
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-10 * y.abs().max(1e-300);
        assert!(close(w.p, v[0]), "one-sided p {} vs scipy {}", w.p, v[0]);
        let two = 2.0 * w.p.min(1.0 - w.p);
        assert!(
            (two - v[1]).abs() <= 1e-10 * v[1].max(1e-12),
            "two-sided {two} vs {}",
            v[1]
        );
        assert!(close(-w.t, v[2]), "t {} vs {}", -w.t, v[2]);
        assert!(close(w.df, v[3]), "df {} vs {}", w.df, v[3]);
    }
}

/// Trials of `runs` runs a side, `regions` regions each with `noise` (relative standard
/// deviation) in every total; one region of the candidate slower by `slowdown`. Returns
/// (trials with any region flagged when nothing changed, trials whose slowed region is not
/// flagged).
fn simulate(seed: u64, trials: usize, runs: usize, noise: f64, slowdown: f64) -> (usize, usize) {
    const REGIONS: usize = 10;
    let mut rng = Rng(seed);
    let (mut false_alarms, mut missed) = (0, 0);
    for _ in 0..trials {
        let truth: Vec<f64> = (0..REGIONS).map(|i| 0.01 * (i + 1) as f64).collect();
        let mut sample = |scale: &dyn Fn(usize) -> f64| -> Vec<Vec<f64>> {
            (0..REGIONS)
                .map(|r| {
                    (0..runs)
                        .map(|_| truth[r] * scale(r) * (1.0 + noise * rng.normal()))
                        .collect()
                })
                .collect()
        };
        let base = sample(&|_| 1.0);
        let same = sample(&|_| 1.0);
        let slower = sample(&|r| if r == 3 { 1.0 + slowdown } else { 1.0 });
        let flags = |cand: &[Vec<f64>]| -> Vec<bool> {
            (base.iter().zip(cand))
                .map(|(a, b)| test_samples(a, b, 5.0, 0.95).2)
                .collect()
        };
        if flags(&same).iter().any(|&f| f) {
            false_alarms += 1;
        }
        if !flags(&slower)[3] {
            missed += 1;
        }
    }
    (false_alarms, missed)
}

/// The target (20 pairs of 5 runs, 2 % noise, --max-regression 5: at most one false
/// failure, a 10 % slowdown caught 20 times in 20), and the table of docs/runs.md over 500
/// trials a cell (`cargo test --lib noise -- --nocapture` prints it).
#[test]
fn seeded_noise_rates() {
    let (false_alarms, missed) = simulate(1, 20, 5, 0.02, 0.10);
    eprintln!("20 trials, 5 runs, 2 % noise: {false_alarms} false failures, {missed} missed");
    assert!(false_alarms <= 1 && missed == 0);
    eprintln!("| noise | runs a side | false failures | missed 10 % slowdowns |");
    eprintln!("|---|---|---|---|");
    const TRIALS: usize = 500;
    for noise in [0.02, 0.05] {
        for runs in [5, 11, 20] {
            let (f, m) = simulate(42 + runs as u64, TRIALS, runs, noise, 0.10);
            let pct = |n: usize| 100.0 * n as f64 / TRIALS as f64;
            eprintln!(
                "| {:.0} % | {runs} | {:.1} % | {:.1} % |",
                noise * 100.0,
                pct(f),
                pct(m)
            );
            // 2 % noise: 5 runs suffice; 5 % noise: 20 runs are needed for the same.
            if noise == 0.02 || runs == 20 {
                assert!(pct(f) <= 1.0 && pct(m) <= 1.0, "{noise} {runs}: {f} {m}");
            }
        }
    }
}

#[test]
fn bad_options_and_sides_are_errors() {
    let runs: Vec<Run> = Vec::new();
    let err = noise_check(&runs, &runs, &NoiseOptions::default()).unwrap_err();
    assert_eq!(err, NoiseError::TooFewRuns("baseline", 0));
    assert!(err
        .to_string()
        .starts_with("--baseline: Welch's test needs at least two runs"));
    let (pct, w, flagged) = test_samples(&[1.0, 1.0], &[1.2, 1.2], 5.0, 0.95);
    assert_eq!(
        (pct.map(|p| p.round()), w.map(|w| w.p), flagged),
        (Some(20.0), Some(0.0), true)
    );
    let (_, _, flagged) = test_samples(&[1.0, 1.2], &[1.1, 1.3], 5.0, 0.95);
    assert!(!flagged, "a 10 % change within the noise");
}
