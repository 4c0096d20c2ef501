//! Fits of the compression records of a bead sphere between two planes (issue 24, validations
//! 3–5): Hertz's eq 1 inverted for E, the log-log slope of F against δ (3/2 for Hertz), and the
//! two-term Prony series of a force relaxation at held δ, F(t) = F∞ + a1 e^{−t/t1} + a2 e^{−t/t2},
//! mapped to the instantaneous and long-time moduli E0, E∞ through eq 1 (the paper's procedure,
//! after its ref. 35: the moduli are eq 1 applied to F(0) and F(∞) at the held δ).

use super::scenes::CompressionSample;

/// E of eq 1 from its constant A (F = A δ^{3/2}): E = 3 (1 − ν²) A / sqrt(2R).
pub fn hertz_modulus(a: f64, radius: f64, nu: f64) -> f64 {
    3.0 * (1.0 - nu * nu) * a / (2.0 * radius).sqrt()
}

/// Least-squares slope of ln F against ln δ over the samples with δ in [lo, hi] and F > 0
/// (Hertz: 3/2; a flat punch: 1).
pub fn loglog_slope(samples: &[CompressionSample], lo: f64, hi: f64) -> f64 {
    let pts: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.delta >= lo && s.delta <= hi && s.force() > 0.0)
        .map(|s| (s.delta.ln(), s.force().ln()))
        .collect();
    line_fit(&pts).0
}

/// Least-squares line y = s x + c through the points: (s, c).
pub fn line_fit(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    let (sx, sy) = pts.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = pts.iter().fold((0.0, 0.0), |a, p| {
        (a.0 + (p.0 - mx) * (p.1 - my), a.1 + (p.0 - mx) * (p.0 - mx))
    });
    let s = sxy / sxx;
    (s, my - s * mx)
}

/// A two-term Prony series F(t) = F∞ + a1 e^{−t/t1} + a2 e^{−t/t2} (t1 ≥ t2), t from the start
/// of the hold; `rms` the fit's residual.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prony2 {
    pub f_inf: f64,
    pub a1: f64,
    pub t1: f64,
    pub a2: f64,
    pub t2: f64,
    pub rms: f64,
}

impl Prony2 {
    pub fn at(&self, t: f64) -> f64 {
        self.f_inf + self.a1 * (-t / self.t1).exp() + self.a2 * (-t / self.t2).exp()
    }

    /// E by eq 1 at the held displacement δ for a force F: 3 (1 − ν²) F / (sqrt(2R) δ^{3/2}).
    pub fn modulus(f: f64, delta: f64, radius: f64, nu: f64) -> f64 {
        hertz_modulus(f / delta.powf(1.5), radius, nu)
    }
}

/// Linear least squares of (F∞, a1, a2) for fixed (t1, t2): the coefficients and the residual.
fn prony_linear(t: &[f64], f: &[f64], t1: f64, t2: f64) -> ([f64; 3], f64) {
    let mut a = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for (&ti, &fi) in t.iter().zip(f) {
        let phi = [1.0, (-ti / t1).exp(), (-ti / t2).exp()];
        for i in 0..3 {
            r[i] += phi[i] * fi;
            for j in 0..3 {
                a[i][j] += phi[i] * phi[j];
            }
        }
    }
    let c = solve3(a, r);
    let res = t
        .iter()
        .zip(f)
        .map(|(&ti, &fi)| {
            let m = c[0] + c[1] * (-ti / t1).exp() + c[2] * (-ti / t2).exp();
            (fi - m) * (fi - m)
        })
        .sum::<f64>();
    (c, (res / t.len() as f64).sqrt())
}

/// 3 × 3 solve by Gaussian elimination with partial pivoting (a singular system gives zeros
/// in the undetermined unknowns).
fn solve3(mut a: [[f64; 3]; 3], mut r: [f64; 3]) -> [f64; 3] {
    for c in 0..3 {
        let p = (c..3)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap_or(c);
        a.swap(c, p);
        r.swap(c, p);
        if a[c][c].abs() < 1e-300 {
            continue;
        }
        for i in c + 1..3 {
            let m = a[i][c] / a[c][c];
            let row = a[c];
            for (x, y) in a[i][c..].iter_mut().zip(&row[c..]) {
                *x -= m * y;
            }
            r[i] -= m * r[c];
        }
    }
    let mut s = [0.0; 3];
    for c in (0..3).rev() {
        if a[c][c].abs() >= 1e-300 {
            s[c] = (r[c] - (c + 1..3).map(|j| a[c][j] * s[j]).sum::<f64>()) / a[c][c];
        }
    }
    s
}

