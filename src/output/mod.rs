//! Run outputs, each an observer of the driver: `series.csv` (series.rs), `frames/*.vtp` and
//! `run.pvd` (vtk.rs), `snapshots/*.png` (snapshot.rs), modal bodies in both (modal.rs), `plots/*.png` (plots.rs),
//! `checkpoint.bin` (checkpoint.rs), the §6 compaction analysis (compaction.rs), `final.csv`, `cells.csv` (with `[output] polygons`), `breaks.csv` with cohesive links (breaks.rs); the progress bar (progress.rs). Every file is
//! written atomically (atomic.rs).

pub mod atomic;
pub mod bead_picture;
pub mod beads;
pub mod breaks;
pub mod checkpoint;
pub mod compaction;
pub mod membrane;
pub mod modal;
pub mod modal_pictures;
pub mod modal_series;
pub mod plots;
pub mod progress;
pub mod series;
pub mod snapshot;
pub mod sphere_parts;
pub mod sphere_picture;
pub mod spheres;
pub mod vtk;

use crate::run::{ObserveCtx, Observer};
use std::path::PathBuf;

/// `final.csv`: every node at the end, `body,node,x,y,vx,vy,fx,fy` (positions exact in f64).
pub struct FinalCsv {
    pub path: PathBuf,
}

impl Observer for FinalCsv {
    fn next_due(&self, _step: u64) -> u64 {
        u64::MAX
    }

    fn observe(&mut self, _ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let mut s = String::from("body,node,x,y,vx,vy,fx,fy\n");
        for (nd, st) in ctx.built.scene.nodes.iter().zip(ctx.nodes) {
            let p = st.pos();
            s += &format!(
                "{},{},{},{},{},{},{},{}\n",
                nd.body, nd.local, p[0], p[1], st.vel[0], st.vel[1], st.force[0], st.force[1]
            );
        }
        atomic::write(&self.path, s.as_bytes())
    }
}

/// `cells.csv` (`[output] polygons = true`): every free closed cell at the end as a polygon, in
/// the format a `file` body reads (`cell,x,y`), so a deposited packing can start other runs.
pub struct PolygonsCsv {
    pub path: PathBuf,
}

impl Observer for PolygonsCsv {
    fn next_due(&self, _step: u64) -> u64 {
        u64::MAX
    }

    fn observe(&mut self, _ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        use crate::model::{BODY_CLOSED, BODY_FROZEN};
        let mut s = String::from("cell,x,y\n");
        let cells = ctx
            .built
            .scene
            .bodies
            .iter()
            .filter(|b| b.flags & BODY_CLOSED != 0 && b.flags & BODY_FROZEN == 0);
        for (k, b) in cells.enumerate() {
            for i in b.first..b.first + b.count {
                let p = ctx.nodes[i as usize].pos();
                s += &format!("{k},{},{}\n", p[0], p[1]);
            }
        }
        atomic::write(&self.path, s.as_bytes())
    }
}
