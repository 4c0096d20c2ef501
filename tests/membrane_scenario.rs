//! A membrane-enclosed cell in a sphere scenario (`[spheres.membrane]`, issue 25) through the
//! shared driver: the series' membrane columns, the rims on their platens, the membrane frames,
//! a bit-exact resume across a stage change on the CPU; the GPU backend against the CPU (a
//! stated tolerance), rerun bit for bit and resumed bit for bit; the σ_c ramp of the stages with a
//! servo top platen; the dense preparation (`[spheres.membrane.packing]`).

use softdem::backend::BackendKind;
use softdem::output::plots::Table;
use softdem::run::session::run;

mod run_cases;
use run_cases::{path, request};

const SMALL: &str = "tests/scenarios/membrane_small.toml";

/// 400 steps, resumed from step 200 bit for bit (the stage changes at 250); then on the full
/// run: V0 is the cylinder's volume within the 22-gon's 1.4 % (within 2 %), σ_c squeezes the
/// membrane (ε_v > 0 before any grain touches it), the columns agree with each other, the top
/// rim sits on the top platen, and the membrane frame is the mesh.
#[test]
fn membrane_cell_resumes_bit_for_bit_and_measures_its_volume() {
    let full = run_cases::half_resume_equals_full(
        &path(SMALL),
        BackendKind::Cpu,
        400,
        "membrane",
        &["final.csv", "series.csv"],
    );
    let t = Table::read(&full.join("series.csv")).unwrap();
    let c = |n: &str| t.column(n).unwrap();
    let (v, ev, ea, s1, sd, top) = (
        c("membrane_volume"),
        c("volumetric_strain"),
        c("axial_strain"),
        c("sigma_1"),
        c("sigma_d"),
        c("top_z"),
    );
    let cyl = std::f64::consts::PI * 0.014f64.powi(2) * 0.03;
    assert!((v[0] / cyl - 1.0).abs() < 0.02, "V0 = {} vs π R² H = {cyl}", v[0]);
    let last = v.len() - 1;
    assert!(ev[last] > 0.01, "σ_c did not squeeze the membrane: ε_v = {}", ev[last]);
    for k in 0..v.len() {
        assert!((ev[k] - (v[0] - v[k]) / v[0]).abs() < 1e-6, "ε_v column");
        assert!((ea[k] - (0.03 - (top[k] - 0.0)) / 0.03).abs() < 1e-6, "ε_a column");
        assert!((sd[k] - (s1[k] - 2.0e4)).abs() < 1e-6 * 2.0e4, "σ_d = σ_1 − σ_c");
    }
    assert!(
        top[last] < 0.03 - 3e-6,
        "the top platen moved in \"shear\" (0.05 m/s × 150 steps × 6e-7 s)"
    );
    let series = std::fs::read_to_string(full.join("series.csv")).unwrap();
    assert!(series.contains(",confine,") && series.contains(",shear,"));
    // The top rim (the vertices that started at z = H) is on the top platen.
    let f = Table::read(&full.join("final.csv")).unwrap();
    let (mat, z) = (f.column("material").unwrap(), f.column("z").unwrap());
    let verts: Vec<f64> = (0..mat.len()).filter(|&i| mat[i] == 2.0).map(|i| z[i]).collect();
    let on_top = verts.iter().filter(|&&zz| (zz - top[last]).abs() < 1e-12).count();
    let ring = (2.0 * std::f64::consts::PI * 0.014 / 4e-3).round() as usize;
    assert_eq!(on_top, ring, "the top rim follows the platen");
    assert!(verts.iter().all(|&zz| zz <= top[last] + 1e-12 && zz >= -1e-12));
    // The membrane frame: the triangle mesh with vertex forces.
    use vtkio::model::{DataSet, Piece};
    let vtk = vtkio::Vtk::import(full.join("frames/membrane_000200.vtp")).unwrap();
    let DataSet::PolyData { pieces, .. } = vtk.data else {
        panic!("not polydata")
    };
    let Piece::Inline(p) = &pieces[0] else {
        panic!("not inline")
    };
    assert_eq!(p.num_points(), verts.len());
    let polys = p.polys.as_ref().map_or(0, |x| x.num_cells());
    assert_eq!(
        polys,
        2 * ring * (p.num_points() / ring - 1),
        "two triangles per quad of rings"
    );
    let names: Vec<String> = p.data.point.iter().map(|a| format!("{a:?}")).collect();
    for want in ["force", "velocity"] {
        assert!(
            names.iter().any(|n| n.contains(&format!("\"{want}\""))),
            "no array {want}"
        );
    }
    std::fs::remove_dir_all(full).ok();
}

