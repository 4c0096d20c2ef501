//! The membrane's force passes on the CPU, the twins of the kernels of the same names in
//! `shaders/membrane_step.wgsl`. Each item writes its own record; `membrane_gather` then sums,
//! per sphere, its records in a fixed order (no atomics, reruns bit-identical):
//!
//!   edge_pass (eq 6) · hinge_pass (eq 11–16) · pressure_pass (eq 18–19) ·
//!   patch_pass (one thread per grain: eq 17, Table 1, law, Fig. 3) → membrane_gather, which adds
//! to the sphere stepper's extra force (`spheres::extra_force`).
//!
//! A vertex gathers its edges, hinges and pressure patches (static CSR, built once) then its
//! candidate patch corners (CSR rebuilt with the candidate list); a grain gathers its candidates.
//!
//! `Membrane::evaluate` (the passes in that order), `Membrane::compute` and the membrane's
//! `ExtraForces` impl are here too, with the passes they call (the records: `membrane::model`).

use super::model::Membrane;
use super::records::{PatchOut, ENTRY_EDGE, ENTRY_HINGE, MEMBRANE_FORCE_ONLY, MEMBRANE_PATCH_CONTACTS};
use crate::laws::membrane_bending::membrane_bending_forces;
use crate::laws::membrane_pressure::membrane_pressure_force;
use crate::laws::membrane_stretch::membrane_stretch_force;
use crate::laws::patch_contact::{
    closest_on_patch, patch_contact_dropped, patch_effective_mass, patch_point_velocity, patches_share_vertex,
};
use crate::laws::vec3::{add, cross, norm, scale, sub, V3};
use crate::spheres::contact::{pair_force, ContactGeometry, ContactHistory};
use crate::spheres::extra_force::{Evaluation, ExtraForces};
use crate::spheres::precision::df3_sub;
use crate::spheres::{SphereForce, SphereState};
use rayon::prelude::*;

/// Most patch contacts one grain keeps in a step (before Table 1); further ones are ignored
/// and counted in `Membrane::patch_overflow` (a grain between patches of side s ≳ r touches few).
pub const MAX_PATCH_CONTACTS: usize = 16;

#[inline]
fn rel(a: &SphereState, b: &SphereState) -> V3 {
    df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo)
}

/// Eq 6 on every edge: the force on its vertex i.
pub fn edge_pass(m: &mut Membrane, states: &[SphereState]) {
    let (p, edges) = (m.params, &m.edges);
    m.edge_out.par_iter_mut().enumerate().for_each(|(k, out)| {
        let e = edges[k];
        let a = &states[(p.first + e.i) as usize];
        let b = &states[(p.first + e.j) as usize];
        let m_eff = a.mass * b.mass / (a.mass + b.mass);
        let f = membrane_stretch_force(p.k, p.gamma, e.rest, m_eff, rel(a, b), sub(a.vel, b.vel));
        *out = [f[0], f[1], f[2], 0.0];
    });
}

/// Eq 11–16 on every hinge: the forces on its four vertices (positions relative to vertex 3).
pub fn hinge_pass(m: &mut Membrane, states: &[SphereState]) {
    let (p, hinges, bp) = (m.params, &m.hinges, m.bending());
    m.hinge_out.par_iter_mut().enumerate().for_each(|(k, out)| {
        let h = hinges[k];
        let s = h.v.map(|v| &states[(p.first + v) as usize]);
        let x = [rel(s[0], s[2]), rel(s[1], s[2]), [0.0; 3], rel(s[3], s[2])];
        let f = membrane_bending_forces(x, [s[0].vel, s[1].vel, s[2].vel, s[3].vel], h.sin_half_rest, &bp);
        for i in 0..4 {
            out[i] = [f[i][0], f[i][1], f[i][2], 0.0];
        }
    });
}

/// Eq 18–19 on every patch: the force on each of its vertices.
pub fn pressure_pass(m: &mut Membrane, states: &[SphereState]) {
    let (p, patches) = (m.params, &m.patches);
    m.pressure_out.par_iter_mut().enumerate().for_each(|(k, out)| {
        let s = patches[k].v.map(|v| &states[(p.first + v) as usize]);
        let f = membrane_pressure_force(p.sigma, [0.0; 3], rel(s[1], s[0]), rel(s[2], s[0]));
        *out = [f[0], f[1], f[2], 0.0];
    });
}

/// One raw contact of a grain with a candidate patch.
#[derive(Clone, Copy, Default)]
struct RawContact {
    cand: u32,
    patch: u32,
    feature: u32,
    weights: V3,
    normal: V3,
    delta: f32,
}

