//! CPU twins of the modal kernels (shaders/modal_contact.wgsl, shaders/modal_body.wgsl), same
//! names and the same order of operations, and the CPU backend that runs them.
//!
//! Per step: `modal_node_contact` (one surface node: its walls, then its candidate neighbour
//! bodies' level sets, `broad_phase`; writes the node's slots), `modal_body_update` (one body
//! gathers its nodes' forces and the reactions of the slots that point to it in a fixed order,
//! eq 26–28, and integrates eq 42–44),
//! `modal_wall_force` (one wall sums its slots over the nodes, the fixed-order reduction of
//! `crate::cpu::fixed_reduce`) and the step counter (`modal_walls_clock` on the GPU).
#![allow(clippy::needless_range_loop)] // index loops mirror the WGSL kernels line by line

use super::backend::ModalBackend;
pub use super::backend::{wall_pool, Dynamic};
use super::contact::*;
use super::layout::*;
use super::packed::Packed;
use super::stiffness::table_force;
use crate::broad_phase::pool::SlotPool;
use crate::cpu::fixed_reduce::strided_reduce;
use crate::model::df32::df_add;

/// Surface node k's position relative to X in the global frame, R(Θ)(p + ε_α Φ_α(p)) (eq 1), with
/// (s, c) = sin_cos_det(Θ) computed once by the caller (twin of `node_arm` in modal_lib.wgsl).
pub fn node_arm(sc: &Packed, st: &ModalState, k: usize, c: f32, s: f32) -> [f32; 2] {
    let nd = &sc.nodes[k];
    let mut loc = nd.p;
    for a in 0..sc.bodies[nd.body as usize].n_modes as usize {
        loc[0] += st.eps[a] * nd.phi[2 * a];
        loc[1] += st.eps[a] * nd.phi[2 * a + 1];
    }
    rot(c, s, loc)
}

/// Node kinematics: position relative to X (global frame) and velocity (eq 1 differentiated).
pub fn node_kinematics(sc: &Packed, st: &ModalState, k: usize) -> ([f32; 2], [f32; 2]) {
    let nd = &sc.nodes[k];
    let (s, c) = sin_cos_det(st.theta);
    let rel = node_arm(sc, st, k, c, s);
    let mut vloc = [0.0f32; 2];
    for a in 0..sc.bodies[nd.body as usize].n_modes as usize {
        vloc[0] += st.eps_dot[a] * nd.phi[2 * a];
        vloc[1] += st.eps_dot[a] * nd.phi[2 * a + 1];
    }
    let vg = rot(c, s, vloc);
    let vel = [st.v[0] - st.omega * rel[1] + vg[0], st.v[1] + st.omega * rel[0] + vg[1]];
    (rel, vel)
}

/// Surface node k as a contact point (twin of `surface_point` in modal_lib.wgsl): its body, the
/// body's state, its position relative to X (global frame) and velocity (`node_kinematics`), its
/// position x_hi + x_lo (x_lo carries the arm).
#[derive(Clone, Copy, Debug)]
pub struct SurfacePoint {
    pub body: usize,
    pub st: ModalState,
    pub rel: [f32; 2],
    pub vel: [f32; 2],
    pub x_hi: [f32; 2],
    pub x_lo: [f32; 2],
}

pub fn surface_point(sc: &Packed, state: &[ModalState], k: usize) -> SurfacePoint {
    let b = sc.nodes[k].body as usize;
    let st = state[b];
    let (rel, vel) = node_kinematics(sc, &st, k);
    let x_lo = [st.x_lo[0] + rel[0], st.x_lo[1] + rel[1]];
    SurfacePoint {
        body: b,
        st,
        rel,
        vel,
        x_hi: st.x_hi,
        x_lo,
    }
}

