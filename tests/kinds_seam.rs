//! One driver for every kind (`engine::Kind`): modal bodies alone get stages (gravity, a wall
//! moved by stages, touch stop) and, like coupled SPD + modal runs, checkpoint/resume bit for bit
//! on both backends; `softdem compare` and sweeps take both kinds. The GPU cases fail (never skip)
//! when no adapter exists.

use softdem::backend::BackendKind;
use softdem::run::session::make_backend;
use softdem::run::{Driver, ObserveCtx, Observer, RunEnd};
use softdem::scenario::Scenario;
use std::path::Path;

mod run_cases;
use run_cases::{ok, path, softdem, tmp};

/// The shared resume check (`run_cases`), its scratch directories removed.
fn half_resume_equals_full(scenario: &Path, kind: BackendKind, n: u64, tag: &str, files: &[&str]) {
    let full = run_cases::half_resume_equals_full(scenario, kind, n, tag, files);
    std::fs::remove_dir_all(full).ok();
}

const MODAL: &str = "tests/scenarios/modal_stages.toml";
const COUPLED: &str = "scenarios/modal_disk_on_cells.toml";

/// Modal-only: the checkpoint at 1200 is in the "fall" stage, the end (2400) in "press".
#[test]
fn modal_resume_is_bit_exact_on_cpu() {
    half_resume_equals_full(&path(MODAL), BackendKind::Cpu, 2400, "modal-cpu", &["modal_series.csv"]);
}

#[test]
fn modal_resume_is_bit_exact_on_gpu() {
    half_resume_equals_full(&path(MODAL), BackendKind::Gpu, 2400, "modal-gpu", &["modal_series.csv"]);
}

const COUPLED_FILES: &[&str] = &["modal_series.csv", "series.csv", "final.csv", "run.pvd"];

#[test]
fn coupled_resume_is_bit_exact_on_cpu() {
    half_resume_equals_full(&path(COUPLED), BackendKind::Cpu, 600, "coupled-cpu", COUPLED_FILES);
}

#[test]
fn coupled_resume_is_bit_exact_on_gpu() {
    half_resume_equals_full(&path(COUPLED), BackendKind::Gpu, 400, "coupled-gpu", COUPLED_FILES);
}

/// Every check: step, stage, lid height, lid force, disk height.
#[derive(Default)]
struct Trace(Vec<(u64, String, f64, [f64; 3], f64)>);

