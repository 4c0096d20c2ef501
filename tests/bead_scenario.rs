//! Bead bodies in sphere scenarios (`[spheres.beads]`, issue 24) through the shared driver: a
//! Kelvin–Voigt bond's creep and recovery against the exact solution, a bond breaking at the
//! analytic time, the lattice compression equal to the library's scene, the eq-6 walls moved by
//! a stage and held (their forces eq 6 summed over the beads), frames with bonds and
//! stresses, a bit-exact resume across a stage change with bonds broken before and after the
//! checkpoint (CPU and lavapipe), the GPU against the CPU, and `check`/`compare`. GPU cases
//! fail (never skip) when no adapter exists.

use softdem::backend::BackendKind;
use softdem::output::plots::Table;
use softdem::run::session::run;
use std::path::{Path, PathBuf};

mod run_cases;
use run_cases::{ok, path, request, softdem, tmp};

const SMALL: &str = "tests/scenarios/beads_small.toml";
const CREEP: &str = "scenarios/beads/kv_creep.toml";

/// Extension x(t) of the creep scenario's bond: (m/2) ẍ + b ẋ + k x = F (m = 10⁻², k = 0.2,
/// b = 0.2, F = 1 while t < 6, then 0), x(0) = ẋ(0) = 0, overdamped: exact sums of exponentials.
fn creep_exact(t: f64) -> f64 {
    let (m, k, b, f): (f64, f64, f64, f64) = (0.5e-2, 0.2, 0.2, 1.0);
    let disc = (b * b - 4.0 * m * k).sqrt();
    let (r1, r2) = ((-b + disc) / (2.0 * m), (-b - disc) / (2.0 * m));
    // Creep: x = F/k [1 + (r2 e^{r1 t} − r1 e^{r2 t}) / (r1 − r2)].
    let creep = |t: f64| f / k * (1.0 + (r2 * (r1 * t).exp() - r1 * (r2 * t).exp()) / (r1 - r2));
    let creep_v = |t: f64| f / k * (r1 * r2 * ((r1 * t).exp() - (r2 * t).exp())) / (r1 - r2);
    if t <= 6.0 {
        return creep(t);
    }
    // Recovery from x0, v0 at 6 s: x = A e^{r1 s} + B e^{r2 s}.
    let (x0, v0) = (creep(6.0), creep_v(6.0));
    let a = (v0 - r2 * x0) / (r1 - r2);
    let s = t - 6.0;
    a * (r1 * s).exp() + (x0 - a) * (r2 * s).exp()
}