/// One surface node's contacts (twin of the kernel `modal_node_contact`): `out` is node k's slots
/// in the pool, its walls, then one per candidate neighbour (`Dynamic::node_cand`).
pub fn modal_node_contact(
    sc: &Packed,
    dy_state: &[ModalState],
    node_cand: &[u32],
    clock: u32,
    k: usize,
    out: &mut [ModalSlot],
) {
    let p = &sc.params;
    let pt = surface_point(sc, dy_state, k);
    let (b, st) = (pt.body, &pt.st);
    let t = clock as f32 * p.dt;
    for w in 0..p.n_walls as usize {
        let o = node_vs_wall(p, &sc.walls[w], t, pt.x_hi, pt.x_lo, pt.vel, out[w].hist);
        // A wall slot: no contact point or pullback point, no partner body.
        out[w] = body_contact_slot((o, [0.0; 2], [0.0; 2]), NONE);
    }
    for s in 0..out.len() - p.n_walls as usize {
        let slot = p.n_walls as usize + s;
        let j = node_cand[node_cand[k] as usize + s];
        let sj = &dy_state[j as usize];
        let d = [
            (st.x_hi[0] - sj.x_hi[0]) + (st.x_lo[0] - sj.x_lo[0]) + pt.rel[0],
            (st.x_hi[1] - sj.x_hi[1]) + (st.x_lo[1] - sj.x_lo[1]) + pt.rel[1],
        ];
        let o = point_vs_body(
            sc,
            j as usize,
            sj,
            d,
            pt.vel,
            out[slot].hist,
            0.0,
            sc.bodies[b].contact_material,
        );
        out[slot] = body_contact_slot(o, j);
    }
}

/// Generalized forces of body b (eq 26–28) from its own nodes' slots and from the reactions of
/// the slots that point to it, then the explicit step of eq 42–44 (twin of `modal_body_update`).
pub fn modal_body_update(sc: &Packed, dy: &Dynamic, b: usize) -> ModalState {
    let mut g = modal_generalized_force(sc, dy, b);
    // Gravity on the rigid part, M g at X (zero unless a stage sets it; exact for modes with
    // ∫ρ Φ = 0, checked by the host).
    let gr = sc.params.gravity;
    if gr[0] != 0.0 || gr[1] != 0.0 {
        g.f[0] += sc.bodies[b].mass * gr[0];
        g.f[1] += sc.bodies[b].mass * gr[1];
    }
    modal_integrate(sc, dy.state[b], b, &g)
}

/// Generalized forces of a body (eq 26–28): F, τ and F_ε in the body's modal basis.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GeneralizedForce {
    pub f: [f32; 2],
    pub tau: f32,
    pub fe: [f32; 4],
}

/// Body b as its generalized forces see it (twin of `body_frame`): its record and state, its n
/// modes and its frame (c, s) = (cos Θ, sin Θ) from `sin_cos_det`.
pub struct BodyFrame<'a> {
    pub br: &'a ModalBodyRec,
    pub st: ModalState,
    pub n: usize,
    pub c: f32,
    pub s: f32,
}

pub fn body_frame<'a>(sc: &'a Packed, state: &[ModalState], b: usize) -> BodyFrame<'a> {
    let br = &sc.bodies[b];
    let st = state[b];
    let (s, c) = sin_cos_det(st.theta);
    BodyFrame {
        br,
        st,
        n: br.n_modes as usize,
        c,
        s,
    }
}

/// eq 26–28: force `f` on surface node `nd` (arm `rel` = R(p + ε_α Φ_α), global frame) into the
/// generalized forces of its body (frame `fr`; twin of `add_node_force`).
pub fn add_node_force(g: &mut GeneralizedForce, fr: &BodyFrame, nd: &ModalNodeRec, rel: [f32; 2], f: [f32; 2]) {
    let (c, s) = (fr.c, fr.s);
    g.f[0] += f[0];
    g.f[1] += f[1];
    // eq 27: r_k e_θ · f = (R q) × f in 2D.
    g.tau += rel[0] * f[1] - rel[1] * f[0];
    // eq 28 with the global → local mapping: Φ_α,k · Rᵀ f.
    let fl = rot_t(c, s, f);
    for a in 0..fr.n {
        g.fe[a] += nd.phi[2 * a] * fl[0] + nd.phi[2 * a + 1] * fl[1];
    }
}

