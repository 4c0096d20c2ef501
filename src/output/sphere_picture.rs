//! A PNG of a sphere packing: on the left an orthographic view along +y (x to the right, z up),
//! each sphere shaded as a lit ball and coloured by its pressure (−tr σ_i/3, scaled by the
//! 95th percentile), nearer spheres hiding farther ones (a depth buffer); on the right the slice
//! y = y_mid through the packing (the discs where the plane cuts the spheres), same colours.
//!
//! A membrane (`[spheres.membrane]`, `render_with`) is drawn as its triangles: in the view, the
//! far half (patches whose outward normal points away from the viewer) filled grey behind the
//! grains (depth-tested, shaded by the normal), the near half as a grey wireframe over them (so
//! the grains stay visible); in the slice, the membrane's cut by the plane as dark lines.

use super::atomic;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::observables::sphere_pressure;
use crate::spheres::precision::df3_value;
use plotters::prelude::*;
use std::path::Path;

/// Blue → cyan → yellow → red for t in [0, 1].
pub(crate) fn colour(t: f64) -> [f64; 3] {
    let t = t.clamp(0.0, 1.0);
    let stops = [
        [0.23, 0.30, 0.75],
        [0.35, 0.75, 0.85],
        [0.95, 0.85, 0.30],
        [0.80, 0.15, 0.15],
    ];
    let x = t * 3.0;
    let k = (x.floor() as usize).min(2);
    let f = x - k as f64;
    [0, 1, 2].map(|c| stops[k][c] * (1.0 - f) + stops[k + 1][c] * f)
}

/// A membrane to draw with the spheres: its vertices are the spheres `first ..`.
#[derive(Clone, Copy, Debug)]
pub struct MembraneView<'a> {
    pub first: usize,
    pub triangles: &'a [[u32; 3]],
}

/// Writes the picture (width × (width/2 + 40) pixels) with `caption` on top.
pub fn render(path: &Path, s: &SphereSnapshot, width: u32, caption: &str) -> anyhow::Result<()> {
    render_with(path, s, width, caption, None)
}

