//! Observables computed on the host from a read-back state, identical for both backends:
//! energies (kinetic, stretch, bending, core, contact), momentum, body forces and centroids.
//! Computed in f64 from the f32 state.

use crate::backend::ContactSnapshot;
use crate::model::df32::{atan2_det, cross, df_sub, dot};
use crate::model::*;

/// Energy budget of the scene (§5: W_s, W_b, core and contact energies).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Energies {
    pub kinetic: f64,
    /// W_s = Σ F²/(2 k_s) over segments (elastic part of eq 1).
    pub stretch: f64,
    /// W_b = Σ M²/(2 k_b) over vertices (elastic part of eq 3).
    pub bending: f64,
    /// Core energy: ∫ −p dV from V0 (undrained: −p0 ΔV + K_Ω ΔV²/(2 V0); drained: −p0 ΔV;
    /// gas: −p0 V0 ln(V/V0)).
    pub core: f64,
    /// Σ f_n²/(2 k_n) over active contacts.
    pub contact: f64,
}

impl Energies {
    pub fn total(&self) -> f64 {
        self.kinetic + self.stretch + self.bending + self.core + self.contact
    }
}

/// Elastic energies stored at node i: W_s of segment i → i+1 (F²/2k_s, F = k_s(ℓ_p − ℓ)) and
/// W_b of vertex i (k_b (θ − θ_p)²/2), in f64. Frozen bodies and missing segments give 0.
pub fn shell_energy_at(scene: &Scene, nodes: &[NodeState], i: usize) -> (f64, f64) {
    let nd = scene.nodes[i];
    let body = scene.bodies[nd.body as usize];
    if body.flags & BODY_FROZEN != 0 {
        return (0.0, 0.0);
    }
    let m = scene.materials[body.material as usize];
    let s = &nodes[i];
    let (mut w_s, mut w_b) = (0.0, 0.0);
    if nd.next != NONE && m.k_s > 0.0 {
        let b = &nodes[nd.next as usize];
        let d = df_sub(b.pos_hi, b.pos_lo, s.pos_hi, s.pos_lo);
        let l = (dot(d, d) as f64).sqrt();
        let f = m.k_s as f64 * (s.seg_rest as f64 - l);
        w_s = 0.5 * f * f / m.k_s as f64;
    }
    if nd.prev != NONE && nd.next != NONE && m.k_b > 0.0 {
        let (a, c) = (&nodes[nd.prev as usize], &nodes[nd.next as usize]);
        let e1 = df_sub(s.pos_hi, s.pos_lo, a.pos_hi, a.pos_lo);
        let e2 = df_sub(c.pos_hi, c.pos_lo, s.pos_hi, s.pos_lo);
        let mut dth = atan2_det(cross(e1, e2), dot(e1, e2)) as f64 - s.theta_p as f64;
        if dth > std::f64::consts::PI {
            dth -= 2.0 * std::f64::consts::PI;
        }
        if dth < -std::f64::consts::PI {
            dth += 2.0 * std::f64::consts::PI;
        }
        w_b = 0.5 * m.k_b as f64 * dth * dth;
    }
    (w_s, w_b)
}

pub fn energies(scene: &Scene, nodes: &[NodeState], bodies: &[BodyState], contacts: &ContactSnapshot) -> Energies {
    let mut e = Energies::default();
    for (i, (nd, s)) in scene.nodes.iter().zip(nodes).enumerate() {
        let body = scene.bodies[nd.body as usize];
        if body.flags & BODY_FROZEN != 0 {
            continue;
        }
        e.kinetic += 0.5 * nd.mass as f64 * (s.vel[0] as f64 * s.vel[0] as f64 + s.vel[1] as f64 * s.vel[1] as f64);
        let (w_s, w_b) = shell_energy_at(scene, nodes, i);
        e.stretch += w_s;
        e.bending += w_b;
    }
    for (b, bs) in scene.bodies.iter().zip(bodies) {
        let m = scene.materials[b.material as usize];
        // V − V0 from core_area's double-f32 |A| − A0 (a stiff core's ΔV is below one f32 ulp of V).
        let dv = m.depth as f64 * bs.area_change as f64;
        let (v0, p0) = (b.core_v0 as f64, b.core_p0 as f64);
        e.core += match b.core_model {
            CORE_UNDRAINED => -p0 * dv + 0.5 * m.k_core as f64 * dv * dv / v0,
            CORE_DRAINED => -p0 * dv,
            CORE_GAS => -p0 * v0 * (dv / v0).ln_1p(),
            _ => 0.0,
        };
    }
    // ½ f_n²/k_n with the k_n of each contact's pair law (entry e of node c's list: c and its
    // neighbour's bodies' contact materials).
    let laws = scene.contact_law_table();
    let n_mat = scene.n_contact_materials() as usize;
    let material = |i: u32| scene.bodies[scene.nodes[i as usize].body as usize].contact_material as usize;
    for c in 0..contacts.start.len().saturating_sub(1) {
        for k in contacts.start[c] as usize..contacts.start[c + 1] as usize {
            let s = &contacts.slots[k];
            let kn = laws[material(c as u32) * n_mat + material(contacts.entries[k].neighbor)].k_n as f64;
            if s.flags & SLOT_SEG != 0 {
                e.contact += 0.5 * (s.seg_fn as f64).powi(2) / kn;
            }
            if s.flags & SLOT_CAP != 0 {
                e.contact += 0.5 * (s.cap_fn as f64).powi(2) / kn;
            }
        }
    }
    e
}

/// Total momentum Σ m v of the free (non-frozen) nodes.
pub fn momentum(scene: &Scene, nodes: &[NodeState]) -> [f64; 2] {
    let mut p = [0.0f64; 2];
    for (nd, s) in scene.nodes.iter().zip(nodes) {
        if scene.bodies[nd.body as usize].flags & BODY_FROZEN == 0 {
            p[0] += nd.mass as f64 * s.vel[0] as f64;
            p[1] += nd.mass as f64 * s.vel[1] as f64;
        }
    }
    p
}

/// Sum of the forces on the nodes of a body (for a wall: the reaction it receives).
pub fn body_force(scene: &Scene, nodes: &[NodeState], body: u32) -> [f64; 2] {
    let b = scene.bodies[body as usize];
    let mut f = [0.0f64; 2];
    for s in &nodes[b.first as usize..(b.first + b.count) as usize] {
        f[0] += s.force[0] as f64;
        f[1] += s.force[1] as f64;
    }
    f
}

/// Mean node position of a body.
pub fn centroid(scene: &Scene, nodes: &[NodeState], body: u32) -> [f64; 2] {
    let b = scene.bodies[body as usize];
    let mut c = [0.0f64; 2];
    for s in &nodes[b.first as usize..(b.first + b.count) as usize] {
        let p = s.pos();
        c[0] += p[0];
        c[1] += p[1];
    }
    [c[0] / b.count as f64, c[1] / b.count as f64]
}

/// Mean distance of a body's nodes from their centroid.
pub fn mean_radius(scene: &Scene, nodes: &[NodeState], body: u32) -> f64 {
    let b = scene.bodies[body as usize];
    let c = centroid(scene, nodes, body);
    nodes[b.first as usize..(b.first + b.count) as usize]
        .iter()
        .map(|s| {
            let p = s.pos();
            ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)).sqrt()
        })
        .sum::<f64>()
        / b.count as f64
}
