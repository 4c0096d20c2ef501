//! Stages move `[[modal.walls]]` in coupled SPD + modal runs as they do in modal-only runs
//! (`engine::coupled`, `scenario::coupled::MODAL_WALL`): same keys (`move_wall`, `unload`,
//! `touch`, `displacement`), same semantics (the wall at p0 + v t, no jump when v changes, the
//! others keep the file's velocity), on both backends, through checkpoints.
//!
//! Scene `tests/scenarios/coupled_modal_wall.toml`: a modal disk (R = 1, compaction mode) 0.1
//! above the floor of an SPD box, a modal lid 0.2 above the disk, one SPD cell whose top reaches
//! the lid's path, no gravity. Stages: "still" (200 steps), "press" (lid at v = −2 until it
//! touches the disk), "push" (v = −2 for a displacement of 0.15), "hold" (300 steps), "release"
//! (`unload`: v = +2, 100 steps).
//!
//! - The lid's measured point is 2.3 in "still", 2.3 − 2 (n − 200) dt through "press" and "push"
//!   (one line: p0 is rebased at the stage change), constant in "hold", and rises at +2 in
//!   "release"; within 1e-5 (f32 positions of order 2).
//! - "press" ends at the first check with a force on the lid, pushing it up (+y); "push" ends
//!   at the first check where the lid has moved ≥ 0.15 (not at the check before).
//! - The lid acts on the disk only: the disk moves down and is compressed (ε > 0) in "push",
//!   while the SPD cell, which the lid's line crosses, stays where it was (max node |Δx| < 1e-9;
//!   the lid passes 0.37 into it).
//! - GPU (lavapipe) vs CPU: the same stage ends and lid points (the wall point is computed on the
//!   host from the same f32 records), disk position within 1e-5, ε within 1e-3 relative, SPD
//!   nodes within 1e-5: the coupled tests' tolerances (tests/coupled_scenario.rs).
//! - Checkpoint at step 750 (in "push", the lid rebased at 700), resumed to 1500 (through
//!   "hold" and "release"): bit for bit on the CPU and on the GPU; the checkpoint holds the
//!   walls as the stages left them.

mod run_cases;

use run_cases::path;
use softdem::backend::BackendKind;
use softdem::run::session::make_backend;
use softdem::run::{Driver, ObserveCtx, Observer, RunEnd};
use softdem::scenario::Scenario;

const SCENE: &str = "tests/scenarios/coupled_modal_wall.toml";

/// One sample: step, stage, lid point and force, disk height and ε, the cell's node positions.
struct Row {
    step: u64,
    stage: String,
    lid: [f64; 3],
    lid_force: [f64; 3],
    disk: [f64; 2],
    eps: f64,
    cell: Vec<[f64; 2]>,
    nodes: Vec<[f64; 2]>,
}

#[derive(Default)]
struct Trace(Vec<Row>);

impl Observer for Trace {
    fn next_due(&self, step: u64) -> u64 {
        (step / 50 + 1) * 50
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let s = ctx.backend.modal_states()?[0];
        let lid = ctx
            .built
            .geometry
            .walls
            .iter()
            .position(|w| w.0 == "lid")
            .expect("the lid");
        let cell = ctx.built.scene.bodies[0];
        let nodes: Vec<[f64; 2]> = ctx.nodes.iter().map(|n| n.pos()).collect();
        self.0.push(Row {
            step: ctx.step,
            stage: ctx.stage.to_string(),
            lid: ctx.m.walls[lid].0,
            lid_force: ctx.m.walls[lid].1,
            disk: [s.x_hi[0] as f64 + s.x_lo[0] as f64, s.x_hi[1] as f64 + s.x_lo[1] as f64],
            eps: s.eps[0] as f64,
            cell: nodes[cell.first as usize..(cell.first + cell.count) as usize].to_vec(),
            nodes,
        });
        Ok(())
    }
    fn finish(&mut self, _ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        Ok(())
    }
}

/// The whole run on `kind` under the driver, sampled every 50 steps; and dt.
fn trace(kind: BackendKind) -> (Vec<Row>, f64) {
    let sc = Scenario::load(&path(SCENE)).unwrap();
    let made = make_backend(kind, &sc).unwrap();
    let mut d = Driver::new(made.built, made.kind).unwrap();
    let dt = d.dt();
    let mut t = Trace::default();
    let mut sink = softdem::output::progress::Progress::silent();
    assert_eq!(d.run(None, &mut [&mut t], &mut sink).unwrap(), RunEnd::Done);
    (t.0, dt)
}

/// The last step of stage `name` (the sample at which it ended).
fn end_of(t: &[Row], name: &str) -> u64 {
    t.iter().filter(|r| r.stage == name).map(|r| r.step).max().unwrap()
}