/// `render`, with a membrane drawn as the module doc says.
pub fn render_with(
    path: &Path,
    s: &SphereSnapshot,
    width: u32,
    caption: &str,
    membrane: Option<MembraneView>,
) -> anyhow::Result<()> {
    let panel = (width / 2).max(32) as usize;
    let top = 40usize;
    let (w, h) = (2 * panel, panel + top);
    let centres: Vec<[f64; 3]> = s.states.iter().map(|st| df3_value(st.pos_hi, st.pos_lo)).collect();
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for (c, st) in centres.iter().zip(&s.states) {
        for k in 0..3 {
            lo[k] = lo[k].min(c[k] - st.radius as f64);
            hi[k] = hi[k].max(c[k] + st.radius as f64);
        }
    }
    let span = (hi[0] - lo[0]).max(hi[2] - lo[2]).max(1e-30);
    let scale = 0.92 * panel as f64 / span;
    let (cx, cz) = (0.5 * (lo[0] + hi[0]), 0.5 * (lo[2] + hi[2]));
    let to_px = |x: f64, z: f64, off: usize| {
        (
            off as f64 + 0.5 * panel as f64 + (x - cx) * scale,
            top as f64 + 0.5 * panel as f64 - (z - cz) * scale,
        )
    };
    let p = sphere_pressure(s);
    let mut sorted: Vec<f32> = p.iter().copied().filter(|x| x.is_finite()).collect();
    sorted.sort_by(f32::total_cmp);
    let p95 = sorted
        .get((sorted.len() as f64 * 0.95) as usize)
        .copied()
        .unwrap_or(0.0)
        .max(f32::MIN_POSITIVE) as f64;
    let mut img = vec![[255u8; 3]; w * h];
    let mut depth = vec![f64::INFINITY; w * h];
    let y_mid = 0.5 * (lo[1] + hi[1]);
    for (i, (c, st)) in centres.iter().zip(&s.states).enumerate() {
        let r = st.radius as f64;
        let base = colour(p[i] as f64 / p95);
        // Left: the ball; right: its cut by the plane y = y_mid, if any.
        let cut = r * r - (c[1] - y_mid).powi(2);
        for (off, rad, lit) in [(0usize, r, true), (panel, cut.max(0.0).sqrt(), false)] {
            if !lit && cut <= 0.0 {
                continue;
            }
            let (px, pz) = to_px(c[0], c[2], off);
            let rp = rad * scale;
            let (x0, x1) = (
                (px - rp).floor().max(off as f64) as usize,
                ((px + rp).ceil() as usize).min(off + panel - 1),
            );
            let (z0, z1) = (
                (pz - rp).floor().max(top as f64) as usize,
                ((pz + rp).ceil() as usize).min(h - 1),
            );
            for yy in z0..=z1 {
                for xx in x0..=x1 {
                    let (dx, dz) = ((xx as f64 + 0.5 - px) / rp, (yy as f64 + 0.5 - pz) / rp);
                    let q = dx * dx + dz * dz;
                    if q > 1.0 {
                        continue;
                    }
                    let nz = (1.0 - q).sqrt();
                    let d = if lit { c[1] - r * nz } else { 0.0 };
                    let k = yy * w + xx;
                    if lit && d >= depth[k] {
                        continue;
                    }
                    depth[k] = d;
                    // Lambert light from the viewer and a little from the upper left.
                    let shade = if lit {
                        0.35 + 0.65 * (0.8 * nz + 0.2 * (-dx * 0.5 - dz * 0.5).max(0.0))
                    } else if q > 0.85 {
                        0.55
                    } else {
                        1.0
                    };
                    img[k] = base.map(|x| (255.0 * (x * shade).clamp(0.0, 1.0)) as u8);
                }
            }
        }
    }
    if let Some(m) = membrane {
        let px = |x: [f64; 3], off: usize| {
            let (a, b) = to_px(x[0], x[2], off);
            [a, b, x[1]]
        };
        let tri = |t: &[u32; 3]| t.map(|v| centres[m.first + v as usize]);
        let mut raster = Raster {
            img: &mut img,
            depth: &mut depth,
            w,
            top,
            h,
        };
        for t in m.triangles {
            let [a, b, c] = tri(t);
            let n = cross(sub(b, a), sub(c, a));
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt().max(1e-300);
            let (pa, pb, pc) = (px(a, 0), px(b, 0), px(c, 0));
            if n[1] > 0.0 {
                // The far half: filled behind the grains.
                let shade = 0.55 + 0.35 * n[1] / len;
                raster.triangle([pa, pb, pc], (0, panel), MEMBRANE.map(|x| x * shade));
            }
        }
        for t in m.triangles {
            let [a, b, c] = tri(t);
            let n = cross(sub(b, a), sub(c, a));
            if n[1] <= 0.0 {
                // The near half: its edges over everything.
                let (pa, pb, pc) = (px(a, 0), px(b, 0), px(c, 0));
                for (p, q) in [(pa, pb), (pb, pc), (pc, pa)] {
                    raster.line(p, q, (0, panel), MEMBRANE_LINE, 1);
                }
            }
            // The slice: where the plane y = y_mid cuts the triangle (a corner on the plane
            // counts as above it, so a ring through the plane keeps its cut).
            let above = |p: &[f64; 3]| p[1] >= y_mid;
            let cut: Vec<[f64; 3]> = [(a, b), (b, c), (c, a)]
                .iter()
                .filter(|(p, q)| above(p) != above(q))
                .map(|(p, q)| {
                    let f = (y_mid - p[1]) / (q[1] - p[1]);
                    [0, 1, 2].map(|k| p[k] + f * (q[k] - p[k]))
                })
                .collect();
            if cut.len() == 2 {
                raster.line(px(cut[0], panel), px(cut[1], panel), (panel, panel), SLICE_LINE, 2);
            }
        }
    }
    write_rgb_png(
        path,
        &img,
        (w, h),
        &[
            (caption.to_string(), 6, 4),
            (
                "view along +y (x right, z up); colour: pressure / its 95th percentile".to_string(),
                6,
                22,
            ),
            (format!("slice y = {y_mid:.4e}"), panel as i32 + 6, top as i32 + 2),
        ],
    )
}

