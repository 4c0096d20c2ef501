//! Scenario files with modal bodies (`[modal]`, docs/scenarios.md): the example
//! `scenarios/modal_disk_press.toml` resolves to the scene of validation case 2, `softdem check`
//! accepts it, and `softdem run` on it reproduces the App. B table force within the tolerance of
//! case 2 (2 % over u ≥ u_max/4), writing `modal_series.csv`; the GPU run path matches the CPU
//! one on a prefix. A missing GPU adapter fails the GPU test (`gpu_for_tests`).

use softdem::modal::stiffness::{ModalStiffness, PAPER_COMPACTION_TABLE};
use softdem::modal::validation::{compaction_case, COMPACTION_DURATION};
use softdem::scenario::Scenario;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/modal_disk_press.toml")
}

fn softdem(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_softdem")).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "softdem {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The series as (header, rows).
fn read_series(dir: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(dir.join("modal_series.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse::<f64>().unwrap()).collect::<Vec<_>>())
        .collect::<Vec<_>>();
    for r in &rows {
        assert_eq!(r.len(), header.len());
    }
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem-modal-scenario-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn modal_example_builds_the_validation_disk() {
    let sc = Scenario::load(&example()).unwrap();
    assert!(sc.is_modal_only());
    let b = sc.build_modal().unwrap();
    let v = compaction_case(1, COMPACTION_DURATION).unwrap();
    let (x, y) = (&b.scene.bodies[0], &v.scene.bodies[0]);
    assert_eq!(x.level_set, y.level_set);
    assert_eq!(x.nodes, y.nodes);
    assert_eq!(x.modes, y.modes);
    assert_eq!(x.modal_mass, y.modal_mass);
    assert_eq!(x.stiffness, y.stiffness);
    assert_eq!(x.modal_damping, y.modal_damping);
    assert_eq!((x.mass, x.inertia), (y.mass, y.inertia));
    assert_eq!(b.scene.walls, v.scene.walls);
    assert_eq!(b.scene.dt, v.scene.dt);
    assert_eq!(b.steps, v.steps);
    let (c, d) = (b.scene.contact, v.scene.contact);
    assert_eq!((c.k_n, c.k_t, c.mu), (d.k_n, d.k_t, d.mu));
    // c_n is written to 5 digits in the file.
    assert!((c.c_n - d.c_n).abs() <= 1e-4 * d.c_n, "c_n {} vs {}", c.c_n, d.c_n);
}

#[test]
fn modal_example_is_accepted_by_check() {
    let p = example();
    let out = softdem(&["check", "--backend", "cpu", p.to_str().unwrap()]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("OK (modal bodies)") && s.contains("128 surface nodes"),
        "{s}"
    );
}

/// The whole example (36,000 steps, about 1 s): the total wall force Σ −f·n against the table
/// F_int(u), u = 0.004 t, within 2 % over u ≥ u_max/4 (the check of validation case 2).
#[test]
fn modal_example_run_follows_the_table() {
    let dir = tmp("cpu");
    let p = example();
    softdem(&[
        "run",
        "--backend",
        "cpu",
        "--quiet",
        p.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let (h, rows) = read_series(&dir);
    assert_eq!(
        rows.len(),
        101,
        "rows (every 360 of 35991 steps, plus step 0 and the last)"
    );
    let table = ModalStiffness::Table(PAPER_COMPACTION_TABLE.to_vec());
    let normals = [
        ("left", [1.0, 0.0]),
        ("right", [-1.0, 0.0]),
        ("bottom", [0.0, 1.0]),
        ("top", [0.0, -1.0]),
    ];
    let (u_max, speed) = (0.16, 0.004);
    let mut worst: f64 = 0.0;
    let mut checked = 0;
    for r in &rows {
        let u = speed * r[col(&h, "time")];
        let f: f64 = normals
            .iter()
            .map(|(w, n)| -(r[col(&h, &format!("{w}.fx"))] * n[0] + r[col(&h, &format!("{w}.fy"))] * n[1]))
            .sum();
        if u >= 0.25 * u_max {
            let fref = table.force_1d(u as f32) as f64;
            worst = worst.max((f - fref).abs() / fref);
            checked += 1;
        }
    }
    let eps_end = rows.last().unwrap()[col(&h, "disk.eps0")];
    eprintln!(
        "modal_disk_press: max |F − F_int(u)|/F_int(u) = {worst:.4} over {checked} rows; ε at the end {eps_end:.5}"
    );
    assert!(checked >= 70);
    assert!(worst <= 0.02, "wall force off the table by {worst:.4}");
    assert!(
        (eps_end - u_max).abs() <= 0.02 * u_max,
        "ε = {eps_end} at the end, u = {u_max}"
    );
    // Atomic writes leave no temporary file behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

/// The GPU run path on the first 3600 steps (u ≤ 0.016; lavapipe ≈ 1 ms per step) against the
/// CPU one: every column within 1e-4 of its largest magnitude (the modal_gpu tolerance).
#[test]
fn modal_example_run_on_the_gpu_matches_the_cpu() {
    // Fails (never skips) without an adapter. No `set_var` here (other test threads may be in
    // a driver): `GpuContext::new` sets XDG_RUNTIME_DIR once, before the first wgpu instance.
    drop(softdem::gpu::context::gpu_for_tests());
    let p = example();
    let mut series = vec![];
    for be in ["cpu", "gpu"] {
        // Not `tmp("cpu")`: modal_example_run_follows_the_table, in parallel, uses that one.
        let dir = tmp(&format!("compare-{be}"));
        softdem(&[
            "run",
            "--backend",
            be,
            "--quiet",
            "--steps",
            "3600",
            p.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        series.push(read_series(&dir));
        std::fs::remove_dir_all(&dir).ok();
    }
    let ((h, a), (_, b)) = (&series[0], &series[1]);
    assert_eq!(a.len(), 11);
    assert_eq!(a.len(), b.len());
    let mut worst: f64 = 0.0;
    for c in 0..h.len() {
        let scale = a.iter().map(|r| r[c].abs()).fold(0.0, f64::max).max(1e-30);
        let dev = a.iter().zip(b).map(|(x, y)| (x[c] - y[c]).abs()).fold(0.0, f64::max) / scale;
        assert!(
            dev <= 1e-4,
            "column {}: cpu and gpu differ by {dev:.3e} of its scale",
            h[c]
        );
        worst = worst.max(dev);
    }
    eprintln!("modal_disk_press prefix: max |cpu − gpu| / scale over the columns = {worst:.3e}");
}

fn from_text(text: &str) -> Scenario {
    Scenario::from_text(text, "<test>", Path::new(env!("CARGO_MANIFEST_DIR")), "test", &[]).unwrap()
}

/// A rectangle with the bending mode and K by quadrature (eq 4) resolves to the beam of
/// validation case 1 (`body::beam`): same level set, nodes, mode, M and K; inertia and damping
/// to f32 rounding (computed another way). A polygon giving the same rectangle off-centre (its
/// area centroid becomes the reference origin) resolves to the same body. The precomputed query
/// option reaches the body.
#[test]
fn modal_rectangle_and_polygon_with_quadrature_build_the_bending_beam() {
    let v = softdem::modal::validation::bending_case().unwrap();
    let y = &v.scene.bodies[0];
    let common = r#"
[contact]
k_n = 1.0e7
[modal]
steps = 10
[[modal.walls]]
kind = "circle"
center = [0.0, -10.0]
radius = 0.5
"#;
    let body = |shape: &str| {
        format!(
            r#"
[[modal.bodies]]
{shape}
node_spacing = 0.5
grid_spacing = 0.5
density = 250.0
young = 2.0e7
quadrature_subcells = 8
center = [0.0, 0.0]
level_set_query = "precomputed"
query_samples = [0.0, 0.5, 1.0]
[[modal.bodies.modes]]
shape = "bending"
stiffness = "quadrature"
damping_ratio = 1.0
"#
        )
    };
    for shape in [
        "shape = \"rectangle\"\nsize = [40.0, 2.0]",
        "shape = \"polygon\"\npoints = [[3.0, 5.0], [43.0, 5.0], [43.0, 7.0], [3.0, 7.0]]",
    ] {
        let b = from_text(&format!("{common}{}", body(shape))).build_modal().unwrap();
        let x = &b.scene.bodies[0];
        assert_eq!(x.level_set, y.level_set, "{shape}");
        assert_eq!(x.nodes, y.nodes, "{shape}");
        assert_eq!(x.modes, y.modes, "{shape}");
        assert_eq!(x.modal_mass, y.modal_mass, "{shape}");
        assert_eq!(x.stiffness, y.stiffness, "{shape}");
        assert_eq!(x.mass, y.mass, "{shape}");
        assert!(
            (x.inertia / y.inertia - 1.0).abs() < 1e-6,
            "{shape}: I {} vs {}",
            x.inertia,
            y.inertia
        );
        assert!(
            (x.modal_damping[0] / y.modal_damping[0] - 1.0).abs() < 1e-6,
            "{shape}: C {:?} vs {:?}",
            x.modal_damping,
            y.modal_damping
        );
        assert_eq!(
            x.query,
            softdem::modal::body::LevelSetQuery::Precomputed {
                samples: vec![0.0, 0.5, 1.0]
            }
        );
        assert_eq!(b.steps, 10);
    }
}

/// The initial-state keys reach the run: a free disk (no walls, no contacts) moves at its initial
/// velocity and turns at its initial angular velocity from its initial angle; ε stays 0.
/// Tolerance: Θ is f32, summed 2000 times: at most one ulp(0.5) = 6e-8 per step, 1.2e-4 rad; X
/// is double-f32 (1e-6).
#[test]
fn modal_initial_state_keys_give_free_motion() {
    use softdem::modal::cpu::CpuModal;
    use softdem::modal::stepper::{ModalBackend, ModalRun};
    let sc = from_text(
        r#"
[contact]
k_n = 1.0e5
[modal]
steps = 2000
[[modal.bodies]]
shape = "disk"
radius = 1.0
nodes = 32
grid_spacing = 0.25
density = 2.0
center = [1.5, -2.0]
velocity = [0.3, -0.1]
angle = 0.25
angular_velocity = 0.5
[[modal.bodies.modes]]
shape = "compaction"
stiffness = "value"
k = 100.0
"#,
    );
    let b = sc.build_modal().unwrap();
    let mut run = ModalRun::new(
        CpuModal::new(b.scene.pack().unwrap(), b.states.clone()),
        b.scene.rebuild_every,
        b.scene.skin,
    );
    run.run(b.steps).unwrap();
    let s = run.backend.states().unwrap()[0];
    let t = b.steps as f64 * b.scene.dt as f64;
    let x = [s.x_hi[0] as f64 + s.x_lo[0] as f64, s.x_hi[1] as f64 + s.x_lo[1] as f64];
    assert!(
        (x[0] - (1.5 + 0.3 * t)).abs() < 1e-6 && (x[1] - (-2.0 - 0.1 * t)).abs() < 1e-6,
        "{x:?} at t = {t}"
    );
    let bound = b.steps as f64 * 0.5 * f32::EPSILON as f64;
    assert!(
        (s.theta as f64 - (0.25 + 0.5 * t)).abs() < bound,
        "θ = {} at t = {t}",
        s.theta
    );
    assert_eq!(s.eps[0], 0.0);
    assert!(t > 0.0);
}

#[test]
fn modal_run_draws_snapshots_and_frames_of_the_disk() {
    use softdem::output::modal::MODAL_FILL;
    use vtkio::model::{DataSet, Piece};
    // The first 720 steps of the example (two series rows), a snapshot and a frame every 360.
    let every = toml::Value::Integer(360);
    let over =
        [("output.snapshots_every", &every), ("output.frames_every", &every)].map(|(k, v)| (k.to_string(), v.clone()));
    let sc = Scenario::load_with_overrides(&example(), &over).unwrap();
    let out = tmp("drawn");
    softdem::run::session::run_modal(&sc, softdem::backend::BackendKind::Cpu, Some(&out), Some(720), true).unwrap();
    let (h, rows) = read_series(&out);
    let last = rows.last().unwrap();
    let centre = [last[col(&h, "disk.x")], last[col(&h, "disk.y")]];
    for step in [0, 360, 720] {
        let f = format!("frames/modal_{step:06}.vtp");
        let vtk = vtkio::Vtk::import(out.join(&f)).unwrap_or_else(|e| panic!("{f}: {e:?}"));
        let DataSet::PolyData { pieces, .. } = vtk.data else {
            panic!("{f}: not PolyData")
        };
        let Piece::Inline(p) = &pieces[0] else {
            panic!("inline piece")
        };
        assert_eq!(p.num_points(), 128, "{f}");
        assert_eq!(p.polys.as_ref().map(|c| c.num_cells()), Some(1), "{f}");
    }
    // The disk alone fills the picture: the modal colour at its centre's pixel (the view spans
    // the outline only, so the centre is the middle of the drawing area).
    let png = out.join("snapshots/snapshot_000720.png");
    let mut reader = png::Decoder::new(std::fs::File::open(&png).unwrap())
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let outline: Vec<([f64; 2], f64)> = std::fs::read_to_string(out.join("frames/modal_000720.vtp"))
        .unwrap()
        .lines()
        .filter_map(|l| {
            let v: Vec<f64> = l.split(' ').filter_map(|x| x.parse().ok()).collect();
            (v.len() == 3 && l.ends_with(" 0")).then(|| ([v[0], v[1]], 0.0))
        })
        .collect();
    assert_eq!(outline.len(), 128);
    let view = softdem::output::snapshot::View::fit(outline, sc.settings.snapshot_width).unwrap();
    let c = view.px(centre);
    let i = c.1 as usize * info.line_size + c.0 as usize * info.color_type.samples();
    assert_eq!(buf[i..i + 3], [MODAL_FILL.0, MODAL_FILL.1, MODAL_FILL.2], "pixel {c:?}");
    assert!(out.join("snapshots/snapshot_000360.png").exists());
    let _ = std::fs::remove_dir_all(&out);
}