const GPU: &str = "tests/scenarios/membrane_gpu.toml";
const PACKING: &str = "tests/scenarios/membrane_packing.toml";

/// One column of a CSV file.
fn col(dir: &std::path::Path, file: &str, name: &str) -> Vec<f64> {
    Table::read(&dir.join(file)).unwrap().column(name).unwrap()
}

/// The membrane cell of `membrane_gpu.toml` (60 grains pressed on the patches and a platen, σ_c
/// ramped, the servo platen turned into a moving plane) for 400 steps on lavapipe: resumed from
/// step 200 bit for bit (checkpoint and outputs), rerun bit for bit, and within a stated
/// tolerance of the CPU: positions 1e-8 m (seen 1.3e-10 m), forces 1e-5 of the largest (seen
/// 2.5e-7), the series' ε_v and ε_a 1e-6 (absolute), σ_1 and σ_d 1e-3 of σ_c. Both backends
/// ramp σ_c as the stage says and move the platen at the stage's velocity once it is a plane.
#[test]
fn gpu_membrane_cell_follows_the_cpu_and_resumes_bit_for_bit() {
    let files = ["final.csv", "series.csv", "checkpoint.bin"];
    let gpu = run_cases::half_resume_equals_full(&path(GPU), BackendKind::Gpu, 400, "membrane-gpu", &files[..2]);
    let again = run_cases::tmp("membrane-gpu-again");
    run(&request(&path(GPU), BackendKind::Gpu, Some(again.clone()), 400, None)).unwrap();
    for f in files {
        assert!(
            std::fs::read(gpu.join(f)).unwrap() == std::fs::read(again.join(f)).unwrap(),
            "two GPU runs differ in {f}"
        );
    }
    let cpu = run_cases::tmp("membrane-gpu-cpu");
    run(&request(&path(GPU), BackendKind::Cpu, Some(cpu.clone()), 400, None)).unwrap();
    // Final states: positions and forces of every sphere (grains and vertices).
    let f_max = ["fx", "fy", "fz"]
        .iter()
        .flat_map(|k| col(&cpu, "final.csv", k))
        .fold(0.0f64, |a, b| a.max(b.abs()));
    for (keys, tol) in [(["x", "y", "z"], 1e-8), (["fx", "fy", "fz"], 1e-5 * f_max)] {
        for k in keys {
            let (a, b) = (col(&cpu, "final.csv", k), col(&gpu, "final.csv", k));
            let d = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
            assert!(d <= tol, "{k}: CPU and GPU differ by {d:e} (bound {tol:e})");
        }
    }
    // The grains press on the patches: grain–grain contacts are rare here, so a horizontal
    // force on a grain is a patch contact.
    let (mat, fx, fy) = (
        col(&cpu, "final.csv", "material"),
        col(&cpu, "final.csv", "fx"),
        col(&cpu, "final.csv", "fy"),
    );
    let pressed = (0..mat.len())
        .filter(|&i| mat[i] == 0.0 && fx[i].hypot(fy[i]) > 0.1)
        .count();
    assert!(pressed >= 20, "only {pressed} grains press on the membrane");
    let sigma_c = 2.0e4;
    for (k, tol) in [
        ("volumetric_strain", 1e-6),
        ("axial_strain", 1e-6),
        ("sigma_1", 1e-3 * sigma_c),
        ("sigma_d", 1e-3 * sigma_c),
    ] {
        let (a, b) = (col(&cpu, "series.csv", k), col(&gpu, "series.csv", k));
        let d = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(d <= tol, "series {k}: CPU and GPU differ by {d:e} (bound {tol:e})");
    }
    for dir in [&cpu, &gpu] {
        let (step, s1, sd, top) = (
            col(dir, "series.csv", "step"),
            col(dir, "series.csv", "sigma_1"),
            col(dir, "series.csv", "sigma_d"),
            col(dir, "series.csv", "top_z"),
        );
        let dt = 5.973346e-7; // `softdem check`: 0.2 of the Rayleigh time
        for k in 0..step.len() {
            // The ramp: σ_c = 20 kPa · min(1, n dt / 60 µs) after n steps of "confine".
            let want = sigma_c * (step[k] * dt / 6.0e-5).min(1.0);
            assert!(
                ((s1[k] - sd[k]) - want).abs() <= 1e-6 * sigma_c,
                "σ_c at step {}: {} vs {want}",
                step[k],
                s1[k] - sd[k]
            );
        }
        // "shear" (from step 200): the servo platen is a plane moving at −0.5 m/s.
        let (a, b) = (step.iter().position(|&x| x == 200.0).unwrap(), step.len() - 1);
        let moved = top[b] - top[a];
        let want = -0.5 * (step[b] - step[a]) * dt;
        assert!((moved - want).abs() < 1e-3 * want.abs(), "{moved} vs {want}");
        // Before it the servo moved it toward its target (it carried no load).
        assert!(top[a] < 0.03 - 1e-7, "the servo platen did not move: {}", top[a]);
    }
    for d in [cpu, gpu, again] {
        std::fs::remove_dir_all(d).ok();
    }
}

