//! Modal mass and stiffness by quadrature over the reference shape Ω (φ0 < 0):
//! M_αβ = ∫ ρ Φ_α·Φ_β dV (eq 8), K_αβ = ∫ (C : E(Φ_α)) : E(Φ_β) dV (eq 4), in 2D plane stress
//! with unit out-of-plane width. Each level-set cell is split into `sub` × `sub` sub-cells; a
//! sub-cell centre inside the shape (bilinear φ0 < 0) carries its area. Strains E = sym ∇Φ by
//! central differences of Φ (step h/100). f64 throughout.
#![allow(clippy::needless_range_loop)] // matrix index loops

use super::level_set::{Grid, LevelSet};
use super::modes::Mode;

/// Isotropic plane-stress elasticity: Young's modulus, Poisson's ratio.
#[derive(Clone, Copy, Debug)]
pub struct Elastic {
    pub young: f64,
    pub poisson: f64,
}

/// (M, K) as row-major n×n matrices, n = modes.len().
pub fn modal_matrices(ls: &LevelSet, modes: &[Mode], density: f64, mat: Elastic, sub: u32) -> (Vec<f64>, Vec<f64>) {
    let n = modes.len();
    let g: &Grid = &ls.grid;
    let h = g.h as f64;
    let hs = h / sub as f64;
    let area = hs * hs;
    let fd = h / 100.0;
    let c = mat.young / (1.0 - mat.poisson * mat.poisson);
    let (mut m, mut k) = (vec![0.0; n * n], vec![0.0; n * n]);
    let mut u = vec![[0.0; 2]; n];
    let mut e = vec![[0.0; 3]; n]; // (E_xx, E_yy, 2 E_xy)
    for j in 0..g.ny - 1 {
        for i in 0..g.nx - 1 {
            let o = g.node_f64(i, j);
            for sj in 0..sub {
                for si in 0..sub {
                    let p = [o[0] + (si as f64 + 0.5) * hs, o[1] + (sj as f64 + 0.5) * hs];
                    if ls.bilinear([p[0] as f32, p[1] as f32]) >= 0.0 {
                        continue;
                    }
                    for (a, mode) in modes.iter().enumerate() {
                        u[a] = mode.eval_f64(g, p);
                        let xp = mode.eval_f64(g, [p[0] + fd, p[1]]);
                        let xm = mode.eval_f64(g, [p[0] - fd, p[1]]);
                        let yp = mode.eval_f64(g, [p[0], p[1] + fd]);
                        let ym = mode.eval_f64(g, [p[0], p[1] - fd]);
                        let dux_dx = (xp[0] - xm[0]) / (2.0 * fd);
                        let duy_dx = (xp[1] - xm[1]) / (2.0 * fd);
                        let dux_dy = (yp[0] - ym[0]) / (2.0 * fd);
                        let duy_dy = (yp[1] - ym[1]) / (2.0 * fd);
                        e[a] = [dux_dx, duy_dy, dux_dy + duy_dx];
                    }
                    for a in 0..n {
                        // σ = C : E(Φ_α), plane stress.
                        let sxx = c * (e[a][0] + mat.poisson * e[a][1]);
                        let syy = c * (e[a][1] + mat.poisson * e[a][0]);
                        let sxy = c * 0.5 * (1.0 - mat.poisson) * e[a][2];
                        for b in 0..n {
                            m[a * n + b] += density * (u[a][0] * u[b][0] + u[a][1] * u[b][1]) * area;
                            k[a * n + b] += (sxx * e[b][0] + syy * e[b][1] + sxy * e[b][2]) * area;
                        }
                    }
                }
            }
        }
    }
    (m, k)
}

/// Inverse of a small symmetric positive-definite matrix (Gauss–Jordan, f64).
pub fn invert(a: &[f64], n: usize) -> anyhow::Result<Vec<f64>> {
    let mut m = a.to_vec();
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    for col in 0..n {
        let piv = (col..n)
            .max_by(|&x, &y| m[x * n + col].abs().total_cmp(&m[y * n + col].abs()))
            .unwrap();
        anyhow::ensure!(m[piv * n + col].abs() > 1e-300, "modal mass matrix is singular");
        for c in 0..n {
            m.swap(col * n + c, piv * n + c);
            inv.swap(col * n + c, piv * n + c);
        }
        let d = m[col * n + col];
        for c in 0..n {
            m[col * n + c] /= d;
            inv[col * n + c] /= d;
        }
        for r in 0..n {
            if r != col {
                let f = m[r * n + col];
                for c in 0..n {
                    m[r * n + c] -= f * m[col * n + c];
                    inv[r * n + c] -= f * inv[col * n + c];
                }
            }
        }
    }
    Ok(inv)
}
