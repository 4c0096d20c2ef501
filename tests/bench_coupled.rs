//! The scene of `softdem bench --scene coupled` (`scenes::coupled_bench`): it builds with the
//! sizes the bench prints; after the bench's untimed settling the modal bodies rest in contact on
//! the bed (they start `CB_GAP` = 0.01 above it; a body that had not landed, or had sunk into the
//! bed, fails) and the outer disks are still at the side walls; one-segment and 0.05-segment walls give the
//! same motion (the flat wall is the same wall); the command prints one CSV row per size. No
//! timing is asserted (speed is measured by the bench, never in tests). CPU, about 5 s.

use softdem::modal::layout::ModalState;
use softdem::model::BODY_FROZEN;
use softdem::scenes::{coupled_bench, CoupledBenchSize, COUPLED_BENCH_SETTLE};

/// Disk radius and rectangle half sizes of the bench's modal bodies (scenes::coupled_bench).
const DISK_R: f64 = 1.5;
const RECT_HALF: [f64; 2] = [1.8, 0.4];
/// Half-thickness of the cells' shells.
const R_SHELL: f64 = 0.05;

/// Signed distance from point q (body frame) to a centred rectangle of half sizes h.
fn rect_sdf(q: [f64; 2], h: [f64; 2]) -> f64 {
    let d = [q[0].abs() - h[0], q[1].abs() - h[1]];
    d[0].max(0.0).hypot(d[1].max(0.0)) + d[0].max(d[1]).min(0.0)
}

fn centre(s: &ModalState) -> [f64; 2] {
    [(s.x_hi[0] + s.x_lo[0]) as f64, (s.x_hi[1] + s.x_lo[1]) as f64]
}

/// Settles the scene as the bench does; the modal states and the free SPD nodes' positions.
fn settle(cells: usize, wall_segment: Option<f64>) -> (CoupledBenchSize, Vec<ModalState>, Vec<[f64; 2]>) {
    let cb = coupled_bench(cells, wall_segment);
    let mut run = softdem::coupled::stepper::cpu(&cb).unwrap();
    run.run(COUPLED_BENCH_SETTLE).unwrap();
    let nodes = run.read_nodes().unwrap();
    let free = cb.spd.bodies.iter().filter(|b| b.flags & BODY_FROZEN == 0);
    let pos = free
        .flat_map(|b| b.first..b.first + b.count)
        .map(|k| {
            let n = &nodes[k as usize];
            [(n.pos_hi[0] + n.pos_lo[0]) as f64, (n.pos_hi[1] + n.pos_lo[1]) as f64]
        })
        .collect();
    (CoupledBenchSize::of(&cb), run.modal_states().unwrap(), pos)
}

#[test]
fn coupled_bench_sizes_and_wall_segments() {
    let one = CoupledBenchSize::of(&coupled_bench(40, None));
    // 3 disks of 64 nodes and a 3.6 × 0.8 rectangle with nodes every ≤ 0.15 (vertices included):
    // 2 (24 + 6) = 60 nodes.
    let want = CoupledBenchSize {
        cells: 40,
        spd_nodes: 40 * 32,
        modal_bodies: 4,
        modal_nodes: 3 * 64 + 60,
        wall_segments: 4,
    };
    assert_eq!(one, want);
    // Segments of at most L: ⌈side / L⌉ per side; the walls' lines run 2 r past each corner.
    let cb = coupled_bench(40, Some(0.05));
    let sc = &cb.spd;
    let mut expected = 0;
    for b in sc.bodies.iter().filter(|b| b.flags & BODY_FROZEN != 0) {
        let (p, q) = (
            sc.init[b.first as usize].pos(),
            sc.init[(b.first + b.count - 1) as usize].pos(),
        );
        expected += ((q[0] - p[0]).hypot(q[1] - p[1]) / 0.05 - 1e-9).ceil() as usize;
    }
    let fine = CoupledBenchSize::of(&cb);
    assert_eq!(fine.wall_segments, expected);
    assert_eq!(
        CoupledBenchSize {
            wall_segments: 4,
            ..fine
        },
        want
    );
    // Default box: the cells' mean segment (2π · 0.9 / 32 ≈ 0.18), between the two.
    let mean = CoupledBenchSize::of(&coupled_bench(40, Some(0.0))).wall_segments;
    assert!(
        mean > 4 && mean < fine.wall_segments / 3,
        "{mean} vs {}",
        fine.wall_segments
    );
}