/// The dense preparation from scenario keys: `[spheres.membrane.packing]` gives the grains
/// `membrane::triaxial::grow_packing` gives for the same cell (bit for bit), the membrane at
/// R/cos(π/n) around them with the compacted height, the top platen there with the rim's
/// cross-section as its servo area; the packing is dense for a mould only 4 grain radii wide
/// (φ > 0.42, seen 0.464; random sequential addition stops near 0.3, the shipped case's 0.29) and
/// its grains are inside the mould. Then 500 steps on the CPU: the ramp
/// reaches σ_c and σ_p (the servo platen) follows it within 25 % at the end of "confine".
#[test]
fn dense_preparation_from_scenario_keys() {
    use softdem::membrane::triaxial::{grow_packing, CellSpec};
    use softdem::spheres::pair_law::SphereMaterial;
    use softdem::spheres::precision::df3_value;
    let sc = softdem::scenario::Scenario::load(&path(PACKING)).unwrap();
    let (_, sb) = sc.build_sphere_run().unwrap();
    let m = sb.membrane.as_ref().expect("a membrane");
    let grains = &sb.states[..m.first as usize];
    assert_eq!(grains.len(), 64);
    // The same packing as the library's preparation of this cell.
    let spec = CellSpec {
        radius: 0.010,
        height: 0.024,
        r_min: 2.3e-3,
        r_max: 2.7e-3,
        n_grains: 64,
        grain: SphereMaterial {
            young: 4.6e9,
            poisson: 0.245,
            restitution: 0.5,
            friction: 0.25,
            rolling_friction: 0.0,
            density: 2650.0,
        },
        membrane_friction: 0.0,
        sigma_c: 2.0e4,
        dt: 1.0e-6,
        damping: 200.0,
        shear_damping: 200.0,
        seed: 3,
    };
    let p = grow_packing(&spec, 2.0e-4, 0.05 * 2.0e4, 500, 4000);
    for (a, b) in grains.iter().zip(&p.grains) {
        assert_eq!((a.pos_hi, a.pos_lo, a.radius), (b.pos_hi, b.pos_lo, b.radius));
    }
    let top = &sb.walls[m.top as usize];
    let h = df3_value(top.point_hi, top.point_lo)[2];
    assert_eq!(h, p.height, "the top platen at the compacted height");
    assert!((m.h0 - p.height).abs() < 1e-15);
    let solid: f64 = grains
        .iter()
        .map(|g| 4.0 / 3.0 * std::f64::consts::PI * (g.radius as f64).powi(3))
        .sum();
    let phi = solid / (std::f64::consts::PI * 0.01f64.powi(2) * h);
    assert!(phi > 0.42, "φ = {phi}");
    for g in grains {
        let x = g.position();
        assert!(
            x[0].hypot(x[1]) + g.radius as f64 <= 0.010 * (1.0 + 1e-3),
            "a grain outside the mould"
        );
        assert!(x[2] - g.radius as f64 >= -1e-5 && x[2] + g.radius as f64 <= h + 1e-5);
    }
    // The membrane: rings of n vertices at R/cos(π/n), from z = 0 to h.
    let v: Vec<[f64; 3]> = sb.states[m.first as usize..].iter().map(|s| s.position()).collect();
    let n = (2.0 * std::f64::consts::PI * 0.010 / 4.0e-3).round();
    let want = 0.010 / (std::f64::consts::PI / n).cos();
    for x in &v {
        assert!(
            (x[0].hypot(x[1]) / want - 1.0).abs() < 1e-6,
            "vertex at radius {}",
            x[0].hypot(x[1])
        );
    }
    let zmax = v.iter().map(|x| x[2]).fold(f64::MIN, f64::max);
    assert!((zmax - h).abs() < 1e-12);
    // The servo's area: the rim polygon, (n/2) R_m² sin(2π/n).
    let poly = 0.5 * n * want * want * (2.0 * std::f64::consts::PI / n).sin();
    assert!((top.size as f64 / poly - 1.0).abs() < 1e-6, "{} vs {poly}", top.size);
    // The run: the ramp reaches σ_c, the servo platen carries it.
    let out = run_cases::tmp("membrane-packing");
    run(&request(&path(PACKING), BackendKind::Cpu, Some(out.clone()), 500, None)).unwrap();
    let (step, s1, sd) = (
        col(&out, "series.csv", "step"),
        col(&out, "series.csv", "sigma_1"),
        col(&out, "series.csv", "sigma_d"),
    );
    let k = step.iter().position(|&x| x == 300.0).unwrap();
    assert!(((s1[k] - sd[k]) - 2.0e4).abs() < 1e-6 * 2.0e4, "σ_c reached");
    assert!(
        (s1[k] / 2.0e4 - 1.0).abs() < 0.25,
        "σ_p = {} at the end of confine",
        s1[k]
    );
    std::fs::remove_dir_all(out).ok();
}

