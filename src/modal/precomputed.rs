//! Interpolation along precomputed level sets (§3.1.4, eq 49–50), the alternative to the
//! pullback: for one mode, fields φ_{ε_p} are recomputed directly from the deformed surface
//! (§3.1.1) at sample amplitudes ε_p before the run; at run time φ(x) = Σ_p w_p(ε) φ_{ε_p}(x) with
//! linear (hat) weights w_p in ε. CPU only in phase 1 (compared with the pullback in
//! tests/modal_validation.rs).

use super::body::ModalBody;
use super::level_set::{polygon_sdf, LevelSet};

#[derive(Clone, Debug)]
pub struct PrecomputedLevelSets {
    /// Increasing sample amplitudes ε_p.
    pub samples: Vec<f32>,
    pub fields: Vec<LevelSet>,
}

impl PrecomputedLevelSets {
    /// Fields of a one-mode body at `samples`, each the exact distance to the deformed polygon of
    /// the body's surface nodes p + ε_p Φ(p) on the body's grid.
    pub fn build(body: &ModalBody, samples: &[f32]) -> PrecomputedLevelSets {
        let g = &body.level_set.grid;
        let fields = samples
            .iter()
            .map(|&e| {
                let poly: Vec<[f64; 2]> = body
                    .nodes
                    .iter()
                    .map(|p| {
                        let p64 = [p[0] as f64, p[1] as f64];
                        let u = body.modes[0].eval_f64(g, p64);
                        [p64[0] + e as f64 * u[0], p64[1] + e as f64 * u[1]]
                    })
                    .collect();
                LevelSet::from_fn(g.clone(), |x| polygon_sdf(&poly, x))
            })
            .collect();
        PrecomputedLevelSets {
            samples: samples.to_vec(),
            fields,
        }
    }

    /// eq 49: weights of the two samples around ε (clamped to the sampled range).
    pub fn weights(&self, eps: f32) -> Vec<f32> {
        let s = &self.samples;
        let mut w = vec![0.0; s.len()];
        if eps <= s[0] {
            w[0] = 1.0;
        } else if eps >= s[s.len() - 1] {
            w[s.len() - 1] = 1.0;
        } else {
            let i = s.windows(2).position(|p| eps <= p[1]).unwrap();
            let t = (eps - s[i]) / (s[i + 1] - s[i]);
            w[i] = 1.0 - t;
            w[i + 1] = t;
        }
        w
    }

    /// φ(q, ε) = Σ_p w_p(ε) φ_{ε_p}(q) (eq 49; eq 50 with one mode).
    pub fn query(&self, q: [f32; 2], eps: f32) -> f32 {
        self.weights(eps)
            .iter()
            .zip(&self.fields)
            .filter(|(w, _)| **w != 0.0)
            .map(|(w, f)| w * f.bilinear(q))
            .sum()
    }
}
