//! Scenario files that mix SPD cells and modal bodies (`scenario::coupled`, `run::coupled`), run
//! through the command-line run path.
//!
//! - `scenarios/modal_disk_on_cells.toml` (a modal disk with the compaction mode dropped onto six
//!   SPD cells in an SPD box), CPU, to rest: the SPD walls carry the weight of the cells and of
//!   the disk (vertical force balance of the sample at rest, Σ_walls F_y = −(Σ m_cells + M_disk) g,
//!   within 1 %); the disk rests on the cells, its lowest point more than a cell diameter above
//!   the floor, at rest and compressed (ε > 0).
//! - `FLOOR` (one cell, and a disk dropped 0.1 onto the SPD floor: SPD walls act on modal
//!   bodies, `[modal] spd_walls`), CPU, to rest: the walls carry both weights within 1 %, and the
//!   disk rests on the floor's inner face (centre within 0.01 of y = R: penetration and the
//!   compaction of the bottom point are a few 1e-3).
//! - GPU vs CPU: the first 7500 steps of the example (the disk meets the cells at about step
//!   6500) and the first 2000 of `FLOOR` (it meets the floor at about step 1600): node positions
//!   and disk positions within 1e-5 (lengths in cell radii), amplitudes within 1e-3 relative.

mod run_cases;

use run_cases::{col, read_csv};
use softdem::backend::BackendKind;
use softdem::model::BODY_FROZEN;
use softdem::scenario::Scenario;
use std::path::{Path, PathBuf};

fn scenario() -> Scenario {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/modal_disk_on_cells.toml");
    Scenario::load(&p).unwrap()
}

fn out_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem_coupled_scenario_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Weight of everything that can move: the free SPD cells' nodes and the modal body.
fn total_weight(sc: &Scenario, cb: &softdem::scenario::coupled::CoupledBuilt) -> f64 {
    let g = sc.settings.gravity[1].abs();
    let spd = &cb.built.scene;
    let m_cells: f64 = spd
        .nodes
        .iter()
        .filter(|n| spd.bodies[n.body as usize].flags & BODY_FROZEN == 0)
        .map(|n| n.mass as f64)
        .sum();
    (m_cells + cb.modal.scene.bodies[0].mass as f64) * g
}

