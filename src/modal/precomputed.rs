//! Interpolation along precomputed level sets (§3.1.4, eq 49–50), the alternative to the
//! pullback: for each mode α, fields φ_{ε_α,p} are recomputed directly from the deformed surface
//! (§3.1.1) at sample amplitudes ε_p before the run; at run time φ^(α)(x) = Σ_p w_p(ε_α) φ_{ε_α,p}(x)
//! with linear (hat) weights w_p in ε_α (eq 49).
//!
//! Several modes (eq 50). As printed, eq 50 sums N_modes interpolated fields, each of which is
//! already a whole signed distance (≈ N_modes φ). We read it as the superposition of each mode's
//! change of the reference field: φ = φ0 + Σ_α (φ^(α) − φ0) = Σ_α φ^(α) − (N_modes − 1) φ0, with
//! the fields of mode α computed with the other modes at zero. With one mode this is eq 49 exactly.
//!
//! - [`PrecomputedLevelSets`]: the fields of one mode (host side; also used by the accuracy case
//!   4 of `validation.rs`).
//! - [`pack_body`]: the fields of every mode of a body into the flat `pre_ls` array of the
//!   steppers (record [`ModalQueryRec`]).
//! - [`ls_precomputed`]: the stepper's query, twin of `ls_precomputed` in shaders/modal_lib.wgsl
//!   (same structure as `contact::ls_pullback`: the four corners of q's cell, then bilinear
//!   interpolation and its gradient).

use super::body::ModalBody;
use super::layout::*;
use super::level_set::{grid_of, ls_cell, ls_interp};
use super::level_set::{polygon_sdf, LevelSet};
use super::packed::Packed;
use super::MAX_MODES;

#[derive(Clone, Debug)]
pub struct PrecomputedLevelSets {
    /// Increasing sample amplitudes ε_p.
    pub samples: Vec<f32>,
    pub fields: Vec<LevelSet>,
}

impl PrecomputedLevelSets {
    /// Fields of mode 0 of a body at `samples` (see [`PrecomputedLevelSets::build_mode`]).
    pub fn build(body: &ModalBody, samples: &[f32]) -> PrecomputedLevelSets {
        PrecomputedLevelSets::build_mode(body, 0, samples)
    }

    /// Fields of mode `mode` of a body at `samples`, each the exact distance to the deformed
    /// polygon of the body's surface nodes p + ε_p Φ_mode(p) on the body's grid.
    pub fn build_mode(body: &ModalBody, mode: usize, samples: &[f32]) -> PrecomputedLevelSets {
        let g = &body.level_set.grid;
        let fields = samples
            .iter()
            .map(|&e| {
                let poly: Vec<[f64; 2]> = body
                    .nodes
                    .iter()
                    .map(|p| {
                        let p64 = [p[0] as f64, p[1] as f64];
                        let u = body.modes[mode].eval_f64(g, p64);
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

/// Appends the sample amplitudes and the fields of every mode of `body` to `pre_ls` and returns
/// the body's query record (pullback when the body does not ask for precomputed level sets).
pub fn pack_body(body: &ModalBody, pre_ls: &mut Vec<f32>) -> ModalQueryRec {
    let samples = match &body.query {
        super::body::LevelSetQuery::Pullback => {
            return ModalQueryRec {
                kind: QUERY_PULLBACK,
                n_samples: 0,
                samples_first: 0,
                fields_first: 0,
            }
        }
        super::body::LevelSetQuery::Precomputed { samples } => samples,
    };
    let samples_first = pre_ls.len() as u32;
    pre_ls.extend_from_slice(samples);
    let fields_first = pre_ls.len() as u32;
    for m in 0..body.n_modes().min(MAX_MODES) {
        for f in PrecomputedLevelSets::build_mode(body, m, samples).fields {
            pre_ls.extend_from_slice(&f.phi);
        }
    }
    ModalQueryRec {
        kind: QUERY_PRECOMPUTED,
        n_samples: samples.len() as u32,
        samples_first,
        fields_first,
    }
}

/// Interval i and weight t of ε among the samples (eq 49 hat weights: w_i = 1 − t, w_{i+1} = t),
/// clamped to the sampled range. Twin of `pre_interval` in modal_lib.wgsl.
pub fn pre_interval(pre: &[f32], first: usize, n: usize, eps: f32) -> (usize, f32) {
    let mut i = 0usize;
    while i + 2 < n && eps > pre[first + i + 1] {
        i += 1;
    }
    let s0 = pre[first + i];
    let s1 = pre[first + i + 1];
    let t = ((eps - s0) / (s1 - s0)).clamp(0.0, 1.0);
    (i, t)
}

/// Deformed level set of body `b` (amplitudes `eps`) at q, body frame, from the precomputed
/// fields: (φ, ∂φ/∂x, ∂φ/∂y, inside) as `contact::ls_pullback` returns it. At each corner c of
/// q's cell, φ(c) = Σ_α [(1 − t_α) φ_{α,i}(c) + t_α φ_{α,i+1}(c)] − (N_modes − 1) φ0(c)
/// (eq 49–50), then bilinear interpolation. Twin of `ls_precomputed` in modal_lib.wgsl.
pub fn ls_precomputed(sc: &Packed, b: &ModalBodyRec, qr: &ModalQueryRec, eps: &[f32; 4], q: [f32; 2]) -> [f32; 4] {
    let Some((i, j, fx, fy)) = ls_cell(b, q) else {
        return [1.0e30, 0.0, 0.0, 0.0];
    };
    let g = grid_of(b);
    let len = g.len();
    let ns = qr.n_samples as usize;
    let nm = b.n_modes.min(MAX_MODES as u32) as usize;
    let mut v = [0.0f32; 4];
    for (c, (di, dj)) in [(0u32, 0u32), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
        let node = g.index(i + di, j + dj);
        let mut acc = 0.0f32;
        for (a, &e) in eps.iter().enumerate().take(nm) {
            let (p, t) = pre_interval(&sc.pre_ls, qr.samples_first as usize, ns, e);
            let f0 = qr.fields_first as usize + (a * ns + p) * len + node;
            // eq 49: hat weights between the two samples around ε_α.
            acc += (1.0 - t) * sc.pre_ls[f0] + t * sc.pre_ls[f0 + len];
        }
        // eq 50: superposition of the modes' changes of φ0.
        v[c] = acc - (nm as f32 - 1.0) * sc.phi0[b.ls_first as usize + node];
    }
    ls_interp(v, fx, fy, b.h)
}