/// Per grain: every candidate's nearest point (eq 17), Table 1, the history (its own, or one
/// handed over by a contact on an adjacent patch that just ended, so friction does not restart
/// at every edge), the pair law, and the records of all its candidates.
pub fn patch_pass(m: &mut Membrane, states: &[SphereState]) {
    if m.params.flags & MEMBRANE_PATCH_CONTACTS == 0 || m.list.patch.is_empty() {
        return;
    }
    let p = m.params;
    let (list, patches, laws, old) = (&m.list, &m.patches, &m.patch_laws, &m.patch_history);
    let rows: Vec<(Vec<(PatchOut, ContactHistory)>, u32)> = (0..p.n_spheres as usize)
        .into_par_iter()
        .map(|s| {
            let (c0, c1) = (list.start[s] as usize, list.start[s + 1] as usize);
            let mut out = vec![(PatchOut::default(), ContactHistory::default()); c1 - c0];
            if c0 == c1 {
                return (out, 0);
            }
            let g = &states[s];
            let mut raw = [RawContact::default(); MAX_PATCH_CONTACTS];
            let mut n = 0usize;
            let mut overflow = 0u32;
            for c in c0..c1 {
                let pa = patches[list.patch[c] as usize];
                let x = pa.v.map(|v| rel(&states[(p.first + v) as usize], g));
                let q = closest_on_patch([0.0; 3], x[0], x[1], x[2]);
                let d = scale(q.point, -1.0);
                let dist = norm(d);
                if dist < g.radius && dist > 0.0 {
                    if n == MAX_PATCH_CONTACTS {
                        overflow += 1;
                        continue;
                    }
                    raw[n] = RawContact {
                        cand: c as u32,
                        patch: list.patch[c],
                        feature: q.feature,
                        weights: q.weights,
                        normal: scale(d, 1.0 / dist),
                        delta: g.radius - dist,
                    };
                    n += 1;
                }
            }
            // Table 1 by points (`patch_contact_dropped`; the lower patch index where the paper
            // chooses randomly).
            let mut keep = [false; MAX_PATCH_CONTACTS];
            for a in 0..n {
                keep[a] = true;
                for b in 0..n {
                    let (va, vb) = (patches[raw[a].patch as usize].v, patches[raw[b].patch as usize].v);
                    if b != a
                        && patches_share_vertex(va, vb)
                        && patch_contact_dropped(raw[a].feature, va, raw[a].patch, raw[b].feature, vb, raw[b].patch)
                    {
                        keep[a] = false;
                    }
                }
            }
            let mut donated = vec![false; c1 - c0];
            for a in 0..n {
                if !keep[a] {
                    continue;
                }
                let c = raw[a].cand as usize;
                let mut h = old[c];
                if h._pad0 == 0.0 {
                    // A new contact takes over the history of an ended one on an adjacent patch.
                    for o in c0..c1 {
                        let still = (0..n).any(|b| keep[b] && raw[b].cand as usize == o);
                        if old[o]._pad0 != 0.0
                            && !still
                            && !donated[o - c0]
                            && patches_share_vertex(patches[list.patch[o] as usize].v, patches[raw[a].patch as usize].v)
                        {
                            h = old[o];
                            donated[o - c0] = true;
                            break;
                        }
                    }
                }
                let pa = patches[raw[a].patch as usize];
                let vs = pa.v.map(|v| &states[(p.first + v) as usize]);
                let w = raw[a].weights;
                let nrm = raw[a].normal;
                let l = scale(nrm, -(g.radius - 0.5 * raw[a].delta));
                let v_point = patch_point_velocity(w, vs[0].vel, vs[1].vel, vs[2].vel);
                let geom = ContactGeometry {
                    normal: nrm,
                    delta: raw[a].delta,
                    v_rel: sub(add(g.vel, cross(g.omega, l)), v_point),
                    r_star: g.radius,
                    w_rel: g.omega,
                    m_star: patch_effective_mass(g.mass, w, [vs[0].mass, vs[1].mass, vs[2].mass]),
                };
                let (pf, mut hn) = pair_force(&laws[g.material as usize], &geom, p.dt, &h, 0.0);
                hn._pad0 = 1.0;
                out[c - c0] = (
                    PatchOut {
                        force: pf.force,
                        f_n: pf.f_n,
                        weights: w,
                        active: 1,
                        torque: add(cross(l, pf.force), pf.rolling_torque),
                        energy: pf.energy,
                    },
                    hn,
                );
            }
            (out, overflow)
        })
        .collect();
    let mut k = 0;
    let write_history = p.flags & MEMBRANE_FORCE_ONLY == 0;
    for (row, over) in rows {
        m.patch_overflow += over as u64;
        for (o, h) in row {
            m.patch_out[k] = o;
            if write_history {
                m.patch_history[k] = h;
            }
            k += 1;
        }
    }
}