#[test]
fn disk_rests_on_the_cells_and_the_walls_carry_every_weight() {
    let sc = scenario();
    let cb = sc.build_coupled().unwrap();
    assert!(cb.warnings.is_empty(), "{:?}", cb.warnings);
    let weight = total_weight(&sc, &cb);

    let out = out_dir("cpu");
    let rep = softdem::run::coupled::run(&sc, BackendKind::Cpu, Some(&out), None, true).unwrap();
    assert_eq!(
        rep.end,
        softdem::run::RunEnd::Done,
        "the settle stage ended by ke_below"
    );

    let (h, rows) = read_csv(&out.join("series.csv"));
    let last = rows.last().unwrap();
    let walls = ["box_bottom", "box_top", "box_left", "box_right"];
    let fy: f64 = walls.iter().map(|w| last[col(&h, &format!("{w}_fy"))]).sum();
    let bottom = last[col(&h, "box_bottom_fy")];
    println!(
        "weight {weight:.6}: Σ wall F_y = {fy:.6} (bottom {bottom:.6}), step {}",
        rep.steps
    );
    assert!(
        (-fy - weight).abs() <= 0.01 * weight,
        "Σ F_y on the SPD walls {fy} vs the weight {weight}"
    );

    let (mh, mrows) = read_csv(&out.join("modal_series.csv"));
    let (prev, end) = (&mrows[mrows.len() - 2], mrows.last().unwrap());
    assert_eq!(end[0] as u64, rep.steps, "a modal row at the last step");
    let r = sc.file.modal.as_ref().unwrap().bodies[0].radius.unwrap();
    let (x, y, eps) = (
        end[col(&mh, "disk.x")],
        end[col(&mh, "disk.y")],
        end[col(&mh, "disk.eps0")],
    );
    println!(
        "disk at ({x:.5}, {y:.5}), lowest point {:.4} above the floor, ε = {eps:.4e}",
        y - r
    );
    // On the cells: its lowest point is more than a (squashed) cell diameter above the floor.
    assert!(y - r > 1.0, "the disk is down at y = {y} (radius {r})");
    // At rest: it moved less than 1e-3 over the last series interval.
    let moved = (x - prev[col(&mh, "disk.x")]).hypot(y - prev[col(&mh, "disk.y")]);
    assert!(moved < 1e-3, "the disk still moves: {moved} over the last interval");
    assert!(
        eps > 0.0,
        "the compaction mode is compressed by the contacts: ε = {eps}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// One cell on the left, a modal disk (R = 1.4, mass 2) 0.1 above the SPD floor on the right.
const FLOOR: &str = r#"
[simulation]
dt_fraction = 0.2
gravity = [0.0, -2.0]
viscous_damping = 1.0
check_every = 200

[output]
series_every = 1000
frames_every = 0
plots = false

[contact]
k_n = 1.0e4
c_n = 5.0
k_t = 5.0e3
mu = 0.3

[materials.shell]
k_s = 1.0e4
xi = 0.025
eta = 0.4
radius = 1.0
nodes = 24
cell_mass = 1.0

[[bodies]]
kind = "ring"
material = "shell"
center = [1.5, 1.0]
radius = 0.8
nodes = 24

[[bodies]]
kind = "box"
name = "box"
min = [0.0, 0.0]
max = [8.0, 6.0]

[[stages]]
kind = "deposit"
ke_below = 1.0e-6
min_steps = 20000
max_steps = 100000

[modal]
rebuild_every = 100
skin = 0.3
series_every = 1000

[[modal.bodies]]
name = "disk"
shape = "disk"
radius = 1.4
nodes = 64
grid_spacing = 0.1
density = 0.3248
center = [5.0, 1.5]
rigid_damping = 1.0

[[modal.bodies.modes]]
shape = "compaction"
stiffness = "value"
k = 1000.0
damping_ratio = 0.5
"#;

fn floor() -> Scenario {
    Scenario::from_text(FLOOR, "<FLOOR>", Path::new("."), "floor", &[]).unwrap()
}

#[test]
fn disk_rests_on_the_spd_floor() {
    let sc = floor();
    let cb = sc.build_coupled().unwrap();
    assert!(cb.warnings.is_empty(), "{:?}", cb.warnings);
    let weight = total_weight(&sc, &cb);
    let out = out_dir("floor");
    let rep = softdem::run::coupled::run(&sc, BackendKind::Cpu, Some(&out), None, true).unwrap();
    assert_eq!(rep.end, softdem::run::RunEnd::Done);
    let (h, rows) = read_csv(&out.join("series.csv"));
    let last = rows.last().unwrap();
    let fy: f64 = ["box_bottom", "box_top", "box_left", "box_right"]
        .iter()
        .map(|w| last[col(&h, &format!("{w}_fy"))])
        .sum();
    let (mh, mrows) = read_csv(&out.join("modal_series.csv"));
    let end = mrows.last().unwrap();
    let (y, eps) = (end[col(&mh, "disk.y")], end[col(&mh, "disk.eps0")]);
    println!(
        "weight {weight:.6}: Σ wall F_y = {fy:.6}, step {}; disk centre y = {y:.5} (R = 1.4), ε = {eps:.3e}",
        rep.steps
    );
    assert!(
        (-fy - weight).abs() <= 0.01 * weight,
        "Σ F_y on the SPD walls {fy} vs the weight {weight}"
    );
    assert!((y - 1.4).abs() < 0.01, "the disk is not on the floor: y = {y}");
    assert!(eps > 0.0, "the floor compresses the disk: ε = {eps}");
    let _ = std::fs::remove_dir_all(&out);
}

/// Skipping the SPD wall nodes at rest (`cpu::resting_walls`) changes no bit in a coupled run,
/// where a modal body's force on a wall node counts as a contact: `FLOOR` for 2,400 steps (the
/// disk lands on the floor at about step 1,600), against a run whose SPD backend skips nothing,
/// SPD nodes and modal states compared after every step. The disk must push on floor nodes
/// that no cell touches (x in 3.8 … 6.2) by the end.
#[test]
fn resting_spd_walls_skip_no_bit_under_a_modal_body() {
    use softdem::coupled::cpu::CpuCoupled;
    use softdem::coupled::stepper::{cpu, CoupledRun};
    let cb = floor().build_coupled().unwrap();
    let mut skipping = cpu(&cb.scene).unwrap();
    let (spd, packed, states, cs) = cb.scene.prepare().unwrap();
    let all_nodes = softdem::cpu::CpuBackend::new(&spd).unwrap().without_resting_walls();
    let mut reference = CoupledRun::new(
        CpuCoupled::new(all_nodes, packed, states, cs),
        cb.scene.modal.rebuild_every,
        cb.scene.modal.skin,
    )
    .unwrap();
    let raw = |v: &[softdem::model::NodeState]| bytemuck::cast_slice::<_, u8>(v).to_vec();
    for step in 1..=2400 {
        skipping.run(1).unwrap();
        reference.run(1).unwrap();
        let nodes = skipping.read_nodes().unwrap();
        assert_eq!(
            raw(&nodes),
            raw(&reference.read_nodes().unwrap()),
            "step {step}: SPD nodes"
        );
        let (a, b) = (skipping.modal_states().unwrap(), reference.modal_states().unwrap());
        assert_eq!(
            bytemuck::cast_slice::<_, u8>(&a),
            bytemuck::cast_slice::<_, u8>(&b),
            "step {step}: modal"
        );
        if step == 2400 {
            let pushed = (0..nodes.len()).filter(|&x| {
                let (n, s) = (&spd.nodes[x], &nodes[x]);
                let x_pos = s.pos_hi[0] + s.pos_lo[0];
                spd.bodies[n.body as usize].flags & BODY_FROZEN != 0
                    && (3.8..6.2).contains(&x_pos)
                    && s.pos_hi[1] < 0.5
                    && s.force[1] != 0.0
            });
            assert!(pushed.count() > 2, "the disk pushes no floor node");
        }
    }
}

/// `steps` of `sc` on the CPU and on the GPU: (max node |Δx|, disk |ΔX|, relative Δε, ε on the CPU).
fn cpu_vs_gpu(sc: &Scenario, steps: u64, tag: &str) -> (f64, f64, f64, f64) {
    let mut runs = vec![];
    for (kind, k) in [(BackendKind::Cpu, "cpu"), (BackendKind::Gpu, "gpu")] {
        let out = out_dir(&format!("{tag}_{k}"));
        let rep = softdem::run::coupled::run(sc, kind, Some(&out), Some(steps), true).unwrap();
        assert_eq!(rep.steps, steps);
        let (_, nodes) = read_csv(&out.join("final.csv"));
        let (mh, modal) = read_csv(&out.join("modal_series.csv"));
        runs.push((nodes, mh, modal.last().unwrap().clone()));
        let _ = std::fs::remove_dir_all(&out);
    }
    let (a, b) = (&runs[0], &runs[1]);
    let dx =
        a.0.iter()
            .zip(&b.0)
            .map(|(p, q)| (p[2] - q[2]).hypot(p[3] - q[3]))
            .fold(0.0, f64::max);
    let (x, y, e) = (col(&a.1, "disk.x"), col(&a.1, "disk.y"), col(&a.1, "disk.eps0"));
    let ddisk = (a.2[x] - b.2[x]).hypot(a.2[y] - b.2[y]);
    let deps = (a.2[e] - b.2[e]).abs() / a.2[e].abs();
    println!(
        "{tag}, after {steps} steps: max node |Δx| {dx:.3e}, disk |ΔX| {ddisk:.3e}, ε {:.4e} (relative Δ {deps:.3e})",
        a.2[e]
    );
    (dx, ddisk, deps, a.2[e])
}

#[test]
fn gpu_prefix_matches_the_cpu() {
    // Fails (never skips) without an adapter.
    let _ctx = softdem::gpu::context::gpu_for_tests();
    for (sc, steps, tag) in [(scenario(), 7500, "on_cells"), (floor(), 2000, "on_floor")] {
        let (dx, ddisk, deps, eps) = cpu_vs_gpu(&sc, steps, tag);
        assert!(eps > 0.0, "{tag}: the prefix reaches the contacts (ε = {eps})");
        assert!(dx < 1e-5, "{tag}: node positions differ by {dx}");
        assert!(ddisk < 1e-5, "{tag}: disk positions differ by {ddisk}");
        assert!(deps < 1e-3, "{tag}: amplitudes differ by {deps} (relative)");
    }
}

/// The disk's surface nodes by eq 1, x = X + R(Θ)(p + ε_α Φ_α(p)), evaluated here in f64 from the
/// packed nodes and a `modal_series.csv` row (X, Θ, ε to 9 digits).
fn disk_outline(sc: &Scenario, header: &[String], row: &[f64]) -> (Vec<[f64; 2]>, [f64; 2]) {
    let cb = sc.build_coupled().unwrap();
    let packed = cb.scene.prepare().unwrap().1;
    let b = &packed.bodies[0];
    let x = [row[col(header, "disk.x")], row[col(header, "disk.y")]];
    let (s, c) = row[col(header, "disk.theta")].sin_cos();
    let eps: Vec<f64> = (0..b.n_modes as usize)
        .map(|a| row[col(header, &format!("disk.eps{a}"))])
        .collect();
    let pts = (b.node_first..b.node_first + b.node_count)
        .map(|k| {
            let nd = &packed.nodes[k as usize];
            let mut loc = [nd.p[0] as f64, nd.p[1] as f64];
            for (a, e) in eps.iter().enumerate() {
                loc[0] += e * nd.phi[2 * a] as f64;
                loc[1] += e * nd.phi[2 * a + 1] as f64;
            }
            [x[0] + c * loc[0] - s * loc[1], x[1] + s * loc[0] + c * loc[1]]
        })
        .collect();
    (pts, x)
}

#[test]
fn snapshots_and_frames_draw_the_modal_disk() {
    use softdem::output::modal::MODAL_FILL;
    use softdem::output::snapshot::View;
    use vtkio::model::{DataSet, Piece, VertexNumbers};
    // 8000 steps: the disk has met the cells (at about step 6500) and is compressed (ε > 0).
    let steps = 8000u64;
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/modal_disk_on_cells.toml");
    let every = toml::Value::Integer(4000);
    let over =
        [("output.snapshots_every", &every), ("output.frames_every", &every)].map(|(k, v)| (k.to_string(), v.clone()));
    let sc = Scenario::load_with_overrides(&p, &over).unwrap();
    let out = out_dir("drawn");
    softdem::run::coupled::run(&sc, BackendKind::Cpu, Some(&out), Some(steps), true).unwrap();
    let (mh, rows) = read_csv(&out.join("modal_series.csv"));
    let last = rows.last().unwrap();
    assert_eq!(last[0] as u64, steps);
    assert!(
        last[col(&mh, "disk.eps0")] > 0.0,
        "the disk is compressed at step {steps}"
    );
    let (outline, centre) = disk_outline(&sc, &mh, last);
    assert_eq!(outline.len(), 64);

    // VTK: frames/modal_008000.vtp holds the disk as one polygon of its 64 surface nodes, in
    // node order, at eq 1's positions within 1e-6 relative; run.pvd lists it as part 1.
    let f = format!("frames/modal_{steps:06}.vtp");
    let pvd = std::fs::read_to_string(out.join("run.pvd")).unwrap();
    assert!(pvd.contains(&format!("part=\"1\" file=\"{f}\"")), "{pvd}");
    let vtk = vtkio::Vtk::import(out.join(&f)).unwrap_or_else(|e| panic!("{f}: {e:?}"));
    let DataSet::PolyData { pieces, .. } = vtk.data else {
        panic!("{f}: not PolyData")
    };
    let Piece::Inline(piece) = &pieces[0] else {
        panic!("inline piece")
    };
    assert_eq!(piece.num_points(), outline.len());
    let Some(VertexNumbers::XML { connectivity, offsets }) = &piece.polys else {
        panic!("{f}: no polygons")
    };
    assert_eq!(offsets, &[outline.len() as u64]);
    assert_eq!(connectivity, &(0..outline.len() as u64).collect::<Vec<_>>());
    let xyz: Vec<f64> = piece.points.clone().cast_into().unwrap();
    let worst = outline
        .iter()
        .enumerate()
        .map(|(k, q)| (xyz[3 * k] - q[0]).hypot(xyz[3 * k + 1] - q[1]) / q[0].hypot(q[1]))
        .fold(0.0, f64::max);
    println!("modal frame vs eq 1: max relative |Δx| {worst:.2e}");
    assert!(worst < 1e-6, "modal frame positions differ by {worst:.2e} (relative)");

    // PNG: the last snapshot has the modal fill at the disk's centre and nowhere outside its
    // outline (2 px of edge allowed), and fills at least 90 % of the disk's area.
    let cb = sc.build_coupled().unwrap();
    let (_, nodes) = read_csv(&out.join("final.csv"));
    let spd = nodes
        .iter()
        .map(|r| ([r[2], r[3]], cb.built.scene.bodies[r[0] as usize].radius as f64));
    let view = View::fit(spd.chain(outline.iter().map(|q| (*q, 0.0))), sc.settings.snapshot_width).unwrap();
    let png = out.join(format!("snapshots/snapshot_{steps:06}.png"));
    let mut reader = png::Decoder::new(std::fs::File::open(&png).unwrap())
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (view.width, view.height));
    let bpp = info.color_type.samples();
    let is_modal = |x: i32, y: i32| {
        let i = y as usize * info.line_size + x as usize * bpp;
        buf[i..i + 3] == [MODAL_FILL.0, MODAL_FILL.1, MODAL_FILL.2]
    };
    let c = view.px(centre);
    assert!(is_modal(c.0, c.1), "no modal colour at the disk centre {c:?}");
    let r_px = outline
        .iter()
        .map(|q| (q[0] - centre[0]).hypot(q[1] - centre[1]))
        .fold(0.0, f64::max)
        * view.scale;
    for far in [[centre[0], centre[1] - 3.0], [centre[0], centre[1] + 2.5]] {
        let q = view.px(far);
        assert!(
            !is_modal(q.0, q.1),
            "modal colour at {far:?} ({q:?}), away from the disk"
        );
    }
    let mut count = 0usize;
    for y in 0..info.height as i32 {
        for x in 0..info.width as i32 {
            if is_modal(x, y) {
                let d = ((x - c.0) as f64).hypot((y - c.1) as f64);
                assert!(
                    d <= r_px + 2.0,
                    "modal colour at pixel ({x}, {y}), {d:.1} px from the centre > {r_px:.1}"
                );
                count += 1;
            }
        }
    }
    let area = std::f64::consts::PI * r_px * r_px;
    assert!(
        count as f64 >= 0.9 * area,
        "{count} modal pixels for a disk of {area:.0}"
    );
    let _ = std::fs::remove_dir_all(&out);
}
