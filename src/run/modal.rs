//! A scenario with modal bodies only (`[modal]`, no `[[bodies]]`): `softdem check` prints what it
//! resolves to; `softdem run` steps it under the one driver (`engine::modal::ModalKind`: stages,
//! checkpoints, resume) and writes, besides `checkpoint.bin`, `modal_series.csv` (time, body
//! positions, angles and modal amplitudes, wall forces; also in coupled runs) with
//! `output::modal_series::ModalSeries`, and snapshots and frames of the bodies' outlines with
//! `output::modal_pictures::ModalPictures` (the observers live with the other writers).

use crate::modal::stiffness::ModalStiffness;
use crate::scenario::modal::ModalBuilt;
use crate::scenario::Scenario;

/// Prints the resolved modal scene (`softdem check`).
pub fn check(sc: &Scenario) -> anyhow::Result<()> {
    let (built, b) = sc.build_modal_run()?;
    println!("scenario {} ({}): OK (modal bodies)", sc.name, sc.origin);
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    let packed = b.scene.pack()?;
    for (i, body) in b.scene.bodies.iter().enumerate() {
        println!(
            "body {}, inertia {:.6e}, query {}",
            body_line(sc, &b, i),
            body.inertia,
            match &body.query {
                crate::modal::body::LevelSetQuery::Pullback => "pullback (eq 47–48)".to_string(),
                crate::modal::body::LevelSetQuery::Precomputed { samples } =>
                    format!("precomputed (eq 49–50) at ε = {samples:?}"),
            }
        );
        println!(
            "  {} mode(s), stiffness {}: M (eq 8) = {:?}, C = {:?}",
            body.n_modes(),
            b.stiffness_kinds[i],
            body.modal_mass,
            body.modal_damping
        );
        match &body.stiffness {
            ModalStiffness::Linear(k) => println!("  K = {k:?}"),
            ModalStiffness::Table(t) => println!(
                "  force table: {} rows, ε up to {}, F up to {}",
                t.len(),
                t[t.len() - 1][0],
                t[t.len() - 1][1]
            ),
        }
    }
    for i in 0..b.scene.walls.len() {
        println!("wall {}", wall_line(&b, i));
    }
    println!(
        "time step: dt = {:.6e}; §3.3: rigid/contact β_r √(m_eff/k_n) = {:.6e}, deformation β_d/ω_max = {:.6e}",
        b.scene.dt, b.critical.rigid, b.critical.deform
    );
    println!(
        "run: {} steps ({:.4e} time units), series every {} steps, neighbour lists every {} steps (skin {})",
        b.steps,
        b.steps as f64 * b.scene.dt as f64,
        b.series_every,
        b.scene.rebuild_every,
        b.scene.skin
    );
    let bytes = 4 * (packed.phi0.len() + packed.mode_grid.len() + packed.pre_ls.len() + packed.tables.len())
        + std::mem::size_of_val(packed.nodes.as_slice())
        + std::mem::size_of_val(packed.bodies.as_slice())
        + packed.nodes.len() * packed.params.slots as usize * std::mem::size_of::<crate::modal::layout::ModalSlot>();
    println!(
        "sizes: {} bodies, {} surface nodes, {} walls; GPU memory about {:.2} MiB",
        packed.bodies.len(),
        packed.nodes.len(),
        packed.walls.len(),
        bytes as f64 / 1048576.0
    );
    if !built.stages.is_empty() {
        println!("stages:");
        for (i, st) in built.stages.iter().enumerate() {
            println!("  {i}: {} ({})", st.name, st.kind);
        }
    }
    Ok(())
}

/// What `softdem check` says of modal body `i`: name (shape), surface nodes, level-set grid, mass.
pub(super) fn body_line(sc: &Scenario, b: &ModalBuilt, i: usize) -> String {
    let body = &b.scene.bodies[i];
    let g = &body.level_set.grid;
    format!(
        "{} ({}): {} surface nodes, level set {}×{} (h = {}), mass {:.6e}",
        b.body_names[i],
        sc.file.modal.as_ref().unwrap().bodies[i].shape,
        body.nodes.len(),
        g.nx,
        g.ny,
        g.h,
        body.mass
    )
}

/// What `softdem check` says of modal wall `i`: name, kind and place, velocity.
pub(super) fn wall_line(b: &ModalBuilt, i: usize) -> String {
    let w = &b.scene.walls[i];
    format!(
        "{}: {} at {:?}, velocity {:?}",
        b.wall_names[i],
        if w.kind == crate::modal::layout::WALL_LINE {
            format!("line, normal {:?}", w.normal)
        } else {
            format!("circle, radius {}", w.radius)
        },
        w.p0,
        w.velocity
    )
}