/// eq 26–28: the reaction −f of a point's contact slot `o` with a body (frame `fr`; contact point
/// q, pullback point p_ref, both in its frame) into its generalized forces (twin of
/// `add_reaction`).
pub fn add_reaction(g: &mut GeneralizedForce, sc: &Packed, fr: &BodyFrame, o: &ModalSlot) {
    let (c, s) = (fr.c, fr.s);
    let r = [-o.force[0], -o.force[1]];
    let arm = rot(c, s, o.q);
    g.f[0] += r[0];
    g.f[1] += r[1];
    g.tau += arm[0] * r[1] - arm[1] * r[0];
    let fl = rot_t(c, s, r);
    for a in 0..fr.n {
        let phi = mode_eval(sc, fr.br, a as u32, o.p_ref);
        g.fe[a] += phi[0] * fl[0] + phi[1] * fl[1];
    }
}

/// The generalized forces of body b from its own nodes' slots and the reactions of the slots
/// that point to it (`Dynamic::body_rx`, in slot order), in that fixed order (twin of
/// `modal_generalized_force`).
pub fn modal_generalized_force(sc: &Packed, dy: &Dynamic, b: usize) -> GeneralizedForce {
    let fr = body_frame(sc, &dy.state, b);
    let br = fr.br;
    let (start, slots) = (&dy.pool.start, &dy.pool.slots);
    let mut g = GeneralizedForce::default();
    for k in br.node_first as usize..(br.node_first + br.node_count) as usize {
        let nd = &sc.nodes[k];
        let rel = node_arm(sc, &fr.st, k, fr.c, fr.s);
        for sl in start[k] as usize..start[k + 1] as usize {
            let o = &slots[sl];
            if o.active != 0 {
                add_node_force(&mut g, &fr, nd, rel, o.force);
            }
        }
    }
    let rx = &dy.body_rx;
    for j in rx[b] as usize..rx[b + 1] as usize {
        let o = &slots[rx[j] as usize];
        if o.active != 0 {
            add_reaction(&mut g, sc, &fr, o);
        }
    }
    g
}

/// The explicit step of eq 42–44 of body b from state `st` under the generalized forces `g`
/// (twin of `modal_integrate`).
pub fn modal_integrate(sc: &Packed, st: ModalState, b: usize, g: &GeneralizedForce) -> ModalState {
    let p = &sc.params;
    let br = &sc.bodies[b];
    let mut st = st;
    let n = br.n_modes as usize;
    let (f, tau, fe) = (g.f, g.tau, g.fe);
    // eq 42, 43 (semi-implicit Euler) with rigid damping γ.
    let v = [
        st.v[0] + p.dt * (f[0] / br.mass - br.rigid_damping * st.v[0]),
        st.v[1] + p.dt * (f[1] / br.mass - br.rigid_damping * st.v[1]),
    ];
    let omega = st.omega + p.dt * (tau / br.inertia - br.rigid_damping * st.omega);
    // eq 44 (eq 38 with F_int = U'_ε): M ε̈ = F_ε − F_int(ε) − C ε̇.
    let mut rhs = [0.0f32; 4];
    for a in 0..n {
        let mut fint = 0.0f32;
        if br.stiff_kind == STIFF_TABLE {
            fint = table_force(&sc.tables, br.table_first as usize, br.table_len as usize, st.eps[0]);
        } else {
            for bb in 0..n {
                fint += br.k[a * 4 + bb] * st.eps[bb];
            }
        }
        let mut damp = 0.0f32;
        for bb in 0..n {
            damp += br.c[a * 4 + bb] * st.eps_dot[bb];
        }
        rhs[a] = fe[a] - fint - damp;
    }
    let mut eps_dot = st.eps_dot;
    for a in 0..n {
        let mut acc = 0.0f32;
        for bb in 0..n {
            acc += br.minv[a * 4 + bb] * rhs[bb];
        }
        eps_dot[a] = st.eps_dot[a] + p.dt * acc;
    }
    for a in 0..n {
        st.eps[a] += p.dt * eps_dot[a];
    }
    st.eps_dot = eps_dot;
    let x = df_add(st.x_hi[0], st.x_lo[0], p.dt * v[0]);
    let y = df_add(st.x_hi[1], st.x_lo[1], p.dt * v[1]);
    st.x_hi = [x.0, y.0];
    st.x_lo = [x.1, y.1];
    st.v = v;
    st.theta += p.dt * omega;
    st.omega = omega;
    st
}

