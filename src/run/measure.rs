//! What the driver measures on a read-back state: wall positions and forces, sample height and
//! width, stress, strain, void ratio, particle area, energies (total and per cell), contact count
//! and the fastest node (for the runaway check).

use crate::backend::ContactSnapshot;
use crate::diagnostics::{self, Energies};

use crate::model::*;
use crate::scenario::stages::MeasureWalls;
use crate::scenario::Built;

/// Observables of one state.
#[derive(Clone, Debug, Default)]
pub struct Measures {
    /// Per wall of `Built::geometry.walls`: centroid and total force on it ((x, y, 0) in 2D). A
    /// coupled run's modal walls are NaN here and filled by its kind (`engine::coupled`).
    pub walls: Vec<([f64; 3], [f64; 3])>,
    /// Sample height H and width W between the inner faces of the [measure] walls (NaN if unknown).
    pub height: f64,
    pub width: f64,
    /// σ_yy = F_y(top)/(W s), σ_xx = −F_x(right)/(H s), compression positive.
    pub stress_yy: f64,
    pub stress_xx: f64,
    /// Σ over cells of the sphero-polygon area A + P r + π r² (3D spheres: their total volume).
    pub particle_area: f64,
    /// e = (W H − A_p)/A_p.
    pub void_ratio: f64,
    pub energies: Energies,
    pub contacts: usize,
    /// The fastest free node and its speed.
    pub fastest: (u32, f64),
    /// First node with a non-finite position, velocity or force.
    pub non_finite: Option<u32>,
}

fn wall_face(built: &Built, nodes: &[NodeState], wall: Option<u32>, axis: usize) -> Option<(f64, f64, [f64; 2])> {
    let w = wall?;
    let c = diagnostics::centroid(&built.scene, nodes, w);
    let f = diagnostics::body_force(&built.scene, nodes, w);
    Some((c[axis], built.scene.bodies[w as usize].radius as f64, f))
}

/// Depth s of the cells (first non-frozen body's material).
pub fn depth(built: &Built) -> f64 {
    built
        .scene
        .bodies
        .iter()
        .find(|b| b.flags & BODY_FROZEN == 0)
        .map(|b| built.scene.materials[b.material as usize].depth as f64)
        .unwrap_or(1.0)
}

/// Sample height and width from the [measure] walls.
pub fn sample_size(built: &Built, nodes: &[NodeState], m: &MeasureWalls) -> (f64, f64) {
    let h = match (wall_face(built, nodes, m.top, 1), wall_face(built, nodes, m.bottom, 1)) {
        (Some(t), Some(b)) => (t.0 - t.1) - (b.0 + b.1),
        _ => f64::NAN,
    };
    let w = match (wall_face(built, nodes, m.right, 0), wall_face(built, nodes, m.left, 0)) {
        (Some(r), Some(l)) => (r.0 - r.1) - (l.0 + l.1),
        _ => f64::NAN,
    };
    (h, w)
}

