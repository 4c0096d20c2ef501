//! The classic fourth-order Runge–Kutta step of a second-order ODE ẍ = a(t, x, ẋ), in f64: the
//! reference solutions the validation cases and tests integrate (the bead papers' driven
//! oscillators, a damped Hertz collision).

/// One step of length `h` from (t, x, v); returns (x, v) at t + h.
pub fn rk4_step(acc: impl Fn(f64, f64, f64) -> f64, t: f64, x: f64, v: f64, h: f64) -> (f64, f64) {
    let (k1x, k1v) = (v, acc(t, x, v));
    let (k2x, k2v) = (
        v + 0.5 * h * k1v,
        acc(t + 0.5 * h, x + 0.5 * h * k1x, v + 0.5 * h * k1v),
    );
    let (k3x, k3v) = (
        v + 0.5 * h * k2v,
        acc(t + 0.5 * h, x + 0.5 * h * k2x, v + 0.5 * h * k2v),
    );
    let (k4x, k4v) = (v + h * k3v, acc(t + h, x + h * k3x, v + h * k3v));
    (
        x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
        v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
    )
}

#[cfg(test)]
mod tests {
    use super::rk4_step;

    /// Undamped unit oscillator over one period: back to (1, 0) to the method's O(h⁴).
    #[test]
    fn one_period_of_the_unit_oscillator() {
        let n = 1000;
        let h = 2.0 * std::f64::consts::PI / n as f64;
        let (mut x, mut v) = (1.0, 0.0);
        for i in 0..n {
            (x, v) = rk4_step(|_, x, _| -x, i as f64 * h, x, v, h);
        }
        assert!((x - 1.0).abs() < 1e-10 && v.abs() < 1e-10, "x {x}, v {v}");
    }
}
