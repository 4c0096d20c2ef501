//! Case: self-contact. A floppy ring (no core) is squeezed flat between two walls until the
//! wall gap (centre lines) is 0.2 = 4 r: its two flat sides are pressed onto each other.
//! Self-contact must keep them apart (no crossing segments, overlap bounded); without it they
//! pass through each other (the control that shows the check can fail).
//!
//! The squeeze is displacement-controlled, so the overlaps are set by geometry and stiffness
//! ratios, not by forces: the stack wall | side | side | wall needs 6 r between the wall centre
//! lines and gets 4 r, a total overlap of 2 r shared by three layers of contacts in series. Each
//! wall is one segment, so a side meets its wall through one node–segment contact per node
//! (density 1/ℓ), while the two sides meet through two (each side's nodes on the other's
//! segments, 2/ℓ). Equal force per length gives δ_wall = 2 δ_self and 2 δ_wall + δ_self = 2 r:
//! δ_self = 2r/5, i.e. the sides stay `SEPARATION` = 2r − 2r/5 = 1.6 r apart (measured 1.600 r,
//! the same in 12 runs with one coordinate or k_b perturbed by 1–3 ulps). With walls of 60
//! short segments (before) the wall-contact density depended on how the ring's nodes fell
//! between the wall's, the sides were wavy and their minimum distance was 0.96–1.2 r in those
//! runs (0.68 r after a last-bit change of the bending couple), against a threshold of r.

use super::*;

pub const R: f64 = 1.0;
pub const N: usize = 40;
pub const RADIUS: f32 = 0.05;
/// Wall speed: slow against the shell's bending waves (quasi-static squeeze).
pub const SPEED: f32 = 0.1;
/// Side-to-side distance of the flattened ring with self-contact (series contacts, above).
pub const SEPARATION: f64 = 1.6 * RADIUS as f64;

pub fn scene(self_contact: bool) -> Scene {
    let mut sc = Scene::default();
    // ξ = k_b/(k_s ℓ²) = 0.02 (eq 19): a thin but not string-like shell.
    let ell = 2.0 * std::f32::consts::PI * R as f32 / N as f32;
    let mat = sc.add_material(elastic(1000.0, 0.02 * 1000.0 * ell * ell, 0.0));
    let ring = BodyOptions {
        self_contact,
        ..free_body(mat, RADIUS, Core::None)
    };
    sc.add_ring(
        [0.0, 0.0],
        R,
        N,
        BodyOptions {
            node_mass: 1.0 / N as f32,
            ..ring
        },
    );
    let wall_mat = sc.add_material(elastic(0.0, 0.0, 0.0));
    let wall = BodyOptions {
        material: wall_mat,
        radius: RADIUS,
        node_mass: 1.0,
        frozen: true,
        self_contact: false,
        core: Core::None,
    };
    let y = R + 2.0 * RADIUS as f64 + 0.01;
    // One segment per wall (see the module doc).
    let bottom = sc.add_line([-3.0, -y], [3.0, -y], 2, wall);
    let top = sc.add_line([3.0, y], [-3.0, y], 2, wall);
    sc.impose_velocity(&NodeSet::Body(bottom), Some(0.0), Some(SPEED));
    sc.impose_velocity(&NodeSet::Body(top), Some(0.0), Some(-SPEED));
    sc.contact = ContactLaw {
        k_n: 1000.0,
        k_t: 0.0,
        mu: 0.0,
        c_n: 1.0,
    };
    sc.viscous_damping = 2.0;
    sc.time_step = TimeStep::Fixed(2.5e-4);
    sc
}

/// Steps until the wall gap is 0.2 (walls at ±0.1), then holds for 2000 steps.
pub fn run(be: &mut dyn Backend) -> Vec<NodeState> {
    let sc = scene(true);
    let y0 = R + 2.0 * RADIUS as f64 + 0.01;
    let steps = ((y0 - 0.1) / SPEED as f64 / 2.5e-4).round() as u32;
    be.step(steps).unwrap();
    let mut nodes = sc.nodes.clone();
    for n in nodes.iter_mut().filter(|n| n.body > 0) {
        n.bc_velocity = [0.0, 0.0];
    }
    be.set_boundary_conditions(&nodes).unwrap();
    be.step(2000).unwrap();
    be.read_nodes().unwrap()
}

fn seg_dist(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (ab, ap) = ([b[0] - a[0], b[1] - a[1]], [p[0] - a[0], p[1] - a[1]]);
    let t = ((ap[0] * ab[0] + ap[1] * ab[1]) / (ab[0] * ab[0] + ab[1] * ab[1])).clamp(0.0, 1.0);
    (ap[0] - t * ab[0]).hypot(ap[1] - t * ab[1])
}

fn crosses(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> bool {
    let o = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    o(a, b, c) * o(a, b, d) < 0.0 && o(c, d, a) * o(c, d, b) < 0.0
}

/// (smallest node–segment distance between parts of the ring more than 3 nodes apart,
/// number of crossing segment pairs, ring thickness (max − min y)).
pub fn measure(nodes: &[NodeState]) -> (f64, usize, f64) {
    let p: Vec<[f64; 2]> = nodes[..N].iter().map(|s| s.pos()).collect();
    let ring = |i: usize, j: usize| {
        let g = i.abs_diff(j);
        g.min(N - g)
    };
    let (mut dmin, mut crossings) = (f64::INFINITY, 0);
    for i in 0..N {
        for j in 0..N {
            let j1 = (j + 1) % N;
            if ring(i, j) > 3 && ring(i, j1) > 3 {
                dmin = dmin.min(seg_dist(p[i], p[j], p[j1]));
            }
            let i1 = (i + 1) % N;
            if i < j
                && ring(i, j) > 1
                && ring(i1, j1) > 1
                && ring(i, j1) > 1
                && ring(i1, j) > 1
                && crosses(p[i], p[i1], p[j], p[j1])
            {
                crossings += 1;
            }
        }
    }
    let ys = p.iter().map(|q| q[1]);
    let thickness = ys.clone().fold(f64::MIN, f64::max) - ys.fold(f64::MAX, f64::min);
    (dmin, crossings, thickness)
}
