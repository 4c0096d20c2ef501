//! Reference signed-distance field φ0 on a regular grid (§3, Fig. 2): negative inside, positive
//! outside (eq 45), sampled at grid nodes and interpolated bilinearly (the 2D form of the
//! trilinear interpolation of LS-DEM). Generated from a polygon (exact distance to its edges) or
//! from an analytic function.
//! Also a modal body's grid and cell lookup and the bilinear interpolation of a cell's corners
//! (`grid_of`, `ls_cell`, `ls_interp`; twins in shaders/modal_lib.wgsl).

use super::layout::ModalBodyRec;

/// A regular grid of nx × ny nodes, node (i, j) at origin + (i, j)·h, in body (reference) coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub origin: [f32; 2],
    pub h: f32,
    pub nx: u32,
    pub ny: u32,
}

impl Grid {
    /// A grid covering [min, max] with spacing h, extended by `margin` cells on every side.
    pub fn covering(min: [f64; 2], max: [f64; 2], h: f64, margin: u32) -> Grid {
        let m = margin as f64 * h;
        let nx = ((max[0] - min[0] + 2.0 * m) / h).ceil() as u32 + 1;
        let ny = ((max[1] - min[1] + 2.0 * m) / h).ceil() as u32 + 1;
        // Centre the grid on the box so a symmetric shape has a symmetric grid.
        let ox = 0.5 * (min[0] + max[0]) - 0.5 * (nx - 1) as f64 * h;
        let oy = 0.5 * (min[1] + max[1]) - 0.5 * (ny - 1) as f64 * h;
        Grid {
            origin: [ox as f32, oy as f32],
            h: h as f32,
            nx,
            ny,
        }
    }

    pub fn len(&self) -> usize {
        (self.nx * self.ny) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position of node (i, j).
    pub fn node(&self, i: u32, j: u32) -> [f32; 2] {
        [self.origin[0] + i as f32 * self.h, self.origin[1] + j as f32 * self.h]
    }

    pub fn node_f64(&self, i: u32, j: u32) -> [f64; 2] {
        [
            self.origin[0] as f64 + i as f64 * self.h as f64,
            self.origin[1] as f64 + j as f64 * self.h as f64,
        ]
    }

    pub fn index(&self, i: u32, j: u32) -> usize {
        (j * self.nx + i) as usize
    }
}

/// A signed-distance field sampled on `grid` (row-major, x fastest).
#[derive(Clone, Debug, PartialEq)]
pub struct LevelSet {
    pub grid: Grid,
    pub phi: Vec<f32>,
}

impl LevelSet {
    /// φ0 from a function of the node position.
    pub fn from_fn(grid: Grid, f: impl Fn([f64; 2]) -> f64) -> LevelSet {
        let mut phi = Vec::with_capacity(grid.len());
        for j in 0..grid.ny {
            for i in 0..grid.nx {
                phi.push(f(grid.node_f64(i, j)) as f32);
            }
        }
        LevelSet { grid, phi }
    }

    /// φ0 of a closed polygon (vertices in order, either orientation) on `grid`.
    pub fn from_polygon(grid: Grid, poly: &[[f64; 2]]) -> LevelSet {
        LevelSet::from_fn(grid, |p| polygon_sdf(poly, p))
    }

