//! A scenario with modal bodies only (`[modal]`, no `[[bodies]]`): `softdem check` prints what it
//! resolves to, `softdem run` steps it with the modal engine (`modal::stepper::ModalRun`) on the
//! CPU twin or the GPU and writes `modal_series.csv` (time, body positions, angles and modal
//! amplitudes, wall forces), atomically (rewritten whole every `FLUSH_EVERY` rows and at the end).

use crate::backend::BackendKind;
use crate::modal::cpu::CpuModal;
use crate::modal::gpu::GpuModal;
use crate::modal::stepper::{ModalBackend, ModalRun};
use crate::modal::stiffness::ModalStiffness;
use crate::output::atomic;
use crate::scenario::modal::ModalBuilt;
use crate::scenario::Scenario;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Rows between rewrites of the series file during a run.
const FLUSH_EVERY: usize = 50;

/// Prints the resolved modal scene (`softdem check`).
pub fn check(sc: &Scenario) -> anyhow::Result<()> {
    let b = sc.build_modal()?;
    println!("scenario {} ({}): OK (modal bodies)", sc.name, sc.origin);
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    let packed = b.scene.pack()?;
    for (i, body) in b.scene.bodies.iter().enumerate() {
        let g = &body.level_set.grid;
        println!(
            "body {} ({}): {} surface nodes, level set {}×{} (h = {}), mass {:.6e}, inertia {:.6e}, query {}",
            b.body_names[i],
            sc.file.modal.as_ref().unwrap().bodies[i].shape,
            body.nodes.len(),
            g.nx,
            g.ny,
            g.h,
            body.mass,
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
    for (i, w) in b.scene.walls.iter().enumerate() {
        println!(
            "wall {}: {} at {:?}, velocity {:?}",
            b.wall_names[i],
            if w.kind == crate::modal::layout::WALL_LINE {
                format!("line, normal {:?}", w.normal)
            } else {
                format!("circle, radius {}", w.radius)
            },
            w.p0,
            w.velocity
        );
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
    Ok(())
}

/// Header of `modal_series.csv`: step, time, per body `NAME.x, NAME.y, NAME.theta, NAME.eps0…`,
/// per wall `NAME.fx, NAME.fy` (the force on the wall).
pub fn series_header(b: &ModalBuilt) -> String {
    let mut h = String::from("step,time");
    for (i, n) in b.body_names.iter().enumerate() {
        write!(h, ",{n}.x,{n}.y,{n}.theta").unwrap();
        for a in 0..b.scene.bodies[i].n_modes() {
            write!(h, ",{n}.eps{a}").unwrap();
        }
    }
    for n in &b.wall_names {
        write!(h, ",{n}.fx,{n}.fy").unwrap();
    }
    h.push('\n');
    h
}

/// One `modal_series.csv` row (the columns of [`series_header`]).
pub fn series_row(
    csv: &mut String,
    b: &ModalBuilt,
    step: u64,
    time: f64,
    states: &[crate::modal::layout::ModalState],
    wall_forces: &[[f32; 2]],
) {
    write!(csv, "{step},{time:.9e}").unwrap();
    for (i, s) in states.iter().enumerate() {
        let x = s.x_hi[0] as f64 + s.x_lo[0] as f64;
        let y = s.x_hi[1] as f64 + s.x_lo[1] as f64;
        write!(csv, ",{x:.9e},{y:.9e},{:.9e}", s.theta).unwrap();
        for a in 0..b.scene.bodies[i].n_modes() {
            write!(csv, ",{:.9e}", s.eps[a]).unwrap();
        }
    }
    for f in wall_forces {
        write!(csv, ",{:.9e},{:.9e}", f[0], f[1]).unwrap();
    }
    csv.push('\n');
}

/// Runs a modal-only scenario; `steps` caps the step count. Returns the output directory.
pub fn run(
    sc: &Scenario,
    kind: BackendKind,
    out: Option<&Path>,
    steps: Option<u64>,
    quiet: bool,
) -> anyhow::Result<PathBuf> {
    let t0 = Instant::now();
    let b = sc.build_modal()?;
    let out = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    std::fs::create_dir_all(&out)?;
    let total = steps.map_or(b.steps, |s| s.min(b.steps));
    let packed = b.scene.pack()?;
    if !quiet {
        eprintln!(
            "softdem run: {} ({}), {} modal bodies, {} surface nodes, {} walls, dt = {:.4e}, {total} steps, backend {kind:?}, writing {}",
            sc.name,
            sc.origin,
            packed.bodies.len(),
            packed.nodes.len(),
            packed.walls.len(),
            b.scene.dt,
            out.display()
        );
    }
    let path = out.join("modal_series.csv");
    match kind {
        BackendKind::Cpu => drive(
            ModalRun::new(
                CpuModal::new(packed, b.states.clone()),
                b.scene.rebuild_every,
                b.scene.skin,
            ),
            &b,
            total,
            &path,
        )?,
        BackendKind::Gpu => {
            let ctx = crate::gpu::context::GpuContext::new()?;
            drive(
                ModalRun::new(
                    GpuModal::new(ctx, packed, b.states.clone())?,
                    b.scene.rebuild_every,
                    b.scene.skin,
                ),
                &b,
                total,
                &path,
            )?
        }
    }
    if !quiet {
        eprintln!(
            "softdem run: {total} steps in {:.1} s; {}",
            t0.elapsed().as_secs_f64(),
            path.display()
        );
    }
    Ok(out)
}

fn drive<B: ModalBackend>(mut run: ModalRun<B>, b: &ModalBuilt, total: u64, path: &Path) -> anyhow::Result<()> {
    let mut csv = series_header(b);
    let mut done = 0u64;
    let mut rows = 0usize;
    let dt = b.scene.dt as f64;
    let row = |run: &mut ModalRun<B>, step: u64, csv: &mut String| -> anyhow::Result<()> {
        let states = run.backend.states()?;
        let wf = run.backend.wall_forces()?;
        series_row(csv, b, step, step as f64 * dt, &states, &wf);
        Ok(())
    };
    row(&mut run, 0, &mut csv)?;
    while done < total {
        let n = b.series_every.min(total - done);
        run.run(n)?;
        done += n;
        row(&mut run, done, &mut csv)?;
        rows += 1;
        if rows.is_multiple_of(FLUSH_EVERY) {
            atomic::write(path, csv.as_bytes())?;
        }
    }
    atomic::write(path, csv.as_bytes())
}

/// The scenario of a `softdem run` request when it has modal bodies only (no resume).
pub fn modal_only(req: &super::session::RunRequest) -> anyhow::Result<Option<Scenario>> {
    let (None, Some(p)) = (&req.resume, &req.scenario) else {
        return Ok(None);
    };
    let sc = Scenario::load_with_overrides(p, &req.overrides)?;
    Ok(sc.is_modal_only().then_some(sc))
}