#[test]
fn coupled_bench_settles_into_contact_whatever_the_wall_segments() {
    let (_, one, _) = settle(40, None);
    let (_, fine, cells) = settle(40, Some(0.05));
    for (i, s) in fine.iter().enumerate() {
        let x = centre(s);
        let (sn, cs) = (s.theta.sin() as f64, s.theta.cos() as f64);
        // Gap between the body (rigid outline: the compaction mode moves the surface by at most
        // |ε| ≈ weight / K = 4.2e-3) and the cells' shells.
        let gap = cells
            .iter()
            .map(|p| {
                let d = [p[0] - x[0], p[1] - x[1]];
                let q = [cs * d[0] + sn * d[1], -sn * d[0] + cs * d[1]];
                let sdf = if i == 1 {
                    rect_sdf(q, RECT_HALF)
                } else {
                    q[0].hypot(q[1]) - DISK_R
                };
                sdf - R_SHELL
            })
            .fold(f64::INFINITY, f64::min);
        println!(
            "modal body {i}: centre {x:?}, θ {:.4}, ε {:.2e}, gap to the cells {gap:.2e}",
            s.theta, s.eps[0]
        );
        // Started 0.01 above its support: landed (gap well below 0.01), not sunk in (a contact
        // overlap of weight / k_n ~ 1e-4 plus the mode's ε).
        assert!(gap < 0.005 && gap > -0.01, "modal body {i}: gap {gap} to the cells");
        // The same motion with one-segment walls: centres within 1 % of the drop's scale.
        let y = centre(&one[i]);
        assert!(
            (x[0] - y[0]).abs() < 1e-3 && (x[1] - y[1]).abs() < 1e-3,
            "modal body {i}: {x:?} with 0.05 wall segments, {y:?} with one per side"
        );
    }
    // The outer disks stay at the side walls (inner faces x = 0 and 16), within 0.01 (the
    // walls' contact lists hold them; nothing presses them sideways).
    let left = centre(&fine[0])[0] - DISK_R;
    let right = 16.0 - centre(&fine[3])[0] - DISK_R;
    assert!(
        left.abs() < 0.01 && right.abs() < 0.01,
        "outer disks {left}, {right} from the side walls"
    );
}

#[test]
fn bench_command_prints_a_row_per_size() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_softdem"))
        .args(["bench", "--scene", "coupled", "--backend", "cpu", "--cells", "20,30"])
        .args(["--steps", "10", "--wall-segment", "0.5"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "scene,backend,adapter,cells,spd_nodes,modal_bodies,modal_nodes,wall_segments,steps,seconds,steps_per_s,node_steps_per_s"
    );
    assert_eq!(lines.len(), 3, "{text}");
    for (line, cells) in lines[1..].iter().zip([20usize, 30]) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 12, "{line}");
        assert_eq!(&f[..2], &["coupled", "Cpu"]);
        let z = CoupledBenchSize::of(&coupled_bench(cells, Some(0.5)));
        let ints: Vec<usize> = f[3..9].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(
            ints,
            [cells, z.spd_nodes, 4, z.modal_nodes, z.wall_segments, 10],
            "{line}"
        );
        let n: Vec<f64> = f[9..].iter().map(|v| v.parse().unwrap()).collect();
        // steps/s = steps / seconds; node-steps/s = (SPD + modal nodes) · steps/s (rounded prints).
        // (seconds are printed to 10⁻⁴ s).
        assert!(n[0] > 0.0 && (n[1] * n[0] - 10.0).abs() < 1e-4 * n[1], "{line}");
        let nodes = (z.spd_nodes + z.modal_nodes) as f64;
        assert!((n[2] / (nodes * n[1]) - 1.0).abs() < 1e-3, "{line}");
    }
}