    /// Bilinear interpolation of φ0 at p (grid coordinates clamped to the grid, so a query just
    /// outside reads the boundary cell's extension). Twin of `ls_bilinear` in modal_lib.wgsl.
    pub fn bilinear(&self, p: [f32; 2]) -> f32 {
        ls_bilinear(&self.grid, &self.phi, 0, p)
    }
}

/// p's cell of `grid` with p clamped into the grid (a point just outside reads the boundary
/// cell's extension): corner (i, j) and fractions (fx, fy). Twin of `ls_clamped_cell` in
/// modal_lib.wgsl.
pub fn ls_clamped_cell(grid: &Grid, p: [f32; 2]) -> (u32, u32, f32, f32) {
    let gx = ((p[0] - grid.origin[0]) / grid.h).clamp(0.0, (grid.nx - 1) as f32);
    let gy = ((p[1] - grid.origin[1]) / grid.h).clamp(0.0, (grid.ny - 1) as f32);
    let i = (gx.floor() as u32).min(grid.nx - 2);
    let j = (gy.floor() as u32).min(grid.ny - 2);
    (i, j, gx - i as f32, gy - j as f32)
}

/// Bilinear interpolation of a scalar field stored at `first..` on `grid`, the point clamped into
/// the grid. Mirrors `ls_bilinear` of shaders/modal_lib.wgsl.
pub fn ls_bilinear(grid: &Grid, data: &[f32], first: usize, p: [f32; 2]) -> f32 {
    let (i, j, fx, fy) = ls_clamped_cell(grid, p);
    let o = first + (j * grid.nx + i) as usize;
    let n = grid.nx as usize;
    let v = [data[o], data[o + 1], data[o + n], data[o + n + 1]];
    ls_interp(v, fx, fy, grid.h)[0]
}

/// Exact signed distance from p to a closed polygon: distance to the nearest edge, negative
/// inside (crossing-number test).
pub fn polygon_sdf(poly: &[[f64; 2]], p: [f64; 2]) -> f64 {
    let n = poly.len();
    let mut d2 = f64::INFINITY;
    let mut inside = false;
    for a in 0..n {
        let b = (a + 1) % n;
        let (pa, pb) = (poly[a], poly[b]);
        let e = [pb[0] - pa[0], pb[1] - pa[1]];
        let w = [p[0] - pa[0], p[1] - pa[1]];
        let l2 = e[0] * e[0] + e[1] * e[1];
        let t = if l2 > 0.0 {
            ((w[0] * e[0] + w[1] * e[1]) / l2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dx = w[0] - t * e[0];
        let dy = w[1] - t * e[1];
        d2 = d2.min(dx * dx + dy * dy);
        if (pa[1] > p[1]) != (pb[1] > p[1]) {
            let x = pa[0] + (p[1] - pa[1]) / (pb[1] - pa[1]) * e[0];
            if p[0] < x {
                inside = !inside;
            }
        }
    }
    if inside {
        -d2.sqrt()
    } else {
        d2.sqrt()
    }
}

/// Body `b`'s level-set grid.
pub fn grid_of(b: &ModalBodyRec) -> Grid {
    Grid {
        origin: b.origin,
        h: b.h,
        nx: b.nx,
        ny: b.ny,
    }
}

/// q's cell of body `b`'s level-set grid: its corner (i, j) and q's fractions (fx, fy) in it;
/// `None` off the grid (no contact possible there). Twin of `ls_cell` in modal_lib.wgsl.
pub fn ls_cell(b: &ModalBodyRec, q: [f32; 2]) -> Option<(u32, u32, f32, f32)> {
    let gx = (q[0] - b.origin[0]) / b.h;
    let gy = (q[1] - b.origin[1]) / b.h;
    if !(gx >= 0.0 && gy >= 0.0 && gx < (b.nx - 1) as f32 && gy < (b.ny - 1) as f32) {
        return None;
    }
    let i = gx.floor() as u32;
    let j = gy.floor() as u32;
    Some((i, j, gx - i as f32, gy - j as f32))
}

/// Bilinear interpolation of the corner values `v` (order (i, j), (i+1, j), (i, j+1), (i+1, j+1))
/// at fractions (fx, fy) of a cell of spacing h: (φ, ∂φ/∂x, ∂φ/∂y, 1). Twin of `ls_interp` in
/// modal_lib.wgsl.
pub fn ls_interp(v: [f32; 4], fx: f32, fy: f32, h: f32) -> [f32; 4] {
    let phi = (v[0] * (1.0 - fx) + v[1] * fx) * (1.0 - fy) + (v[2] * (1.0 - fx) + v[3] * fx) * fy;
    let dx = ((v[1] - v[0]) * (1.0 - fy) + (v[3] - v[2]) * fy) / h;
    let dy = ((v[2] - v[0]) * (1.0 - fx) + (v[3] - v[1]) * fx) / h;
    [phi, dx, dy, 1.0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polygon_distance_of_a_square() {
        let sq = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]];
        assert!((polygon_sdf(&sq, [0.0, 0.0]) + 1.0).abs() < 1e-12);
        assert!((polygon_sdf(&sq, [3.0, 0.0]) - 2.0).abs() < 1e-12);
        assert!((polygon_sdf(&sq, [2.0, 2.0]) - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn bilinear_is_exact_for_a_plane() {
        let g = Grid::covering([-2.0, -2.0], [2.0, 2.0], 0.5, 1);
        let ls = LevelSet::from_fn(g, |p| 0.3 * p[0] - 0.7 * p[1] + 0.1);
        let v = ls.bilinear([0.37, -0.81]);
        assert!((v - (0.3 * 0.37 + 0.7 * 0.81 + 0.1)).abs() < 1e-5, "{v}");
    }
}