/// The shipped triaxial case and the test cells build (`softdem check` path); the case's
/// 1750-grain preparation takes minutes, so it is built here with 150 grains and short phases
/// (the keys as shipped, overridden as a sweep would).
#[test]
fn the_triaxial_scenario_builds() {
    let quick: Vec<(String, toml::Value)> = [
        ("spheres.membrane.packing.count", 150),
        ("spheres.membrane.packing.relax_steps", 200),
        ("spheres.membrane.packing.compact_steps", 500),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), toml::Value::Integer(*v)))
    .collect();
    for (f, over) in [
        ("scenarios/membrane/triaxial_case1.toml", quick.clone()),
        (SMALL, vec![]),
        (GPU, vec![]),
    ] {
        let sc = softdem::scenario::Scenario::load_with_overrides(&path(f), &over).unwrap();
        let (_, sb) = sc.build_sphere_run().unwrap();
        let m = sb.membrane.as_ref().expect("a membrane");
        assert_eq!(sb.states.len() as u32, m.first + m.n_vertices);
        assert_eq!(sb.material_names.last().map(String::as_str), Some("membrane"));
    }
}

/// The sphere PNG draws the membrane (`sphere_picture::render_with`): the initial cell of
/// `membrane_small.toml` drawn without and with its membrane. With it, the slice shows the cut
/// (dark, `SLICE_LINE`) where the plane y = y_mid meets the ring, between R cos(π/n) and R from
/// the axis at mid-height, where the picture without it is white (the grains stay within
/// 11 mm of the 14 mm membrane); the view is filled at 0.95 R (the far half, grey); and no
/// pixel changes outside the membrane's projection.
#[test]
fn the_sphere_snapshot_draws_the_membrane() {
    use softdem::output::sphere_picture::{render_with, MembraneView};
    use softdem::spheres::backend::SphereSnapshot;
    let sc = softdem::scenario::Scenario::load(&path(SMALL)).unwrap();
    let (_, sb) = sc.build_sphere_run().unwrap();
    let m = sb.membrane.as_ref().unwrap();
    let snap = SphereSnapshot {
        states: sb.states.clone(),
        forces: vec![Default::default(); sb.states.len()],
        walls: sb.walls.clone(),
        ..Default::default()
    };
    let dir = run_cases::tmp("membrane-png");
    std::fs::create_dir_all(&dir).unwrap();
    let width = 800u32;
    let read = |with: bool| {
        let p = dir.join(format!("{with}.png"));
        let view = with.then_some(MembraneView {
            first: m.first as usize,
            triangles: &m.triangles,
        });
        render_with(&p, &snap, width, "test", view).unwrap();
        let mut r = png::Decoder::new(std::fs::File::open(&p).unwrap()).read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size()];
        let info = r.next_frame(&mut buf).unwrap();
        let (w, n) = (info.width as usize, info.color_type.samples());
        (0..buf.len() / n)
            .map(|k| [buf[k * n], buf[k * n + 1], buf[k * n + 2]])
            .collect::<Vec<[u8; 3]>>()
            .chunks(w)
            .map(|row| row.to_vec())
            .collect::<Vec<_>>()
    };
    let (a, b) = (read(false), read(true));
    // The picture's mapping (sphere_picture::render): the bounding box of the spheres.
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for s in &sb.states {
        let c = s.position();
        for k in 0..3 {
            lo[k] = lo[k].min(c[k] - s.radius as f64);
            hi[k] = hi[k].max(c[k] + s.radius as f64);
        }
    }
    let panel = (width / 2) as f64;
    let scale = 0.92 * panel / (hi[0] - lo[0]).max(hi[2] - lo[2]);
    let cx = 0.5 * (lo[0] + hi[0]);
    let col = |x: f64, off: f64| (off + 0.5 * panel + (x - cx) * scale) as usize;
    let row = (40.0 + 0.5 * panel) as usize;
    let r = 0.014;
    let n = (2.0 * std::f64::consts::PI * r / 4e-3).round();
    let (c0, c1) = (col(r * (std::f64::consts::PI / n).cos(), panel) - 2, col(r, panel) + 2);
    let dark = |p: [u8; 3]| p.iter().all(|&x| x < 60);
    assert!(
        (c0..=c1).any(|c| dark(b[row][c])),
        "no membrane cut in the slice at columns {c0}..{c1}: {:?}",
        &b[row][c0..=c1]
    );
    assert!(
        (c0..=c1).all(|c| a[row][c] == [255; 3]),
        "the slice without the membrane is not white there"
    );
    let c = col(0.95 * r, 0.0);
    assert_eq!(a[row][c], [255; 3]);
    assert!(
        b[row][c] != [255; 3],
        "the view is not filled by the membrane at 0.95 R"
    );
    // Outside the membrane's projection (x beyond ±R + 3 px in both panels) nothing changed.
    let changed_outside = (0..a.len()).any(|y| {
        (0..a[y].len()).any(|x| {
            let off = if x as f64 >= panel { panel } else { 0.0 };
            let xm = cx + (x as f64 - off - 0.5 * panel) / scale;
            (xm - cx).abs() > r + 3.0 / scale && y >= 40 && a[y][x] != b[y][x]
        })
    });
    assert!(!changed_outside, "the membrane changed pixels outside its projection");
    std::fs::remove_dir_all(dir).ok();
}
