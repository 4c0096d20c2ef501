//! Case 3a: Coulomb friction. A closed cell with a stiff undrained core rests on a frozen
//! straight wall (the x axis); gravity is tilted by the slope angle α instead of tilting the
//! wall, so "down-slope" is +x. It sticks for tan α < μ and slides with the block acceleration
//! g (sin α − μ cos α) for tan α > μ.
//!
//! The cell is a 2 × 0.5 rectangle (a closed shell of 20 nodes), not a circle: a rigid
//! circle *rolls* down any slope whatever μ (rolling needs no slip), which would not test
//! friction. A 2 × 0.5 block does not tip over below atan(4) ≈ 76°, and its elastic shear sway is small.
//!
//! Damping: none on the rigid-body motion. Only a contact normal dashpot c_n (it acts on the
//! normal approach velocity, zero while the block rests or slides) and segment/bending dashpots
//! (relative velocities inside the cell, zero for a rigid motion) damp the landing vibrations.

use super::*;

pub const MU: f32 = 0.5;
pub const G: f64 = 1.0;
pub const STICK_DEG: f64 = 20.0;
pub const SLIDE_DEG: f64 = 35.0;
/// Steps (dt = 1e-3): 3 time units, same on CPU and GPU.
pub const STEPS: u32 = 3000;
pub const SAMPLE: u32 = 100;
pub const C_B: f32 = 5.0;
const R_CELL: f32 = 0.05;
const R_WALL: f32 = 0.05;
/// Height of the block (width 2) and number of nodes per side segment run.
pub const HEIGHT: f64 = 0.5;
const SIDE_NODES: usize = 2;

pub fn scene(alpha_deg: f64) -> Scene {
    let mut sc = Scene::default();
    let mut cell_mat = elastic(1.0e4, 100.0, 1.0e4);
    cell_mat.c_s = 20.0;
    cell_mat.c_b = C_B;
    let cell_mat = sc.add_material(cell_mat);
    let wall_mat = sc.add_material(elastic(1.0e4, 0.0, 0.0));
    // Wall: frozen line along x, nodes every 0.25.
    sc.add_line([-2.0, 0.0], [6.0, 0.0], 33, wall_body(wall_mat, R_WALL));
    // Cell: 2 × H rectangle (counter-clockwise), nodes every 0.25, bottom just touching.
    let y0 = (R_CELL + R_WALL) as f64;
    let mut pts = vec![];
    for k in 0..8 {
        pts.push([-1.0 + 0.25 * k as f64, y0]);
    }
    for k in 0..SIDE_NODES {
        pts.push([1.0, y0 + 0.25 * k as f64]);
    }
    for k in 0..8 {
        pts.push([1.0 - 0.25 * k as f64, y0 + HEIGHT]);
    }
    for k in 0..SIDE_NODES {
        pts.push([-1.0, y0 + HEIGHT - 0.25 * k as f64]);
    }
    sc.add_body(&pts, true, free_body(cell_mat, R_CELL, Core::Undrained { p0: 0.0 }));
    let a = alpha_deg.to_radians();
    sc.gravity = [(G * a.sin()) as f32, (-G * a.cos()) as f32];
    sc.contact = ContactLaw {
        k_n: 1.0e4,
        k_t: 1.0e4,
        mu: MU,
        c_n: 50.0,
    };
    sc.time_step = TimeStep::Fixed(1.0e-3);
    sc
}

pub struct Measurements {
    pub alpha_deg: f64,
    /// Time and centroid x of the cell, every `SAMPLE` steps.
    pub t: Vec<f64>,
    pub x: Vec<f64>,
    /// Mean x of the 9 nodes of the cell's bottom edge (the contact nodes), every `SAMPLE` steps.
    pub x_bottom: Vec<f64>,
    /// Centroid y range over the run (landing and tipping check).
    pub y_min: f64,
    pub y_max: f64,
    pub min_active_contacts: usize,
    pub final_nodes: Vec<NodeState>,
}

pub fn run(be: &mut dyn Backend, scene: &Scene, alpha_deg: f64, steps: u32) -> Measurements {
    let dt = scene.dt() as f64;
    let mut m = Measurements {
        alpha_deg,
        t: vec![],
        x: vec![],
        x_bottom: vec![],
        y_min: f64::MAX,
        y_max: f64::MIN,
        min_active_contacts: usize::MAX,
        final_nodes: vec![],
    };
    let mut done = 0;
    while done < steps {
        be.step(SAMPLE).unwrap();
        done += SAMPLE;
        let nodes = be.read_nodes().unwrap();
        let c = diagnostics::centroid(scene, &nodes, 1);
        m.t.push(done as f64 * dt);
        m.x.push(c[0]);
        let first = scene.bodies[1].first as usize;
        m.x_bottom
            .push(nodes[first..first + 9].iter().map(|s| s.pos()[0]).sum::<f64>() / 9.0);
        m.y_min = m.y_min.min(c[1]);
        m.y_max = m.y_max.max(c[1]);
        m.min_active_contacts = m.min_active_contacts.min(be.read_contacts().unwrap().active_count());
        m.final_nodes = nodes;
    }
    m
}