impl Observer for Trace {
    fn next_due(&self, step: u64) -> u64 {
        (step / 50 + 1) * 50
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let s = ctx.backend.modal_states()?[0];
        let (lid, f) = ctx.m.walls[1];
        self.0.push((
            ctx.step,
            ctx.stage.to_string(),
            lid[1],
            f,
            s.x_hi[1] as f64 + s.x_lo[1] as f64,
        ));
        Ok(())
    }
    fn finish(&mut self, _ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Modal bodies under the one driver: a gravity stage gives the disk the discrete free fall of
/// semi-implicit Euler, y_n = y0 − g dt² n(n+1)/2 (eq 42–43), until it lands; the lid, at rest in
/// the file, stays at 2.2 while "fall" runs, moves at v = −1 in "press" (wall at p0 + v t with no
/// jump when v changes), stops at the first contact force on it (`touch`), and holds still.
#[test]
fn modal_walls_and_gravity_follow_the_stages_cpu() {
    modal_walls_and_gravity_follow_the_stages(BackendKind::Cpu);
}

#[test]
fn modal_walls_and_gravity_follow_the_stages_gpu() {
    modal_walls_and_gravity_follow_the_stages(BackendKind::Gpu);
}

fn modal_walls_and_gravity_follow_the_stages(kind: BackendKind) {
    let sc = Scenario::load(&path(MODAL)).unwrap();
    let made = make_backend(kind, &sc).unwrap();
    let mut d = Driver::new(made.built, made.kind).unwrap();
    let dt = d.dt();
    let mut trace = Trace::default();
    let mut sink = softdem::output::progress::Progress::silent();
    let end = d.run(None, &mut [&mut trace], &mut sink).unwrap();
    assert_eq!(end, RunEnd::Done);
    let t = &trace.0;
    let last = t.last().unwrap().0;
    assert!(last < 6000, "all stages done at step {last}");
    // Free fall before the disk reaches the floor (0.2 below it: n dt < 0.2 s).
    let (g, y0) = (10.0, 1.2);
    for r in t.iter().filter(|r| (r.0 as f64) * dt < 0.15) {
        let n = r.0 as f64;
        let want = y0 - g * dt * dt * n * (n + 1.0) / 2.0;
        assert!((r.4 - want).abs() < 1e-5, "step {}: y = {} != {want}", r.0, r.4);
    }
    let fall: Vec<_> = t.iter().filter(|r| r.1 == "fall").collect();
    let press: Vec<_> = t.iter().filter(|r| r.1 == "press").collect();
    let hold: Vec<_> = t.iter().filter(|r| r.1 == "hold").collect();
    assert!(fall.len() > 10 && press.len() > 5 && hold.len() > 5);
    for r in &fall {
        assert_eq!(r.2, 2.2f32 as f64, "lid moved during fall at step {}", r.0);
    }
    // "press" starts at step 2000: the lid at 2.2 + v (n − 2000) dt.
    for r in &press {
        let want = 2.2 - (r.0 as f64 - 2000.0) * dt;
        assert!((r.2 - want).abs() < 1e-5, "lid at step {}: {} != {want}", r.0, r.2);
    }
    // The touch: the press sample at its end has a force on the lid, pushing it up (+y).
    let touch = press.last().unwrap();
    assert!(touch.3[1] > 0.0, "no force on the lid when press ended: {touch:?}");
    let lid_end = 2.2 - (touch.0 as f64 - 2000.0) * dt;
    for r in &hold {
        assert!((r.2 - lid_end).abs() < 1e-5, "lid moved during hold: {r:?}");
    }
    // The disk rests on the floor (radius 1): centre below 1 and above the lid's reach.
    let y_end = t.last().unwrap().4;
    assert!(y_end > 0.7 && y_end < 1.0, "disk at {y_end}");
}

/// The relative deviation of a `softdem compare` row.
fn rel(out: &str, quantity: &str) -> f64 {
    let l = out
        .lines()
        .find(|l| l.starts_with(&format!("{quantity},")))
        .unwrap_or_else(|| panic!("no row {quantity} in\n{out}"));
    l.rsplit(',').next().unwrap().parse().unwrap()
}

/// `softdem compare` of a modal-only scene (CPU twin vs GPU): the disk's position and its
/// compaction amplitude agree within the modal GPU tolerance (1e-4).
#[test]
fn compare_takes_modal_scenes() {
    let out = ok(softdem().args(["compare", "--steps", "300"]).arg(path(MODAL)));
    for q in ["modal0_y", "modal0_x"] {
        assert!(rel(&out, q) < 1e-4, "{q}: {out}");
    }
}

/// `softdem compare` of a coupled scene: the SPD rows and the modal body's.
#[test]
fn compare_takes_coupled_scenes() {
    let out = ok(softdem().args(["compare", "--steps", "100"]).arg(path(COUPLED)));
    assert!(rel(&out, "e_stretch").is_finite(), "{out}");
    assert!(rel(&out, "modal0_y") < 1e-4, "{out}");
}

/// A sweep over a modal-only scene and over a coupled one: every member runs, `sweep.csv` gathers
/// `modal_series.csv` (modal-only) or `series.csv` (coupled), and the swept key changed the run.
#[test]
fn sweeps_take_modal_and_coupled_scenes() {
    for (scenario, key, values, steps, tag) in [
        (MODAL, "stages[0].gravity", "[[0.0, -10.0], [0.0, -5.0]]", 300, "modal"),
        (
            COUPLED,
            "simulation.gravity",
            "[[0.0, -2.0], [0.0, -4.0]]",
            100,
            "coupled",
        ),
    ] {
        let dir = tmp(&format!("sweep-{tag}"));
        std::fs::create_dir_all(&dir).unwrap();
        let text = format!(
            "scenario = \"{}\"\nout = \"{}\"\nbackend = \"cpu\"\nsteps = {steps}\n[parameters]\n\"{key}\" = {values}\n",
            path(scenario).display(),
            dir.join("sweep").display()
        );
        let sw = dir.join("sweep.toml");
        std::fs::write(&sw, text).unwrap();
        let out = ok(softdem().arg("sweep").arg(&sw));
        assert!(out.contains("2 members"), "{out}");
        let table = std::fs::read_to_string(dir.join("sweep/sweep.csv")).unwrap();
        let rows: Vec<&str> = table.lines().skip(1).collect();
        let m0: Vec<&&str> = rows.iter().filter(|r| r.starts_with("0,")).collect();
        let m1: Vec<&&str> = rows.iter().filter(|r| r.starts_with("1,")).collect();
        assert!(!m0.is_empty() && m0.len() == m1.len(), "{table}");
        let strip = |r: &str| r.splitn(3, ',').nth(2).unwrap().to_string();
        assert_ne!(
            strip(m0.last().unwrap()),
            strip(m1.last().unwrap()),
            "{tag}: the swept key changed nothing"
        );
        std::fs::remove_dir_all(dir).ok();
    }
}

const COUPLED_GRAVITY: &str = "tests/scenarios/coupled_gravity.toml";

/// Every sample: step, stage, disk height and vertical velocity, the cell's mean node height.
#[derive(Default)]
struct Fall(Vec<(u64, String, f64, f32, f64)>);

impl Observer for Fall {
    fn next_due(&self, step: u64) -> u64 {
        (step / 50 + 1) * 50
    }
    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        let s = ctx.backend.modal_states()?[0];
        let cell = ctx.built.scene.bodies[0];
        let ys: Vec<f64> = ctx.nodes[cell.first as usize..(cell.first + cell.count) as usize]
            .iter()
            .map(|n| n.pos()[1])
            .collect();
        self.0.push((
            ctx.step,
            ctx.stage.to_string(),
            s.x_hi[1] as f64 + s.x_lo[1] as f64,
            s.v[1],
            ys.iter().sum::<f64>() / ys.len() as f64,
        ));
        Ok(())
    }
    fn finish(&mut self, _ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Gravity stages in a coupled run: nothing moves while gravity is off; once a stage sets
/// g = (0, −2), the modal disk follows semi-implicit Euler's discrete free fall
/// y_k = y0 − g dt² k(k+1)/2 (k steps since the stage) and the SPD cell ½ g t² within one step's
/// g dt t (velocity Verlet starts from the force of the step before); when a stage sets it to zero
/// again, the disk coasts at constant velocity.
#[test]
fn coupled_gravity_follows_the_stages_cpu() {
    coupled_gravity_follows_the_stages(BackendKind::Cpu);
}

#[test]
fn coupled_gravity_follows_the_stages_gpu() {
    coupled_gravity_follows_the_stages(BackendKind::Gpu);
}

fn coupled_gravity_follows_the_stages(kind: BackendKind) {
    let sc = Scenario::load(&path(COUPLED_GRAVITY)).unwrap();
    let made = make_backend(kind, &sc).unwrap();
    let mut d = Driver::new(made.built, made.kind).unwrap();
    let dt = d.dt();
    let mut fall = Fall::default();
    let mut sink = softdem::output::progress::Progress::silent();
    assert_eq!(d.run(None, &mut [&mut fall], &mut sink).unwrap(), RunEnd::Done);
    let f = &fall.0;
    let (y0, c0) = (f[0].2, f[0].4);
    assert_eq!(y0, 4.0);
    for r in f.iter().filter(|r| r.1 == "still") {
        assert_eq!(r.2, y0, "disk moved without gravity: {r:?}");
        assert!((r.4 - c0).abs() < 1e-9, "cell moved without gravity: {r:?}");
    }
    let g = 2.0;
    let during: Vec<_> = f.iter().filter(|r| r.1 == "fall").collect();
    assert!(during.len() > 10);
    for r in &during {
        let k = (r.0 - 200) as f64;
        let want = y0 - g * dt * dt * k * (k + 1.0) / 2.0;
        assert!((r.2 - want).abs() < 1e-5, "disk at step {}: {} != {want}", r.0, r.2);
        let t = k * dt;
        let cell = c0 - 0.5 * g * t * t;
        assert!(
            (r.4 - cell).abs() <= g * dt * t + 1e-6,
            "cell at step {}: {} != {cell}",
            r.0,
            r.4
        );
    }
    let coast: Vec<_> = f.iter().filter(|r| r.1 == "coast").collect();
    assert!(coast.len() > 2);
    let v = coast[0].3;
    assert!(v < 0.0);
    for r in &coast {
        assert_eq!(r.3, v, "disk accelerates without gravity: {r:?}");
    }
}

/// A coupled resume across gravity stages (checkpoint in "fall", end in "coast"), both backends.
#[test]
fn coupled_resume_across_gravity_stages_is_bit_exact_on_cpu() {
    half_resume_equals_full(
        &path(COUPLED_GRAVITY),
        BackendKind::Cpu,
        1300,
        "coupled-gravity-cpu",
        COUPLED_FILES,
    );
}

#[test]
fn coupled_resume_across_gravity_stages_is_bit_exact_on_gpu() {
    half_resume_equals_full(
        &path(COUPLED_GRAVITY),
        BackendKind::Gpu,
        1300,
        "coupled-gravity-gpu",
        COUPLED_FILES,
    );
}

/// A modal or coupled checkpoint of the layout before the candidate lists (`MODAL1`, `COUPL1`:
/// the same bytes under the old tag here) is refused by name; the current one is taken back.
#[test]
fn checkpoints_of_the_older_layouts_are_refused_by_name() {
    for (scenario, old) in [(MODAL, "MODAL1"), (COUPLED, "COUPL1")] {
        let sc = Scenario::load(&path(scenario)).unwrap();
        let mut made = make_backend(BackendKind::Cpu, &sc).unwrap();
        let mut saved = made.kind.export_state().unwrap();
        made.kind.import_state(&saved).unwrap();
        // A tag is its letters read as one little-endian word, the first letter highest.
        let tag: Vec<u8> = old.bytes().rev().chain([0, 0]).collect();
        saved.kind[..8].copy_from_slice(&tag);
        let e = made.kind.import_state(&saved).unwrap_err().to_string();
        assert!(e.contains("older softdem") && e.contains(old), "{e}");
    }
}