/// Writes an RGB raster (`w × h`, row-major, white = [255; 3] left undrawn) as a PNG with lines
/// of text at pixel positions (atomically: nothing half-written on failure).
pub fn write_rgb_png(
    path: &Path,
    img: &[[u8; 3]],
    (w, h): (usize, usize),
    texts: &[(String, i32, i32)],
) -> anyhow::Result<()> {
    atomic::write_with(path, |tmp| {
        let root = BitMapBackend::new(tmp, (w as u32, h as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        for (k, px) in img.iter().enumerate() {
            if *px != [255; 3] {
                root.draw_pixel(((k % w) as i32, (k / w) as i32), &RGBColor(px[0], px[1], px[2]))
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
            }
        }
        crate::plot::register_font()?;
        let font = (crate::plot::FONT, 14).into_font().color(&BLACK);
        for (text, x, y) in texts {
            root.draw(&Text::new(text.as_str(), (*x, *y), font.clone()))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(())
    })
}

/// The membrane's colours (`render_with`): the far half's fill, the near half's wireframe and
/// the slice's cut.
const MEMBRANE: [f64; 3] = [0.85, 0.85, 0.9];
const MEMBRANE_LINE: [f64; 3] = [0.45, 0.45, 0.5];
const SLICE_LINE: [f64; 3] = [0.1, 0.1, 0.1];

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The picture being drawn: pixels, the view's depth buffer (y), size and the caption's height.
struct Raster<'a> {
    img: &'a mut [[u8; 3]],
    depth: &'a mut [f64],
    w: usize,
    top: usize,
    h: usize,
}

impl Raster<'_> {
    /// Whether pixel (x, y) lies in the panel of columns `off .. off + width` below the caption.
    fn inside(&self, x: i64, y: i64, (off, width): (usize, usize)) -> bool {
        x >= off as i64 && x < (off + width) as i64 && y >= self.top as i64 && y < self.h as i64
    }

    /// A filled triangle (pixel x, pixel y, depth y per corner), depth-tested.
    fn triangle(&mut self, p: [[f64; 3]; 3], panel: (usize, usize), colour: [f64; 3]) {
        let area = (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]);
        if area.abs() < 1e-12 {
            return;
        }
        let lo = |k: usize| p.iter().map(|q| q[k]).fold(f64::INFINITY, f64::min).floor() as i64;
        let hi = |k: usize| p.iter().map(|q| q[k]).fold(f64::NEG_INFINITY, f64::max).ceil() as i64;
        for y in lo(1)..=hi(1) {
            for x in lo(0)..=hi(0) {
                if !self.inside(x, y, panel) {
                    continue;
                }
                let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5);
                // Barycentric weights of the pixel's centre.
                let e = |a: [f64; 3], b: [f64; 3]| (b[0] - a[0]) * (fy - a[1]) - (fx - a[0]) * (b[1] - a[1]);
                let l = [e(p[1], p[2]) / area, e(p[2], p[0]) / area, e(p[0], p[1]) / area];
                if l.iter().any(|&v| v < 0.0) {
                    continue;
                }
                let d = l[0] * p[0][2] + l[1] * p[1][2] + l[2] * p[2][2];
                let k = y as usize * self.w + x as usize;
                if d >= self.depth[k] {
                    continue;
                }
                self.depth[k] = d;
                self.img[k] = colour.map(|c| (255.0 * c.clamp(0.0, 1.0)) as u8);
            }
        }
    }

    /// A line `thick` pixels wide from p to q (pixel coordinates), drawn over everything.
    fn line(&mut self, p: [f64; 3], q: [f64; 3], panel: (usize, usize), colour: [f64; 3], thick: i64) {
        let n = ((q[0] - p[0]).abs().max((q[1] - p[1]).abs()).ceil() as usize).max(1);
        let c = colour.map(|c| (255.0 * c) as u8);
        for i in 0..=n {
            let f = i as f64 / n as f64;
            let (x, y) = (
                (p[0] + f * (q[0] - p[0])).floor() as i64,
                (p[1] + f * (q[1] - p[1])).floor() as i64,
            );
            for dy in 0..thick {
                for dx in 0..thick {
                    if self.inside(x + dx, y + dy, panel) {
                        self.img[(y + dy) as usize * self.w + (x + dx) as usize] = c;
                    }
                }
            }
        }
    }
}
