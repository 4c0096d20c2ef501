//! A PNG of the bead bodies' maximum shear stress |σ1 − σ3|/2 (the paper's Fig. 7 and 9): the
//! slice y = y_mid through the beads' middle (the beads within half their spacing of it), x to
//! the right and z up, each bead a disc of its spacing coloured by its shear over the largest
//! in the slice (blue → red).

use super::sphere_picture::{colour, write_rgb_png};
use crate::scenario::beads::BeadsBuilt;
use crate::spheres::precision::df3_value;
use crate::spheres::SphereState;
use std::path::Path;

/// Writes the picture (width × (width + 40) pixels) with `caption` on top; `tau` per bead.
pub fn render(
    path: &Path,
    bb: &BeadsBuilt,
    states: &[SphereState],
    tau: &[f64],
    width: u32,
    caption: &str,
) -> anyhow::Result<()> {
    let n = bb.n_beads();
    let panel = width.max(64) as usize;
    let top = 40usize;
    let (w, h) = (panel, panel + top);
    let centres: Vec<[f64; 3]> = states[..n].iter().map(|s| df3_value(s.pos_hi, s.pos_lo)).collect();
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for (c, l) in centres.iter().zip(&bb.spacing) {
        for k in 0..3 {
            lo[k] = lo[k].min(c[k] - 0.5 * l);
            hi[k] = hi[k].max(c[k] + 0.5 * l);
        }
    }
    let y_mid = 0.5 * (lo[1] + hi[1]);
    let slice: Vec<usize> = (0..n)
        .filter(|&i| (centres[i][1] - y_mid).abs() <= 0.5 * bb.spacing[i])
        .collect();
    let t_max = slice
        .iter()
        .map(|&i| tau[i])
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let span = (hi[0] - lo[0]).max(hi[2] - lo[2]).max(1e-30);
    let scale = 0.92 * panel as f64 / span;
    let (cx, cz) = (0.5 * (lo[0] + hi[0]), 0.5 * (lo[2] + hi[2]));
    let mut img = vec![[255u8; 3]; w * h];
    for &i in &slice {
        let px = 0.5 * panel as f64 + (centres[i][0] - cx) * scale;
        let pz = top as f64 + 0.5 * panel as f64 - (centres[i][2] - cz) * scale;
        let rp = (0.5 * bb.spacing[i] * scale).max(0.7);
        let base = colour(tau[i] / t_max);
        let (x0, x1) = (
            (px - rp).floor().max(0.0) as usize,
            ((px + rp).ceil() as usize).min(w - 1),
        );
        let (z0, z1) = (
            (pz - rp).floor().max(top as f64) as usize,
            ((pz + rp).ceil() as usize).min(h - 1),
        );
        for yy in z0..=z1 {
            for xx in x0..=x1 {
                let (dx, dz) = (xx as f64 + 0.5 - px, yy as f64 + 0.5 - pz);
                if dx * dx + dz * dz <= rp * rp {
                    img[yy * w + xx] = base.map(|x| (255.0 * x.clamp(0.0, 1.0)) as u8);
                }
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
                format!("slice y = {y_mid:.4e} (x right, z up); colour: |σ1 − σ3|/2 / {t_max:.4e}"),
                6,
                22,
            ),
        ],
    )
}