/// The cell array `name` of the first piece of an ASCII or binary `.vtp`, and its point count.
fn vtp_cells(file: &Path, name: &str) -> (usize, Vec<f64>) {
    use vtkio::model::{Attribute, DataSet, Piece};
    let vtk = vtkio::Vtk::import(file).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
    let DataSet::PolyData { pieces, .. } = vtk.data else {
        panic!("not polydata")
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("not inline")
    };
    let values = p
        .data
        .cell
        .iter()
        .chain(&p.data.point)
        .find_map(|a| match a {
            Attribute::DataArray(d) if d.name == name => d.data.clone().cast_into::<f64>(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no array {name} in {}", file.display()));
    (p.num_points(), values)
}

/// The creep scenario: the bond's stretch in the bonds frames (× the 10 m rest length) follows
/// the exact solution within 0.5 % of F/k = 5 m through creep and recovery (velocity Verlet
/// with Δt = 2 ms: b Δt/(m/2) = 0.08), and the frames (bonds and spheres parts) carry the
/// per-bead stress.
#[test]
fn kv_creep_and_recovery_follow_the_exact_solution() {
    let out = tmp("creep");
    let mut req = request(&path(CREEP), BackendKind::Cpu, Some(out.clone()), 6000, None);
    req.overrides = vec![
        ("output.vtk".into(), toml::Value::String("ascii".into())),
        ("output.frames_every".into(), toml::Value::Integer(250)),
    ];
    let r = run(&req).unwrap();
    assert_eq!(r.end, softdem::run::RunEnd::Done);
    let mut checked = 0;
    for step in (250..=6000).step_by(250) {
        let (points, stretch) = vtp_cells(&out.join(format!("frames/bonds_{step:06}.vtp")), "stretch");
        assert_eq!((points, stretch.len()), (2, 1), "two beads, one bond");
        let t = step as f64 * 2e-3;
        let (x, want) = (10.0 * stretch[0], creep_exact(t));
        assert!((x - want).abs() < 0.025, "t = {t}: extension {x} vs exact {want}");
        checked += 1;
    }
    assert_eq!(checked, 24);
    // Near the end of the creep the bond nearly carries F: 4.98 m.
    assert!((creep_exact(6.0) - 4.98).abs() < 0.01);
    let (_, tau) = vtp_cells(&out.join("frames/bonds_002000.vtp"), "max_shear");
    assert!(tau.iter().all(|x| x.is_finite() && *x > 0.0), "max_shear {tau:?}");
    // The sphere part carries the same per-bead stress.
    let (n, tau_spheres) = vtp_cells(&out.join("frames/frame_002000.vtp"), "max_shear");
    assert_eq!((n, &tau_spheres), (2, &tau));
    assert_eq!(
        vtp_cells(&out.join("frames/frame_002000.vtp"), "bead_stress").1.len(),
        18
    );
    let t = Table::read(&out.join("series.csv")).unwrap();
    assert_eq!(t.column("bonds_intact").unwrap().last(), Some(&1.0));
    std::fs::remove_dir_all(out).ok();
}

/// With `break_stretch = 0.3` the bond breaks at the first evaluation where x/l₀ > 0.3, i.e.
/// when the exact creep passes 3 m (within one step), and is logged once in breaks.csv.
#[test]
fn a_bond_breaks_when_its_stretch_passes_the_threshold() {
    let out = tmp("break");
    // (Past the break the free beads fly apart at F/m = 100 m/s²: stop before the runaway check.)
    let mut req = request(&path(CREEP), BackendKind::Cpu, Some(out.clone()), 500, None);
    req.overrides = vec![("spheres.beads.break_stretch".into(), toml::Value::Float(0.3))];
    run(&req).unwrap();
    // Bisection of creep_exact(t) = 3.
    let (mut lo, mut hi) = (0.0, 6.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if creep_exact(mid) < 3.0 {
            lo = mid
        } else {
            hi = mid
        }
    }
    let text = std::fs::read_to_string(out.join("breaks.csv")).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "step,time,bond,bead_i,bead_j,body,stretch,spring_force");
    assert_eq!(rows.len(), 2, "{text}");
    let f: Vec<&str> = rows[1].split(',').collect();
    let (time, stretch): (f64, f64) = (f[1].parse().unwrap(), f[6].parse().unwrap());
    assert!((time - lo).abs() < 2.5e-3, "broke at {time}, exact {lo}");
    assert!(stretch > 0.3 && stretch < 0.301, "stretch {stretch}");
    assert_eq!(&f[2..6], &["0", "0", "1", "pair"]);
    let spring: f64 = f[7].parse().unwrap();
    assert!((spring - 0.2 * stretch * 10.0).abs() < 1e-5 * spring);
    let t = Table::read(&out.join("series.csv")).unwrap();
    assert_eq!(t.column("bonds_broken").unwrap().last(), Some(&1.0));
    std::fs::remove_dir_all(out).ok();
}

/// The shipped lattice compression builds the library's scene (`beads::scenes::
/// paper_compression_spec(6)`, validated against Hertz at larger sizes in beads_compression.rs)
/// with its planes as eq-6 walls of the sphere engine, the top one moved at 2 m/s by the stage
/// "press", the bottom one static (the paper's set-up): both walls' forces over the first 1000
/// steps equal the library run's (its `BeadPlane`s given the same motion) within 1e-5 of the
/// largest (the series' 7 digits; the wall pass sums in another order than the bead source),
/// the force grows; a shear slice PNG is written at the end.
#[test]
fn lattice_compression_scenario_is_the_library_scene() {
    use softdem::beads::scenes::{compression_scene, paper_compression_spec, run_compression, BeadRun};
    let out = tmp("lattice");
    run(&request(
        &path("scenarios/beads/lattice_sphere_compression.toml"),
        BackendKind::Cpu,
        Some(out.clone()),
        1000,
        None,
    ))
    .unwrap();
    let (mut scene, body) = compression_scene(&paper_compression_spec(6.0));
    scene.forces.planes[0].velocity = [0.0, 0.0, -2.0];
    scene.forces.planes[1].velocity = [0.0; 3];
    let t = Table::read(&out.join("series.csv")).unwrap();
    let (steps, ft, fb) = (
        t.column("step").unwrap(),
        t.column("top_fz").unwrap(),
        t.column("bottom_fz").unwrap(),
    );
    assert_eq!(body.states.len(), 895);
    let mut lib = BeadRun::cpu(scene);
    let samples = run_compression(&mut lib, None, 1000, 50).unwrap();
    let scale = samples
        .iter()
        .map(|s| s.f_top.abs().max(s.f_bottom.abs()))
        .fold(0.0, f64::max);
    let mut at = vec![];
    for s in &samples {
        let step = (s.time / 2e-9).round();
        let k = steps.iter().position(|&x| x == step).unwrap();
        assert!(
            (ft[k] - s.f_top).abs() <= 1e-5 * scale && (-fb[k] - s.f_bottom).abs() <= 1e-5 * scale,
            "step {step}: scenario {} {} vs library {} {}",
            ft[k],
            -fb[k],
            s.f_top,
            s.f_bottom
        );
        at.push(ft[k]);
    }
    // The bottom wall feels the sphere once the wave has crossed it (≈ 0.6 µs = 300 steps).
    assert!(fb[steps.iter().position(|&x| x == 1000.0).unwrap()] < -1e-3);
    // The lattice rings at the scale of 50 steps; over 500 the force grows.
    let last = *at.last().unwrap();
    assert!(last > 1.5 * at[9] && at[9] > 0.0 && last > 5e-3, "forces {at:?}");
    assert!(out.join("snapshots").read_dir().unwrap().any(|e| {
        let n = e.unwrap().file_name().to_string_lossy().to_string();
        n.starts_with("shear_") && n.ends_with(".png")
    }));
    std::fs::remove_dir_all(out).ok();
}

/// The small scenario's eq-6 walls (`[[spheres.walls]]` with `law = "eq6"`, S = 10¹⁰ N/m²):
/// the stage "press" moves the top one at 10 m/s for 600 steps, "hold" keeps it where it
/// stopped, the bottom one never moves (top_z, bottom_z in series.csv within 1e-12 m); at the
/// end both walls' forces in series.csv are eq 6 summed over the beads of final.csv,
/// Σ S (r − (z_b − z_w)·n)², within 1e-4 (f32 depths of sub-micrometre overlaps).
#[test]
fn eq6_walls_move_by_a_stage_then_hold_and_push_by_s_p2() {
    let out = tmp("eq6-walls");
    run(&request(&path(SMALL), BackendKind::Cpu, Some(out.clone()), 800, None)).unwrap();
    let t = Table::read(&out.join("series.csv")).unwrap();
    let c = |n: &str| t.column(n).unwrap();
    let (steps, top_z, bot_z, top_f, bot_f) = (c("step"), c("top_z"), c("bottom_z"), c("top_fz"), c("bottom_fz"));
    let (z_top0, z_bot0, dt, v) = (3.7625e-5, -3.7625e-5, 2e-9, 10.0);
    for (k, &s) in steps.iter().enumerate() {
        let z = z_top0 - v * dt * s.min(600.0);
        assert!((top_z[k] - z).abs() < 1e-12, "step {s}: top at {} vs {z}", top_z[k]);
        assert!((bot_z[k] - z_bot0).abs() < 1e-12, "step {s}: bottom moved");
    }
    let f = Table::read(&out.join("final.csv")).unwrap();
    let (z, r) = (f.column("z").unwrap(), f.column("r").unwrap());
    let last = steps.len() - 1;
    assert_eq!(steps[last], 800.0);
    let eq6 = |zw: f64, n: f64| -> f64 {
        z.iter()
            .zip(&r)
            .map(|(&zb, &rb)| (rb - (zb - zw) * n).max(0.0).powi(2) * 1e10)
            .sum()
    };
    let (want_top, want_bot) = (eq6(top_z[last], -1.0), eq6(bot_z[last], 1.0));
    assert!(want_top > 1e-4 && want_bot > 1e-4, "{want_top} {want_bot}");
    assert!(
        (top_f[last] - want_top).abs() < 1e-4 * want_top,
        "top wall: series {} vs Σ S p² {want_top}",
        top_f[last]
    );
    assert!(
        (-bot_f[last] - want_bot).abs() < 1e-4 * want_bot,
        "bottom wall: series {} vs Σ S p² {want_bot}",
        -bot_f[last]
    );
    std::fs::remove_dir_all(out).ok();
}

fn half_resume(kind: BackendKind, tag: &str) -> PathBuf {
    run_cases::half_resume_equals_full(&path(SMALL), kind, 800, tag, &["final.csv", "series.csv", "breaks.csv"])
}

/// Break steps in breaks.csv.
fn break_steps(dir: &Path) -> Vec<u64> {
    std::fs::read_to_string(dir.join("breaks.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn cpu_bead_run_resumes_bit_for_bit_across_a_stage_change_and_breaks() {
    let full = half_resume(BackendKind::Cpu, "bead-cpu");
    let b = break_steps(&full);
    assert!(
        b.iter().any(|&s| s < 400) && b.iter().any(|&s| s > 400),
        "breaks on both sides of the checkpoint: {b:?}"
    );
    let series = std::fs::read_to_string(full.join("series.csv")).unwrap();
    assert!(series.contains(",press,") && series.contains(",hold,"));
    std::fs::remove_dir_all(full).ok();
}

/// GPU: resume bit for bit; against the CPU after 800 steps (bonds breaking, the eq-6 walls
/// moved by a stage and then held), the same bonds broken, each within one step of the CPU's
/// break (at the same step, the same stretch within 1e-4 of it), every bead within 1e-4 l of the
/// CPU's and the walls' forces within 1e-5 of the largest (lavapipe gives 0 and equal files: the
/// bond and wall passes are the same f32 arithmetic in the same order; a device that fuses
/// multiply-adds rounds differently, so the files' text is not compared).
#[test]
fn gpu_bead_run_resumes_bit_for_bit_and_follows_the_cpu() {
    let gpu = half_resume(BackendKind::Gpu, "bead-gpu");
    let cpu = tmp("bead-cpu-ref");
    run(&request(&path(SMALL), BackendKind::Cpu, Some(cpu.clone()), 800, None)).unwrap();
    // breaks.csv: step, time, bond, bead_i, bead_j, body, stretch, spring_force; by bond.
    let breaks = |d: &Path| {
        let text = std::fs::read_to_string(d.join("breaks.csv")).unwrap();
        let mut rows: Vec<Vec<String>> = (text.lines().skip(1))
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        rows.sort_by_key(|r| r[2].parse::<u64>().unwrap());
        rows
    };
    let (bc, bg) = (breaks(&cpu), breaks(&gpu));
    assert_eq!(bc.len(), bg.len(), "the GPU broke another number of bonds");
    for (c, g) in bc.iter().zip(&bg) {
        assert_eq!(c[2..6], g[2..6], "the GPU broke other bonds");
        let num = |r: &[String], k: usize| r[k].parse::<f64>().unwrap();
        assert!(
            (num(c, 0) - num(g, 0)).abs() <= 1.0,
            "bond {} broke at step {} on the CPU, {} on the GPU",
            c[2],
            c[0],
            g[0]
        );
        if c[0] == g[0] {
            let (sc, sg) = (num(c, 6), num(g, 6));
            assert!(
                (sc - sg).abs() <= 1e-4 * sc.abs(),
                "bond {}: stretch at break CPU {sc} GPU {sg}",
                c[2]
            );
        }
    }
    let pos = |d: &Path| {
        let t = Table::read(&d.join("final.csv")).unwrap();
        let c = |n: &str| t.column(n).unwrap();
        let (x, y, z) = (c("x"), c("y"), c("z"));
        (0..x.len()).map(|i| [x[i], y[i], z[i]]).collect::<Vec<_>>()
    };
    let (a, b) = (pos(&cpu), pos(&gpu));
    let worst = a
        .iter()
        .zip(&b)
        .map(|(p, q)| (0..3).map(|k| (p[k] - q[k]).powi(2)).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    assert!(
        worst < 1e-4 * 12.5e-6,
        "GPU beads differ from the CPU's by {worst:.3e} m"
    );
    // The eq-6 walls' forces (the sphere engine's wall pass on each backend) over the run: within
    // 1e-5 of the largest (lavapipe: the same f32 operations in the same order).
    let forces = |d: &Path| {
        let t = Table::read(&d.join("series.csv")).unwrap();
        [t.column("top_fz").unwrap(), t.column("bottom_fz").unwrap()]
    };
    let (fc, fg) = (forces(&cpu), forces(&gpu));
    let scale = fc.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(scale > 1e-3);
    for (a, b) in fc.iter().zip(&fg) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-5 * scale, "wall force CPU {x} vs GPU {y}");
        }
    }
    std::fs::remove_dir_all(gpu).ok();
    std::fs::remove_dir_all(cpu).ok();
}

/// `check` lists the bodies, the eq-6 walls and the bonds' stability bound; `compare` adds the bond
/// rows (both backends bit-identical here); every shipped bead scenario passes `check`.
#[test]
fn check_and_compare_take_bead_scenarios() {
    let text = ok(softdem().arg("check").arg(path(SMALL)));
    assert!(
        text.contains("bead body \"ball\": 123 beads, 762 bonds")
            && text.contains("wall 0 \"top\": kind plane")
            && text.contains("law eq 6 (F = S p², S = 1.0000e10)")
            && text.contains("bonds break at stretch 0.02"),
        "{text}"
    );
    for f in ["lattice_sphere_compression", "core_shell_sphere", "kv_creep"] {
        let text = ok(softdem().arg("check").arg(path(&format!("scenarios/beads/{f}.toml"))));
        assert!(text.contains("bead body"), "{text}");
    }
    let cmp = ok(softdem().arg("compare").arg(path(SMALL)).arg("--steps").arg("400"));
    let row = |q: &str| -> Vec<String> {
        cmp.lines()
            .find(|l| l.starts_with(q))
            .unwrap_or_else(|| panic!("no {q} in {cmp}"))
            .split(',')
            .map(str::to_string)
            .collect()
    };
    assert!(row("bonds_broken")[1].parse::<f64>().unwrap() > 0.0, "{cmp}");
    assert_eq!(row("bonds_broken")[1], row("bonds_broken")[2]);
    assert!(row("wall0_fz")[1].parse::<f64>().unwrap() > 0.0);
    assert!(cmp.contains("max |df| over bonds"), "{cmp}");
    // The core–shell body: shell bonds 20 N/m, core 200 N/m.
    let cs = ok(softdem()
        .arg("check")
        .arg(path("scenarios/beads/core_shell_sphere.toml")));
    assert!(cs.contains("k 2.0000e1 … 2.0000e2"), "{cs}");
}