/// Total force on wall w: −Σ_k slot force over the surface nodes whose wall slot is active, in
/// the fixed order of `crate::cpu::fixed_reduce` (lane t takes nodes t, t + 256, … in increasing
/// order, then the binary tree): twin of `modal_wall_force_one` in `shaders/modal_body.wgsl`, bit
/// for bit; not the serial node order of earlier builds, so the last bits differ from it.
pub fn modal_wall_force(sc: &Packed, pool: &SlotPool<ModalSlot>, w: usize) -> [f32; 2] {
    strided_reduce(
        sc.params.n_nodes as usize,
        [0.0f32; 2],
        |f, k| {
            let o = &pool.slots[pool.start[k] as usize + w];
            if o.active != 0 {
                [f[0] - o.force[0], f[1] - o.force[1]]
            } else {
                f
            }
        },
        |a, b| [a[0] + b[0], a[1] + b[1]],
    )
}

/// A body pass (twin of `modal_body_update` / `modal_body_update_coupled`, then
/// `modal_walls_clock`): every body's new state by `update` (all from the slots of the same
/// state), then every wall's force, then the step counter.
pub fn modal_body_pass(sc: &Packed, dy: &mut Dynamic, update: impl Fn(&Dynamic, usize) -> ModalState) {
    let dyr = &*dy;
    let new: Vec<ModalState> = (0..sc.bodies.len()).map(|b| update(dyr, b)).collect();
    let wf: Vec<[f32; 2]> = (0..sc.walls.len())
        .map(|w| modal_wall_force(sc, &dyr.pool, w))
        .collect();
    dy.state = new;
    dy.wall_force = wf;
    dy.clock += 1; // modal_walls_clock
}

/// `modal_node_contact` over every surface node, in parallel (each writes its own slots).
pub fn modal_node_contacts(
    sc: &Packed,
    state: &[ModalState],
    node_cand: &[u32],
    clock: u32,
    pool: &mut SlotPool<ModalSlot>,
) {
    pool.par_for_each_owner(|k, _, out| modal_node_contact(sc, state, node_cand, clock, k, out));
}

/// The CPU backend.
pub struct CpuModal {
    pub sc: Packed,
    pub dy: Dynamic,
    pub steps: u64,
}

impl CpuModal {
    pub fn new(sc: Packed, state: Vec<ModalState>) -> CpuModal {
        let dy = Dynamic::new(&sc, state);
        CpuModal { sc, dy, steps: 0 }
    }

    pub fn step_once(&mut self) {
        let (sc, dy) = (&self.sc, &mut self.dy);
        modal_node_contacts(sc, &dy.state, &dy.node_cand, dy.clock, &mut dy.pool);
        modal_body_pass(sc, dy, |dy, b| modal_body_update(sc, dy, b));
        self.steps += 1;
    }
}

impl ModalBackend for CpuModal {
    fn step(&mut self, n: u32) -> anyhow::Result<()> {
        for _ in 0..n {
            self.step_once();
        }
        Ok(())
    }
    fn states(&mut self) -> anyhow::Result<Vec<ModalState>> {
        Ok(self.dy.state.clone())
    }
    fn wall_forces(&mut self) -> anyhow::Result<Vec<[f32; 2]>> {
        Ok(self.dy.wall_force.clone())
    }
    fn pool(&mut self) -> anyhow::Result<SlotPool<ModalSlot>> {
        Ok(self.dy.pool.clone())
    }
    fn set_neighbours(&mut self, node_cand: &[u32], body_rx: &[u32], pool: &SlotPool<ModalSlot>) -> anyhow::Result<()> {
        self.dy.node_cand = node_cand.to_vec();
        self.dy.body_rx = body_rx.to_vec();
        self.dy.pool = pool.clone();
        Ok(())
    }
    fn steps_done(&self) -> u64 {
        self.steps
    }
    fn packed(&self) -> &Packed {
        &self.sc
    }
    fn packed_mut(&mut self) -> &mut Packed {
        &mut self.sc
    }
    fn dynamic(&mut self) -> anyhow::Result<Dynamic> {
        Ok(self.dy.clone())
    }
    fn set_dynamic(&mut self, dy: &Dynamic, steps: u64) -> anyhow::Result<()> {
        self.dy = dy.clone();
        self.steps = steps;
        Ok(())
    }
}
