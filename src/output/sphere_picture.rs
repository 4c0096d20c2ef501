//! A PNG of a sphere packing: on the left an orthographic view along +y (x to the right, z up),
//! each sphere shaded as a lit ball and coloured by its pressure (−tr σ_i/3, scaled by the
//! 95th percentile), nearer spheres hiding farther ones (a depth buffer); on the right the slice
//! y = y_mid through the packing (the discs where the plane cuts the spheres), same colours.

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

/// Writes the picture (width × (width/2 + 40) pixels) with `caption` on top.
pub fn render(path: &Path, s: &SphereSnapshot, width: u32, caption: &str) -> anyhow::Result<()> {
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
        for (text, x, y) in [
            (caption.to_string(), 6, 4),
            (
                "view along +y (x right, z up); colour: pressure / its 95th percentile".to_string(),
                6,
                22,
            ),
            (format!("slice y = {y_mid:.4e}"), panel as i32 + 6, top as i32 + 2),
        ] {
            root.draw(&Text::new(text, (x, y), font.clone()))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(())
    })
}
