//! Pictures of the cells (`snapshots/snapshot_NNNNNN.png`), coloured by elastic energy
//! normalised by the mean over the cells, W_i/⟨W⟩, as in the paper's Fig. 30: cells below the mean
//! are white, above it they go from yellow to dark red (≥ 4⟨W⟩). In a scene with cohesive links
//! (tissues, §7, Figs 33, 35) the scale is instead W0 = (f_n0)²/2k_n of the first link law. Walls and beams are drawn as
//! grey lines; modal bodies (coupled runs, `output::modal`) as blue filled outlines over the cells. Rendered with plotters' bitmap backend and the embedded DejaVu Sans font.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::atomic;
use crate::model::*;
use crate::output::modal::{Outline, OutlineSource, MODAL_EDGE, MODAL_FILL};
use crate::output::vtk::mean_cell_energy;
use crate::run::measure::body_energies;
use crate::run::{ObserveCtx, Observer};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const FONT: &str = "softdem-snapshot-sans";

fn font() -> anyhow::Result<()> {
    static OK: OnceLock<bool> = OnceLock::new();
    let ok =
        *OK.get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok());
    anyhow::ensure!(ok, "the embedded DejaVu Sans font could not be parsed");
    Ok(())
}

/// Colour of a normalised energy w = W_i/⟨W⟩ (white below 1, yellow → red → dark red up to 4).
pub fn energy_colour(w: f64) -> RGBColor {
    if !(w >= 1.0) {
        return RGBColor(255, 255, 255);
    }
    let t = ((w - 1.0) / 3.0).clamp(0.0, 1.0);
    // Piecewise linear: (1) light yellow → (2) orange → (3) red → (4) dark red.
    let stops = [
        (255.0, 245.0, 160.0),
        (253.0, 160.0, 50.0),
        (220.0, 40.0, 30.0),
        (110.0, 0.0, 10.0),
    ];
    let x = t * 3.0;
    let k = (x.floor() as usize).min(2);
    let f = x - k as f64;
    let (a, b) = (stops[k], stops[k + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The SPD part of a picture: the scene and its state.
#[derive(Clone, Copy)]
pub struct Cells<'a> {
    pub scene: &'a Scene,
    pub nodes: &'a [NodeState],
    pub bodies: &'a [BodyState],
}

/// Where a snapshot puts a point: the drawing spans the bounding box of what is drawn (SPD
/// nodes widened by their body's radius, modal outline points as they are) at one scale.
#[derive(Clone, Copy, Debug)]
pub struct View {
    lo: [f64; 2],
    hi: [f64; 2],
    /// Pixels per length unit.
    pub scale: f64,
    pub width: u32,
    pub height: u32,
    draw_h: u32,
}

/// Caption band, colour bar and margin widths (pixels).
const TOP: u32 = 36;
const BAR: u32 = 70;
const MARGIN: u32 = 10;

impl View {
    /// The view of `points` (position, radius) in a picture `width` pixels wide.
    pub fn fit(points: impl IntoIterator<Item = ([f64; 2], f64)>, width: u32) -> anyhow::Result<View> {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for (p, r) in points {
            for a in 0..2 {
                if p[a].is_finite() {
                    lo[a] = lo[a].min(p[a] - r);
                    hi[a] = hi[a].max(p[a] + r);
                }
            }
        }
        anyhow::ensure!(lo[0].is_finite(), "nothing finite to draw");
        let span = [(hi[0] - lo[0]).max(1e-12), (hi[1] - lo[1]).max(1e-12)];
        let draw_w = width - BAR - 2 * MARGIN;
        let scale = draw_w as f64 / span[0];
        let draw_h = ((span[1] * scale).ceil() as u32).clamp(64, 4 * width);
        let scale = scale.min(draw_h as f64 / span[1]);
        Ok(View {
            lo,
            hi,
            scale,
            width,
            height: draw_h + TOP + 2 * MARGIN,
            draw_h,
        })
    }

    /// The view of a picture of `cells` and modal `outlines`.
    pub fn of(cells: Option<&Cells>, outlines: &[Outline], width: u32) -> anyhow::Result<View> {
        let spd = cells.into_iter().flat_map(|c| {
            c.nodes
                .iter()
                .zip(&c.scene.nodes)
                .map(|(st, nd)| (st.pos(), c.scene.bodies[nd.body as usize].radius as f64))
        });
        View::fit(spd.chain(outlines.iter().flatten().map(|p| (*p, 0.0))), width)
    }

    /// The pixel of point `p` (x right, y up in the model; rows down in the image).
    pub fn px(&self, p: [f64; 2]) -> (i32, i32) {
        (
            (MARGIN as f64 + (p[0] - self.lo[0]) * self.scale).round() as i32,
            (TOP as f64 + MARGIN as f64 + (self.hi[1] - p[1]) * self.scale).round() as i32,
        )
    }
}

/// Draws one SPD state into a PNG of `width` pixels (height from the scene's aspect ratio).
pub fn render(
    path: &Path,
    scene: &Scene,
    nodes: &[NodeState],
    bodies: &[BodyState],
    width: u32,
    caption: &str,
) -> anyhow::Result<()> {
    render_with_modal(path, Some(Cells { scene, nodes, bodies }), &[], width, caption)
}

/// Draws SPD cells (if any) and modal bodies' outlines (filled in `MODAL_FILL`, over the cells).
pub fn render_with_modal(
    path: &Path,
    cells: Option<Cells>,
    outlines: &[Outline],
    width: u32,
    caption: &str,
) -> anyhow::Result<()> {
    font()?;
    let view = View::of(cells.as_ref(), outlines, width)?;
    // The energy colour bar only where there are cells.
    let has_cells = cells.is_some();
    // Cells coloured by W_i/⟨W⟩ (Fig. 30), or in tissues (§7, Figs 33, 35) by W/W0 with
    // W0 = (f_n0)²/2k_n.
    let (spd_bodies, nodes, energy, mean, label): (&[Body], &[NodeState], _, _, _) = match &cells {
        Some(c) => {
            let energy = body_energies(c.scene, c.nodes, c.bodies);
            let (mean, label) = match super::breaks::link_energy_scale(c.scene) {
                Some(w0) => (w0, "W/W0"),
                None => (mean_cell_energy(c.scene, &energy), "W/<W>"),
            };
            (&c.scene.bodies, c.nodes, energy, mean, label)
        }
        None => (&[], &[], vec![], 0.0, "W/<W>"),
    };
    let (width, height, draw_h, top, bar, margin) = (view.width, view.height, view.draw_h, TOP, BAR, MARGIN);
    let px = |p: [f64; 2]| view.px(p);
    let scale = view.scale;
    let draw = |tmp: &Path| -> anyhow::Result<()> {
        let root = BitMapBackend::new(tmp, (width, height)).into_drawing_area();
        let e = |x: DrawingAreaErrorKind<_>| anyhow::anyhow!("drawing {}: {x:?}", path.display());
        root.fill(&WHITE).map_err(e)?;
        for (b, body) in spd_bodies.iter().enumerate() {
            let pts: Vec<(i32, i32)> = (body.first..body.first + body.count)
                .map(|i| px(nodes[i as usize].pos()))
                .collect();
            let closed = body.flags & BODY_CLOSED != 0;
            let frozen = body.flags & BODY_FROZEN != 0;
            let line_w = ((2.0 * body.radius as f64 * scale).round() as u32).max(1);
            if closed && !frozen {
                let w = if mean > 0.0 { energy[b] / mean } else { 0.0 };
                root.draw(&Polygon::new(pts.clone(), energy_colour(w).filled()))
                    .map_err(e)?;
                let mut ring = pts.clone();
                ring.push(pts[0]);
                root.draw(&PathElement::new(ring, BLACK.stroke_width(line_w.min(3))))
                    .map_err(e)?;
            } else {
                let mut line = pts.clone();
                if closed {
                    line.push(pts[0]);
                }
                root.draw(&PathElement::new(
                    line,
                    RGBColor(90, 90, 90).stroke_width(line_w.max(2)),
                ))
                .map_err(e)?;
            }
        }
        for o in outlines.iter().filter(|o| !o.is_empty()) {
            let pts: Vec<(i32, i32)> = o.iter().map(|p| px(*p)).collect();
            root.draw(&Polygon::new(pts.clone(), MODAL_FILL.filled())).map_err(e)?;
            let mut ring = pts.clone();
            ring.push(pts[0]);
            root.draw(&PathElement::new(ring, MODAL_EDGE.stroke_width(2)))
                .map_err(e)?;
        }
        if has_cells {
            // Colour bar: W_i/⟨W⟩ (or W_i/W0) from 0 to 4.
            let (bx, by0, by1) = (
                (width - bar + 14) as i32,
                (top + margin + 20) as i32,
                (top + margin + 20 + draw_h.min(400) - 20) as i32,
            );
            let steps = (by1 - by0).max(1);
            for k in 0..steps {
                let w = 4.0 * (1.0 - k as f64 / steps as f64);
                root.draw(&Rectangle::new(
                    [(bx, by0 + k), (bx + 16, by0 + k + 1)],
                    energy_colour(w).filled(),
                ))
                .map_err(e)?;
            }
            root.draw(&Rectangle::new([(bx, by0), (bx + 16, by1)], BLACK.stroke_width(1)))
                .map_err(e)?;
            let style = TextStyle::from((FONT, 13).into_font()).color(&BLACK);
            for v in [0.0, 1.0, 2.0, 3.0, 4.0] {
                let y = by1 - ((v / 4.0) * (by1 - by0) as f64) as i32;
                root.draw(&Text::new(format!("{v:.0}"), (bx + 20, y - 6), style.clone()))
                    .map_err(e)?;
            }
            root.draw(&Text::new(label, (bx - 6, by0 - 18), style.clone()))
                .map_err(e)?;
        }
        let cap = TextStyle::from((FONT, 16).into_font()).color(&BLACK);
        root.draw(&Text::new(caption.to_string(), (margin as i32, 8), cap))
            .map_err(e)?;
        root.present().map_err(e)?;
        Ok(())
    };
    atomic::write_with(path, draw)
}

/// Writes a snapshot every `every` steps (0: only at the end), and with `at_stage_end` one
/// `snapshot_NNNNNN_<stage>.png` when each stage ends (e.g. the paper's Fig. 30 at ε = 0.3).
pub struct SnapshotWriter {
    dir: PathBuf,
    every: u64,
    width: u32,
    last: Option<u64>,
    pub at_stage_end: bool,
    /// Modal bodies to draw over the cells (coupled runs).
    pub modal: Option<OutlineSource>,
}

impl SnapshotWriter {
    pub fn new(dir: PathBuf, every: u64, width: u32) -> SnapshotWriter {
        SnapshotWriter {
            dir,
            every,
            width,
            last: None,
            at_stage_end: false,
            modal: None,
        }
    }

    fn write(&mut self, ctx: &ObserveCtx) -> anyhow::Result<()> {
        if self.last == Some(ctx.step) {
            return Ok(());
        }
        let path = self.dir.join(format!("snapshot_{:06}.png", ctx.step));
        self.write_to(ctx, &path)
    }

    fn write_to(&mut self, ctx: &ObserveCtx, path: &Path) -> anyhow::Result<()> {
        let caption = format!(
            "step {}   t = {:.4}   {}   strain {:.4}   stress {:.4e}",
            ctx.step, ctx.time, ctx.stage, ctx.strain, ctx.m.stress_yy
        );
        let outlines = match &mut self.modal {
            Some(source) => source()?,
            None => vec![],
        };
        let cells = Cells {
            scene: &ctx.built.scene,
            nodes: ctx.nodes,
            bodies: ctx.bodies,
        };
        render_with_modal(path, Some(cells), &outlines, self.width, &caption)?;
        self.last = Some(ctx.step);
        Ok(())
    }
}

impl Observer for SnapshotWriter {
    fn next_due(&self, step: u64) -> u64 {
        crate::run::next_multiple(step, self.every)
    }

    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if crate::run::is_due(ctx.step, self.every) {
            self.write(ctx)?;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.write(ctx)
    }

    fn stage_done(&mut self, ctx: &mut ObserveCtx, stage: &str) -> anyhow::Result<()> {
        if !self.at_stage_end {
            return Ok(());
        }
        let tag = super::series::column_name(stage);
        let path = self.dir.join(format!("snapshot_{:06}_{tag}.png", ctx.step));
        self.write_to(ctx, &path)
    }
}
