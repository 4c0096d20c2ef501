//! A scenario that mixes SPD bodies and modal bodies (`scenario::coupled`): `softdem check` prints
//! what it resolves to; `softdem run` steps it under the one driver (`engine::coupled::CoupledKind`:
//! stages, stop conditions, runaway check and replay, checkpoints and `--resume`) with the usual
//! SPD outputs (`series.csv`, frames and snapshots, both with the modal bodies' outlines,
//! `final.csv`, `breaks.csv`, `cells.csv`, plots, `checkpoint.bin`), plus `modal_series.csv`
//! (`run::modal::ModalSeries`). `softdem compare` and sweeps take them too (`session`).

use super::session::RunReport;
use crate::backend::BackendKind;
use crate::model::{BODY_CLOSED, BODY_FROZEN};
use crate::scenario::Scenario;
use std::path::Path;

/// Prints what a mixed scenario resolves to (`softdem check`); builds the CPU coupled run once
/// (first lists, dt = 0 force pass) so that list capacities are checked too.
pub fn check(sc: &Scenario, kind: BackendKind) -> anyhow::Result<()> {
    if kind == BackendKind::Gpu {
        match crate::gpu::context::GpuContext::new() {
            Ok(ctx) => sc.check_limits(&ctx.limits)?,
            Err(e) => println!("no GPU adapter ({e:#}): GPU limits not checked"),
        }
    }
    let cb = sc.build_coupled()?;
    let (spd, m) = (&cb.built.scene, &cb.modal);
    println!(
        "scenario {} ({}): OK (coupled SPD cells + modal bodies)",
        sc.name, sc.origin
    );
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    if let Some(u) = &sc.file.units {
        println!("units: {u}");
    }
    for (_, mat) in sc.materials.values() {
        print!("{}", mat.describe());
    }
    let free = spd.bodies.iter().filter(|b| b.flags & BODY_FROZEN == 0).count();
    let coupled = spd
        .bodies
        .iter()
        .filter(|b| b.flags & BODY_CLOSED != 0 && b.flags & BODY_FROZEN == 0)
        .count();
    println!(
        "SPD bodies: {} ({free} free, {coupled} closed cells in contact with modal bodies, {} walls), nodes: {}",
        spd.bodies.len(),
        cb.spd_walls(),
        spd.nodes.len()
    );
    for (i, b) in m.scene.bodies.iter().enumerate() {
        println!(
            "modal body {}, {} mode(s) ({}), stiffness {}",
            super::modal::body_line(sc, m, i),
            b.n_modes(),
            sc.file.modal.as_ref().unwrap().bodies[i]
                .modes
                .iter()
                .map(|x| x.shape.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            m.stiffness_kinds[i]
        );
    }
    for i in 0..m.scene.walls.len() {
        println!("modal wall {}", super::modal::wall_line(m, i));
    }
    // The SPD scene at its own dt (its stages may name the modal walls too).
    let mut spd_alone = sc.build_with_walls(&cb.built.geometry.walls[cb.spd_walls()..])?.scene;
    spd_alone.gravity = spd.gravity;
    let mixed = crate::coupled::stepper::COUPLING_DT_FRACTION * (spd.m_min() / m.scene.contact.k_n).sqrt();
    println!(
        "time step: dt = {:.6e} = min(SPD {:.6e}, modal §3.3 {:.6e} (β_r √(m_eff/k_n) {:.6e}, β_d/ω_max {:.6e}), mixed contacts {} √(m_min/k_n) = {:.6e})",
        cb.scene.dt(),
        spd_alone.dt(),
        m.scene.dt,
        m.critical.rigid,
        m.critical.deform,
        crate::coupled::stepper::COUPLING_DT_FRACTION,
        mixed
    );
    println!(
        "gravity: {:?} on SPD nodes and on the modal bodies' rigid part; modal lists every {} steps (skin {})",
        spd.gravity, m.scene.rebuild_every, m.scene.skin
    );
    println!(
        "walls: the {} SPD walls act on SPD bodies{}; the {} modal walls on modal bodies only",
        cb.spd_walls(),
        if cb.scene.directions & crate::coupled::DIR_SPD_WALLS != 0 {
            " and on modal bodies (at most 4 modal bodies near one wall)"
        } else {
            " only ([modal] spd_walls = false)"
        },
        m.scene.walls.len()
    );
    let mut run = crate::coupled::stepper::cpu(&cb.scene)?;
    let l = run.lists();
    let pairs = l
        .mb_cells
        .chunks(2)
        .filter(|p| p[0] != crate::modal::layout::NONE)
        .count();
    let c = run.read_contacts()?;
    println!(
        "initial state: {pairs} cell–modal body pairs listed, {} SPD contacts",
        c.active_count()
    );
    println!("stages:");
    for (i, st) in cb.built.stages.iter().enumerate() {
        println!("  {i}: {} ({})", st.name, st.kind);
    }
    for w in &cb.warnings {
        println!("warning: {w}");
    }
    Ok(())
}

/// Runs a mixed scenario under the driver (`session::run_loaded`); `steps` caps the run
/// (absolute step).
pub fn run(
    sc: &Scenario,
    kind: BackendKind,
    out: Option<&Path>,
    steps: Option<u64>,
    quiet: bool,
) -> anyhow::Result<RunReport> {
    let req = super::session::RunRequest {
        out: out.map(Path::to_path_buf),
        steps,
        quiet,
        ..super::session::RunRequest::new(None, kind)
    };
    super::session::run_loaded(sc, &req)
}
