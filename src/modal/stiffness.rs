//! Internal generalized force F^int_α(ε) of the modal subsystem (eq 38: U'_ε(ε)).
//!
//! - `Linear`: F^int = K ε (eq 55), K from eq 4 by quadrature or given.
//! - `Table`: one mode whose force is a lookup table of (ε_i, F_i) pairs, as in App. B; the table
//!   is the generalized force itself (eq 57/58 with the reaction force as F, §4.2), interpolated
//!   linearly between entries, extrapolated with the end slope beyond the last entry, and odd in ε
//!   (F(−ε) = −F(ε): the table is measured in compaction only).
//!
//! `table_force` mirrors `table_force` of shaders/modal_lib.wgsl.

#[derive(Clone, Debug, PartialEq)]
pub enum ModalStiffness {
    /// Row-major n×n.
    Linear(Vec<f32>),
    /// (ε_i, F_i), ε_0 = 0, increasing.
    Table(Vec<[f32; 2]>),
}

/// Paper's compaction table (App. B): ε and F_ε pairs.
pub const PAPER_COMPACTION_TABLE: [[f32; 2]; 18] = [
    [0.0, 0.0],
    [0.004, 4.12],
    [0.008, 11.95],
    [0.014, 28.63],
    [0.023, 63.39],
    [0.0365, 134.77],
    [0.04156, 167.32],
    [0.04916, 222.16],
    [0.06055, 317.71],
    [0.07763, 493.45],
    [0.08404, 569.48],
    [0.09365, 694.49],
    [0.10807, 908.45],
    [0.11347, 996.90],
    [0.12158, 1138.99],
    [0.13375, 1373.51],
    [0.15199, 1777.76],
    [0.16, 1974.62],
];

/// Table force at ε (flat slice of (ε_i, F_i) pairs, `len` entries).
pub fn table_force(table: &[f32], first: usize, len: usize, eps: f32) -> f32 {
    let a = eps.abs();
    let mut i = 0usize;
    while i + 2 < len && a > table[first + 2 * (i + 1)] {
        i += 1;
    }
    let e0 = table[first + 2 * i];
    let f0 = table[first + 2 * i + 1];
    let e1 = table[first + 2 * (i + 1)];
    let f1 = table[first + 2 * (i + 1) + 1];
    let f = f0 + (f1 - f0) * ((a - e0) / (e1 - e0));
    if eps < 0.0 {
        -f
    } else {
        f
    }
}

impl ModalStiffness {
    /// Largest tangent stiffness (for the time step of §3.3): max eigenvalue bound of K by the
    /// row-sum norm, or the steepest table segment.
    pub fn max_tangent(&self, n: usize) -> f64 {
        match self {
            ModalStiffness::Linear(k) => (0..n)
                .map(|r| (0..n).map(|c| k[r * n + c].abs() as f64).sum::<f64>())
                .fold(0.0, f64::max),
            ModalStiffness::Table(t) => t
                .windows(2)
                .map(|w| ((w[1][1] - w[0][1]) / (w[1][0] - w[0][0])) as f64)
                .fold(0.0, f64::max),
        }
    }

    /// Force of a table at ε (the host-side view of `table_force`).
    pub fn force_1d(&self, eps: f32) -> f32 {
        match self {
            ModalStiffness::Linear(k) => k[0] * eps,
            ModalStiffness::Table(t) => {
                let flat: Vec<f32> = t.iter().flat_map(|p| [p[0], p[1]]).collect();
                table_force(&flat, 0, t.len(), eps)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_interpolates_and_is_odd() {
        let s = ModalStiffness::Table(PAPER_COMPACTION_TABLE.to_vec());
        assert!((s.force_1d(0.004) - 4.12).abs() < 1e-4);
        assert!((s.force_1d(0.006) - 0.5 * (4.12 + 11.95)).abs() < 1e-3);
        assert!((s.force_1d(-0.006) + 0.5 * (4.12 + 11.95)).abs() < 1e-3);
        // beyond the end: end slope
        let slope = (1974.62 - 1777.76) / (0.16 - 0.15199);
        assert!((s.force_1d(0.17) - (1974.62 + slope * 0.01)).abs() < 0.5);
    }
}