/// Two-term Prony fit of a relaxation (t from the start of the hold, F): variable projection —
/// the amplitudes by linear least squares for each pair of times, the times by a search on a
/// logarithmic grid from the sample spacing to 10× the record's length with t1 ≥ 2 t2 (two
/// distinct times: a pair closer than that can cancel itself to fit ringing), refined by halving
/// the grid step around the best pair (deterministic).
pub fn prony2_fit(t: &[f64], f: &[f64]) -> Prony2 {
    let span = t.last().copied().unwrap_or(1.0) - t.first().copied().unwrap_or(0.0);
    let step = t
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::MAX, f64::min)
        .max(span * 1e-6);
    let (lo, hi) = (step.ln(), (10.0 * span).ln());
    let n = 48;
    let h0 = (hi - lo) / n as f64;
    let mut best = (f64::MAX, lo, lo);
    for i in 0..=n {
        for j in 0..i {
            let (l1, l2) = (lo + i as f64 * h0, lo + j as f64 * h0);
            if l1 - l2 < SEPARATION {
                continue;
            }
            let (_, res) = prony_linear(t, f, l1.exp(), l2.exp());
            if res < best.0 {
                best = (res, l1, l2);
            }
        }
    }
    // Pattern search: move to the best neighbour at step h while one improves (a valley that
    // runs diagonally needs several moves per step size), then halve h.
    let mut h = h0;
    for _ in 0..40 {
        h *= 0.5;
        for _ in 0..64 {
            let (r0, c1, c2) = best;
            for d1 in [-1.0, 0.0, 1.0] {
                for d2 in [-1.0, 0.0, 1.0] {
                    let (l1, l2) = ((c1 + d1 * h).clamp(lo, hi), (c2 + d2 * h).clamp(lo, hi));
                    if l1 - l2 < SEPARATION {
                        continue;
                    }
                    let (_, res) = prony_linear(t, f, l1.exp(), l2.exp());
                    if res < best.0 {
                        best = (res, l1, l2);
                    }
                }
            }
            if best.0 >= r0 {
                break;
            }
        }
    }
    let (t1, t2) = (best.1.exp(), best.2.exp());
    let (c, rms) = prony_linear(t, f, t1, t2);
    Prony2 {
        f_inf: c[0],
        a1: c[1],
        t1,
        a2: c[2],
        t2,
        rms,
    }
}

/// ln 2: t1 ≥ 2 t2.
const SEPARATION: f64 = std::f64::consts::LN_2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prony_fit_recovers_two_exponentials() {
        let t: Vec<f64> = (0..400).map(|i| i as f64 * 1e-3).collect();
        let f: Vec<f64> = t
            .iter()
            .map(|&x| 2.0 + 0.7 * (-x / 0.08).exp() + 0.4 * (-x / 0.004).exp())
            .collect();
        let p = prony2_fit(&t, &f);
        assert!((p.f_inf - 2.0).abs() < 1e-6, "{p:?}");
        assert!(
            (p.t1 / 0.08 - 1.0).abs() < 1e-4 && (p.t2 / 0.004 - 1.0).abs() < 1e-4,
            "{p:?}"
        );
        assert!((p.a1 - 0.7).abs() < 1e-6 && (p.a2 - 0.4).abs() < 1e-6, "{p:?}");
    }

    #[test]
    fn loglog_slope_of_a_power_law() {
        let s: Vec<CompressionSample> = (1..50)
            .map(|i| {
                let d = i as f64 * 1e-6;
                CompressionSample {
                    time: 0.0,
                    delta: d,
                    f_top: 3.0 * d.powf(1.5),
                    f_bottom: 3.0 * d.powf(1.5),
                }
            })
            .collect();
        assert!((loglog_slope(&s, 0.0, 1.0) - 1.5).abs() < 1e-9);
    }
}
