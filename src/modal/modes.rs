//! Deformation modes Φ_α(p) in body reference coordinates (eq 1: u = ε_α Φ_α).
//!
//! - `Bending`: the first bending mode of a simply supported beam, 2D form of eq 51 with the
//!   beam axis along x from `x_left` to `x_left + length` and mid-plane y = `y_mid`:
//!   ξ = x − x_left, z = y − y_mid, u_x = z ε (π/L) cos(πξ/L), u_y = −ε sin(πξ/L).
//!   Normalised so that u_y = −ε at mid-span (§4.1: ε is the mid-span deflection).
//! - `Grid`: a tabulated mode, Φ given at the nodes of the body's level-set grid and interpolated
//!   bilinearly elsewhere (§4.2, "the shape function is defined on a mesh").
//!
//! `mode_eval` and `mode_at_node` mirror the WGSL functions of the same names (modal_lib.wgsl).

use super::level_set::Grid;
use std::f32::consts::PI;

#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    Bending {
        length: f32,
        x_left: f32,
        y_mid: f32,
    },
    /// Φ_x, Φ_y at the grid nodes (row-major, x fastest), same grid as the body's level set.
    Grid {
        ux: Vec<f32>,
        uy: Vec<f32>,
    },
}

impl Mode {
    /// Tabulates `f` (in f64) at the nodes of `grid`.
    pub fn tabulate(grid: &Grid, f: impl Fn([f64; 2]) -> [f64; 2]) -> Mode {
        let (mut ux, mut uy) = (Vec::with_capacity(grid.len()), Vec::with_capacity(grid.len()));
        for j in 0..grid.ny {
            for i in 0..grid.nx {
                let u = f(grid.node_f64(i, j));
                ux.push(u[0] as f32);
                uy.push(u[1] as f32);
            }
        }
        Mode::Grid { ux, uy }
    }

    /// Φ at the reference point p (f32, as the kernels evaluate it).
    pub fn eval(&self, grid: &Grid, p: [f32; 2]) -> [f32; 2] {
        match self {
            Mode::Bending { length, x_left, y_mid } => bending_mode(*length, *x_left, *y_mid, p),
            Mode::Grid { ux, uy } => [
                super::level_set::ls_bilinear(grid, ux, 0, p),
                super::level_set::ls_bilinear(grid, uy, 0, p),
            ],
        }
    }

    /// Φ at grid node (i, j): the stored value for a tabulated mode (no interpolation), the closed
    /// form at the node position otherwise. Used by the pullback at the cell corners (eq 47).
    pub fn at_node(&self, grid: &Grid, i: u32, j: u32) -> [f32; 2] {
        match self {
            Mode::Bending { .. } => self.eval(grid, grid.node(i, j)),
            Mode::Grid { ux, uy } => [ux[grid.index(i, j)], uy[grid.index(i, j)]],
        }
    }

    /// Φ in f64 for quadrature (eq 4, 8).
    pub fn eval_f64(&self, grid: &Grid, p: [f64; 2]) -> [f64; 2] {
        match self {
            Mode::Bending { length, x_left, y_mid } => {
                let l = *length as f64;
                let xi = p[0] - *x_left as f64;
                let z = p[1] - *y_mid as f64;
                let k = std::f64::consts::PI / l;
                [z * k * (k * xi).cos(), -(k * xi).sin()]
            }
            Mode::Grid { ux, uy } => [bilinear_f64(grid, ux, p), bilinear_f64(grid, uy, p)],
        }
    }
}

/// 2D eq 51 at reference point p. Mirrors `bending_mode` in modal_lib.wgsl.
pub fn bending_mode(length: f32, x_left: f32, y_mid: f32, p: [f32; 2]) -> [f32; 2] {
    let k = PI / length;
    let a = k * (p[0] - x_left);
    let z = p[1] - y_mid;
    let (sn, cs) = super::frame::sin_cos_det(a);
    [z * k * cs, -sn]
}

fn bilinear_f64(grid: &Grid, data: &[f32], p: [f64; 2]) -> f64 {
    let h = grid.h as f64;
    let gx = ((p[0] - grid.origin[0] as f64) / h).clamp(0.0, (grid.nx - 1) as f64);
    let gy = ((p[1] - grid.origin[1] as f64) / h).clamp(0.0, (grid.ny - 1) as f64);
    let i = (gx.floor() as u32).min(grid.nx - 2);
    let j = (gy.floor() as u32).min(grid.ny - 2);
    let fx = gx - i as f64;
    let fy = gy - j as f64;
    let at = |a: u32, b: u32| data[(b * grid.nx + a) as usize] as f64;
    let v0 = at(i, j) * (1.0 - fx) + at(i + 1, j) * fx;
    let v1 = at(i, j + 1) * (1.0 - fx) + at(i + 1, j + 1) * fx;
    v0 * (1.0 - fy) + v1 * fy
}