/// Per sphere: a vertex sums its edges, hinges and pressure patches (static order), its
/// candidate corners, then its own candidates (self-contact); a grain sums its candidates. Added
/// to `out` (one per sphere).
pub fn membrane_gather(m: &Membrane, states: &[SphereState], out: &mut [SphereForce]) {
    let p = m.params;
    out.par_iter_mut().enumerate().for_each(|(s, out)| {
        let mut f = [0.0f32; 3];
        let mut t = [0.0f32; 3];
        let _ = &states[s];
        if s >= p.first as usize && s < (p.first + p.n_vertices) as usize {
            let v = s - p.first as usize;
            for &e in &m.vertex_entry[m.vertex_start[v] as usize..m.vertex_start[v + 1] as usize] {
                let (kind, item, slot) = (e >> 30, ((e >> 2) & 0x0fff_ffff) as usize, (e & 3) as usize);
                let x = if kind == ENTRY_EDGE {
                    let o = m.edge_out[item];
                    if slot == 0 {
                        [o[0], o[1], o[2]]
                    } else {
                        [-o[0], -o[1], -o[2]]
                    }
                } else if kind == ENTRY_HINGE {
                    let o = m.hinge_out[item][slot];
                    [o[0], o[1], o[2]]
                } else {
                    let o = m.pressure_out[item];
                    [o[0], o[1], o[2]]
                };
                f = add(f, x);
            }
            if !m.list.corner_start.is_empty() {
                for &e in &m.list.corner[m.list.corner_start[v] as usize..m.list.corner_start[v + 1] as usize] {
                    let o = &m.patch_out[(e >> 2) as usize];
                    if o.active != 0 {
                        f = sub(f, scale(o.force, o.weights[(e & 3) as usize]));
                    }
                }
                // Self-contact: the vertex's own contacts with foreign patches (force only: a
                // vertex takes no torque, so its ω stays 0 and its contacts do not roll).
                for o in &m.patch_out[m.list.start[s] as usize..m.list.start[s + 1] as usize] {
                    if o.active != 0 {
                        f = add(f, o.force);
                    }
                }
            }
        } else if !m.list.start.is_empty() {
            for o in &m.patch_out[m.list.start[s] as usize..m.list.start[s + 1] as usize] {
                if o.active != 0 {
                    f = add(f, o.force);
                    t = add(t, o.torque);
                }
            }
        }
        out.force = add(out.force, f);
        out.torque = add(out.torque, t);
    });
}

/// One force evaluation of the membrane: the passes above in their order.
impl Membrane {
    /// All passes of one force evaluation on its own (outside a stepper): the candidate list
    /// rebuilt if stale, then the forces of the membrane on every sphere into `external`.
    pub fn compute(&mut self, states: &[SphereState], external: &mut Vec<SphereForce>) {
        if self.needs_rebuild(states) {
            self.rebuild(states);
        }
        external.clear();
        external.resize(states.len(), SphereForce::default());
        self.evaluate(states, true, external);
    }

    /// edge_pass, hinge_pass, pressure_pass, patch_pass (histories written when `advance`),
    /// membrane_gather adding to `out`. The candidate list must be valid.
    pub fn evaluate(&mut self, states: &[SphereState], advance: bool, out: &mut [SphereForce]) {
        if advance {
            self.params.flags &= !MEMBRANE_FORCE_ONLY;
        } else {
            self.params.flags |= MEMBRANE_FORCE_ONLY;
        }
        edge_pass(self, states);
        hinge_pass(self, states);
        pressure_pass(self, states);
        patch_pass(self, states);
        membrane_gather(self, states, out);
        self.params.flags &= !MEMBRANE_FORCE_ONLY;
    }
}

/// The membrane as a force source of the sphere stepper (`spheres::extra_force`): its vertices
/// are spheres of the stepper, its candidate list is rebuilt with the stepper's sphere list.
impl ExtraForces for Membrane {
    fn add_forces(&mut self, states: &[SphereState], eval: Evaluation, out: &mut [SphereForce]) {
        self.params.dt = eval.dt;
        self.evaluate(states, eval.advance, out);
    }

    fn rebuild(&mut self, states: &[SphereState], skin: f32) {
        self.skin = skin as f64;
        Membrane::rebuild(self, states);
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}