/// The assertions of the module doc on one backend's trace.
fn lid_follows_the_stages(t: &[Row], dt: f64, tag: &str) {
    let stage = |name: &str| t.iter().filter(|r| r.stage == name).collect::<Vec<_>>();
    let (still, press, push, hold, release) = (
        stage("still"),
        stage("press"),
        stage("push"),
        stage("hold"),
        stage("release"),
    );
    assert!(still.len() >= 4 && press.len() >= 4 && push.len() >= 4 && hold.len() >= 4 && release.len() >= 2);
    let y0 = 2.3f32 as f64;
    for r in &still {
        assert_eq!(r.lid[1], y0, "{tag}: lid moved in still at step {}", r.step);
    }
    let start = end_of(t, "still") as f64;
    assert_eq!(start, 200.0);
    // press and push: one line from (200, 2.3) at v = −2.
    for r in press.iter().chain(&push) {
        let want = y0 - 2.0 * (r.step as f64 - start) * dt;
        assert!(
            (r.lid[1] - want).abs() < 1e-5,
            "{tag}: lid at step {} ({}): {} != {want}",
            r.step,
            r.stage,
            r.lid[1]
        );
        assert_eq!(r.lid[0], 0.0, "{tag}: the lid moves along y only");
    }
    // press ends at the first sample with a force on the lid (+y: the disk pushes it up).
    let touch = press.last().unwrap();
    assert!(
        touch.lid_force[1] > 0.0,
        "{tag}: no upward force on the lid when press ended: {:?}",
        touch.lid_force
    );
    for r in &press[..press.len() - 1] {
        assert_eq!(
            r.lid_force, [0.0; 3],
            "{tag}: force on the lid before the touch at step {}",
            r.step
        );
    }
    // push ends by displacement 0.15 from where it started (the end of press).
    let from = touch.lid[1];
    let moved = |r: &Row| from - r.lid[1];
    let last = push.last().unwrap();
    assert!(moved(last) >= 0.15, "{tag}: push ended after {}", moved(last));
    assert!(
        moved(push[push.len() - 2]) < 0.15,
        "{tag}: push went on after 0.15 ({})",
        moved(push[push.len() - 2])
    );
    // hold: still at the end of push; release: back up at +2 (unload reverses the last move_wall).
    for r in &hold {
        assert_eq!(r.lid[1], last.lid[1], "{tag}: lid moved in hold at step {}", r.step);
    }
    let h = hold.last().unwrap();
    for r in &release {
        let want = h.lid[1] + 2.0 * (r.step - h.step) as f64 * dt;
        assert!(
            (r.lid[1] - want).abs() < 1e-5,
            "{tag}: lid at step {}: {} != {want}",
            r.step,
            r.lid[1]
        );
    }
    // The lid acts on the disk: pushed down and compressed.
    assert!(
        last.disk[1] < 1.1 - 0.01,
        "{tag}: the disk is at y = {} after push",
        last.disk[1]
    );
    assert!(push.iter().any(|r| r.eps > 0.0), "{tag}: the disk was never compressed");
    // … and not on the SPD cell its line crosses (cell top at 2.3, lid down to about 1.93).
    assert!(last.lid[1] < 2.0);
    let c0 = &t[0].cell;
    let drift = t
        .iter()
        .flat_map(|r| r.cell.iter().zip(c0).map(|(p, q)| (p[0] - q[0]).hypot(p[1] - q[1])))
        .fold(0.0, f64::max);
    assert!(drift < 1e-9, "{tag}: the SPD cell moved by {drift}");
}

#[test]
fn a_stage_moves_a_modal_wall_in_a_coupled_run_cpu() {
    let (t, dt) = trace(BackendKind::Cpu);
    lid_follows_the_stages(&t, dt, "cpu");
}

#[test]
fn a_stage_moves_a_modal_wall_in_a_coupled_run_gpu_as_on_the_cpu() {
    // Fails (never skips) without an adapter.
    let _ctx = softdem::gpu::context::gpu_for_tests();
    let (g, dt) = trace(BackendKind::Gpu);
    lid_follows_the_stages(&g, dt, "gpu");
    let (c, _) = trace(BackendKind::Cpu);
    assert_eq!(c.len(), g.len(), "the GPU run took another number of samples");
    let (mut dx, mut ddisk, mut deps) = (0.0f64, 0.0f64, 0.0f64);
    for (a, b) in c.iter().zip(&g) {
        assert_eq!((a.step, &a.stage), (b.step, &b.stage), "stage ends differ");
        assert_eq!(a.lid, b.lid, "lid points differ at step {}", a.step);
        ddisk = ddisk.max((a.disk[0] - b.disk[0]).hypot(a.disk[1] - b.disk[1]));
        if a.eps != 0.0 {
            deps = deps.max((a.eps - b.eps).abs() / a.eps.abs());
        }
        for (p, q) in a.nodes.iter().zip(&b.nodes) {
            dx = dx.max((p[0] - q[0]).hypot(p[1] - q[1]));
        }
    }
    println!("gpu vs cpu: max node |Δx| {dx:.3e}, disk |ΔX| {ddisk:.3e}, ε relative {deps:.3e}");
    assert!(dx < 1e-5, "node positions differ by {dx}");
    assert!(ddisk < 1e-5, "disk positions differ by {ddisk}");
    assert!(deps < 1e-3, "amplitudes differ by {deps} (relative)");
}

const FILES: &[&str] = &["modal_series.csv", "series.csv", "final.csv"];

#[test]
fn resume_across_modal_wall_stages_is_bit_exact_on_cpu() {
    let full = run_cases::half_resume_equals_full(&path(SCENE), BackendKind::Cpu, 1500, "cmw-cpu", FILES);
    std::fs::remove_dir_all(full).ok();
}

#[test]
fn resume_across_modal_wall_stages_is_bit_exact_on_gpu() {
    let full = run_cases::half_resume_equals_full(&path(SCENE), BackendKind::Gpu, 1500, "cmw-gpu", FILES);
    std::fs::remove_dir_all(full).ok();
}