pub fn measure(built: &Built, nodes: &[NodeState], bodies: &[BodyState], contacts: &ContactSnapshot) -> Measures {
    let sc = &built.scene;
    let walls = built
        .geometry
        .walls
        .iter()
        .map(|(_, w)| {
            if crate::scenario::coupled::modal_wall(*w).is_some() {
                return ([f64::NAN; 3], [f64::NAN; 3]);
            }
            let (c, f) = (
                diagnostics::centroid(sc, nodes, *w),
                diagnostics::body_force(sc, nodes, *w),
            );
            ([c[0], c[1], 0.0], [f[0], f[1], 0.0])
        })
        .collect();
    let (height, width) = sample_size(built, nodes, &built.measure);
    let s = depth(built);
    let m = &built.measure;
    let stress_yy = match m.top.or(m.bottom) {
        Some(w) => {
            let f = diagnostics::body_force(sc, nodes, w)[1];
            let f = if Some(w) == m.top { f } else { -f };
            let len = if width.is_finite() {
                width
            } else {
                body_length(sc, nodes, w)
            };
            f / (len * s)
        }
        None => f64::NAN,
    };
    let stress_xx = match m.right.or(m.left) {
        Some(w) => {
            let f = diagnostics::body_force(sc, nodes, w)[0];
            let f = if Some(w) == m.right { f } else { -f };
            let len = if height.is_finite() {
                height
            } else {
                body_length(sc, nodes, w)
            };
            f / (len * s)
        }
        None => f64::NAN,
    };
    let particle_area = particle_area(sc, nodes, bodies);
    let void_ratio = if height.is_finite() && width.is_finite() && particle_area > 0.0 {
        (width * height - particle_area) / particle_area
    } else {
        f64::NAN
    };
    let mut fastest = (0u32, 0.0f64);
    let mut non_finite = None;
    for (i, (nd, st)) in sc.nodes.iter().zip(nodes).enumerate() {
        let all = [
            st.pos_hi[0],
            st.pos_hi[1],
            st.pos_lo[0],
            st.pos_lo[1],
            st.vel[0],
            st.vel[1],
            st.force[0],
            st.force[1],
        ];
        if non_finite.is_none() && all.iter().any(|x| !x.is_finite()) {
            non_finite = Some(i as u32);
        }
        if sc.bodies[nd.body as usize].flags & BODY_FROZEN == 0 {
            let v = (st.vel[0] as f64).hypot(st.vel[1] as f64);
            if v > fastest.1 {
                fastest = (i as u32, v);
            }
        }
    }
    Measures {
        walls,
        height,
        width,
        stress_yy,
        stress_xx,
        particle_area,
        void_ratio,
        energies: diagnostics::energies(sc, nodes, bodies, contacts),
        contacts: contacts.active_count(),
        fastest,
        non_finite,
    }
}

fn body_length(sc: &Scene, nodes: &[NodeState], b: u32) -> f64 {
    let b = sc.bodies[b as usize];
    let p = nodes[b.first as usize].pos();
    let q = nodes[(b.first + b.count - 1) as usize].pos();
    (q[0] - p[0]).hypot(q[1] - p[1])
}

/// Σ over closed free bodies of the sphero-polygon area A + P r + π r².
pub fn particle_area(sc: &Scene, nodes: &[NodeState], bodies: &[BodyState]) -> f64 {
    sc.bodies
        .iter()
        .zip(bodies)
        .filter(|(b, _)| b.flags & BODY_CLOSED != 0 && b.flags & BODY_FROZEN == 0)
        .map(|(b, s)| {
            let r = b.radius as f64;
            let mut perim = 0.0;
            for k in 0..b.count {
                let p = nodes[(b.first + k) as usize].pos();
                let q = nodes[(b.first + (k + 1) % b.count) as usize].pos();
                perim += (q[0] - p[0]).hypot(q[1] - p[1]);
            }
            s.area.abs() as f64 + perim * r + std::f64::consts::PI * r * r
        })
        .sum()
}

/// Elastic energy of each body: stretch and bending of its segments and vertices plus its core
/// energy (as `diagnostics::energies`, body by body). Frozen bodies have 0.
pub fn body_energies(sc: &Scene, nodes: &[NodeState], bodies: &[BodyState]) -> Vec<f64> {
    let mut e = vec![0.0f64; sc.bodies.len()];
    for (i, nd) in sc.nodes.iter().enumerate() {
        let (w_s, w_b) = crate::diagnostics::shell_energy_at(sc, nodes, i);
        e[nd.body as usize] += w_s + w_b;
    }
    for (i, (b, bs)) in sc.bodies.iter().zip(bodies).enumerate() {
        let m = sc.materials[b.material as usize];
        // V − V0 from core_area's double-f32 |A| − A0, as diagnostics::energies.
        let dv = m.depth as f64 * bs.area_change as f64;
        let v = m.depth as f64 * bs.area.abs() as f64;
        let (v0, p0) = (b.core_v0 as f64, b.core_p0 as f64);
        e[i] += match b.core_model {
            CORE_UNDRAINED if v0 > 0.0 => -p0 * dv + 0.5 * m.k_core as f64 * dv * dv / v0,
            CORE_DRAINED => -p0 * dv,
            CORE_GAS if v0 > 0.0 && v > 0.0 => -p0 * v0 * (dv / v0).ln_1p(),
            _ => 0.0,
        };
    }
    e
}