/// Least-squares acceleration of x(t) = x0 + v0 t + a t²/2 over the samples with t ≥ t_from.
pub fn fitted_acceleration(m: &Measurements, t_from: f64) -> f64 {
    let pts: Vec<(f64, f64)> =
        m.t.iter()
            .cloned()
            .zip(m.x.iter().cloned())
            .filter(|p| p.0 >= t_from)
            .collect();
    // Normal equations for [x0, v0, a/2] on (1, t, t²).
    let mut ata = [[0.0f64; 3]; 3];
    let mut atb = [0.0f64; 3];
    for (t, x) in &pts {
        let row = [1.0, *t, t * t];
        for i in 0..3 {
            for j in 0..3 {
                ata[i][j] += row[i] * row[j];
            }
            atb[i] += row[i] * x;
        }
    }
    // Gaussian elimination.
    for c in 0..3 {
        for r in c + 1..3 {
            let f = ata[r][c] / ata[c][c];
            let pivot = ata[c];
            for (v, p) in ata[r].iter_mut().zip(pivot) {
                *v -= f * p;
            }
            atb[r] -= f * atb[c];
        }
    }
    let mut sol = [0.0f64; 3];
    for c in (0..3).rev() {
        let mut s = atb[c];
        for k in c + 1..3 {
            s -= ata[c][k] * sol[k];
        }
        sol[c] = s / ata[c][c];
    }
    2.0 * sol[2]
}

/// Settling time after which the stick displacement is measured, and after which the slide
/// acceleration is fitted.
pub const T_SETTLE: f64 = 0.5;

pub fn check(m: &Measurements) {
    assert!(all_finite(&m.final_nodes));
    let a = m.alpha_deg.to_radians();
    // Always in contact, no bounce off, no tipping (centroid height stays within 1 % of R).
    assert!(m.min_active_contacts > 0, "the cell lost contact with the wall");
    assert!(
        m.y_max - m.y_min < 0.01,
        "centroid height varied by {}",
        m.y_max - m.y_min
    );
    let i0 = m.t.iter().position(|&t| t >= T_SETTLE).unwrap();
    if a.tan() < MU as f64 {
        // Stick. The contact nodes (bottom edge) do not slip: after settling they move along
        // the slope by less than 1e-4 R (elastic tangential deflection of the contacts is
        // m g sin α/(n k_t) ~ 1e-4 R in total), and by less than 1e-3 R since the start
        // (landing included). The centroid moves by less than 1e-3 R after settling (elastic
        // shear sway of the block). Sliding at the slide-case acceleration would cover ~ 0.5 R.
        let dxb = m.x_bottom[i0..]
            .iter()
            .map(|x| (x - m.x_bottom[i0]).abs())
            .fold(0.0, f64::max);
        let dxb0 = m.x_bottom.iter().map(|x| (x - m.x_bottom[0]).abs()).fold(0.0, f64::max);
        let dx = m.x[i0..].iter().map(|x| (x - m.x[i0]).abs()).fold(0.0, f64::max);
        println!(
            "friction stick α = {}°: after settling max |Δx| contact nodes {dxb:e}, centroid {dx:e}; since start {dxb0:e}",
            m.alpha_deg
        );
        assert!(
            dxb < 1e-4,
            "stick case: contact nodes slipped {dxb:e} R after settling (limit 1e-4 R)"
        );
        assert!(
            dxb0 < 1e-3,
            "stick case: contact nodes slipped {dxb0:e} R in total (limit 1e-3 R)"
        );
        assert!(
            dx < 1e-3,
            "stick case: centroid moved {dx:e} R after settling (limit 1e-3 R)"
        );
    } else {
        // Slide: x(t) is a parabola with the Coulomb block acceleration g (sin α − μ cos α),
        // within 2 % (contacts re-form as nodes pass wall nodes, which briefly resets the
        // tangential spring of the new contact).
        let expected = G * (a.sin() - MU as f64 * a.cos());
        let fitted = fitted_acceleration(m, T_SETTLE);
        println!(
            "friction slide α = {}°: fitted acceleration {fitted:.5}, expected {expected:.5}, distance {:.4}",
            m.alpha_deg,
            m.x.last().unwrap() - m.x[0]
        );
        assert!(
            (fitted / expected - 1.0).abs() < 0.02,
            "slide acceleration {fitted} vs g(sin α − μ cos α) = {expected}"
        );
        assert!(m.x.last().unwrap() - m.x[i0] > 0.1, "the cell did not slide down-slope");
    }
}
