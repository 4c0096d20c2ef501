//! The CPU stepper's node pass: `node_forces` (the scalar twin of `shaders/node_forces.wgsl`)
//! on eight consecutive nodes at a time where nothing but the shell acts on them.
//!
//! In a packing most nodes have no contact this step (no gather mark), no cohesive link, no
//! boundary condition, and share their body's mass: for them `node_forces` is the sum of the
//! shell forces of X−1, X and X+1 and the Verlet half-step, the same arithmetic on every node.
//! Here a group of eight such nodes of one body reads each shell field with one vector load from
//! `ShellColumns` (X−1 and X+1 are that load shifted by one lane, the wrap of a closed shell put in
//! the end lane) and does the sum and the half-step on `F8` lanes, in `node_forces`' order, so each
//! lane gives the scalar twin's bits (test `lanes_equal_the_scalar_twin_bit_for_bit`). A node of
//! the group with any other term (a gather mark, a cohesive link, a non-zero force from the modal
//! bodies of the coupled stepper) is left out of the lanes' writes and takes the scalar twin;
//! bodies outside `lane_mass` take the scalar twin throughout. (A zero modal force changes no
//! bit: the sum it is added to starts at +0 and is never −0, and x + (±0) = x for such x.)

use super::integrate::half_kick;
use super::node_forces::{external_and_damping, node_forces};
use super::shell_columns::*;
use crate::model::lanes::{Lanes, F8, LANES};
use crate::model::*;

/// Per body: the node mass when the node pass may take its nodes eight at a time: a lane body
/// (`lane_bodies`) whose nodes all have the same mass and no boundary condition.
pub fn lane_mass(nodes: &[NodeRecord], bodies: &[Body], lane_ok: &[bool]) -> Vec<Option<f32>> {
    bodies
        .iter()
        .zip(lane_ok)
        .map(|(b, &ok)| {
            let body_nodes = &nodes[b.first as usize..(b.first + b.count) as usize];
            let m = body_nodes.first()?.mass;
            (ok && body_nodes
                .iter()
                .all(|n| n.mass.to_bits() == m.to_bits() && n.bc == NONE))
            .then_some(m)
        })
        .collect()
}

/// What the node pass reads (the arguments of `node_forces`, the shell forces as columns, and
/// `lane_mass`).
#[derive(Clone, Copy)]
pub struct NodeInputs<'a> {
    pub p: &'a SimParams,
    pub nodes: &'a [NodeRecord],
    pub bcs: &'a [NodeBc],
    pub bodies: &'a [Body],
    /// The shell forces (`shell_columns`).
    pub cols: &'a ShellColumns,
    pub lane_mass: &'a [Option<f32>],
    pub start: &'a [u32],
    pub entries: &'a [Entry],
    pub slot_index: &'a [u32],
    pub pool: &'a [ContactSlot],
    pub slot_marks: &'a [u32],
    pub link_start: &'a [u32],
    pub link_list: &'a [u32],
    pub link_force: &'a [[f32; 2]],
    pub modal: Option<&'a [[f32; 2]]>,
    /// `RestingWalls::node_pass_skip` (one bit per node; empty: none): wall nodes whose records
    /// hold what node_forces writes when no contact acts on them (those without a gather mark
    /// are skipped).
    pub rest_skip: &'a [u32],
}

/// `node_forces` of nodes c0 … c0 + out.len() − 1, whose states (with v_{n+½} in `vel`) are
/// `out`: writes v_{n+1}, f_{n+1} and the plastic state, as the stepper's scalar loop did.
pub fn node_forces_run(c0: usize, inp: &NodeInputs, out: &mut [NodeState]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
        // `#[target_feature(enable = "avx2")]` function.
        unsafe { run_avx2(c0, inp, out) };
        return;
    }
    run::<F8>(c0, inp, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2(c0: usize, inp: &NodeInputs, out: &mut [NodeState]) {
    run::<crate::model::lanes::F8Avx>(c0, inp, out);
}

/// The scalar twin on node x (state `s`).
#[inline(always)]
fn scalar(x: usize, inp: &NodeInputs, s: &mut NodeState) {
    let u = node_forces(
        x,
        inp.p,
        inp.nodes,
        inp.bcs,
        inp.bodies,
        inp.cols,
        s.vel, // v_{n+½}
        inp.start,
        inp.entries,
        inp.slot_index,
        inp.pool,
        inp.slot_marks,
        inp.link_start,
        inp.link_list,
        inp.link_force,
        inp.modal.map(|m| m[x]),
    );
    s.vel = u.vel;
    s.force = u.force;
    let at = ShellColumns::node(x);
    s.seg_rest = inp.cols.get(at, SEG_REST);
    s.theta_p = inp.cols.get(at, THETA_P);
}

/// A node of a frozen body (a wall): with no contact term this step (no gather mark), no
/// cohesive link and both velocity components imposed, `node_forces` sums nothing (no shell, no
/// external force on a wall node) and the imposed velocity replaces the half-step, so the update
/// is written directly: f = (+0, +0), v = the imposed velocity, the plastic state as the shell
/// pass left it. Any other node takes the scalar twin. This keeps a wall cut into many segments
/// from costing a `node_forces` call per node and step (test
/// `lanes_equal_the_scalar_twin_bit_for_bit`).
#[inline(always)]
fn wall_node(x: usize, inp: &NodeInputs, gather_marks: &[u32], s: &mut NodeState) {
    let n = inp.nodes[x];
    let marked = has_slots(gather_marks, x as u32);
    let linked = !inp.link_list.is_empty() && inp.link_start[x] != inp.link_start[x + 1];
    let imposed = n.bc != NONE && inp.bcs[n.bc as usize].mode & (BC_VX | BC_VY) == BC_VX | BC_VY;
    let modal = inp.modal.is_some_and(|m| modal_acts(m[x]));
    if marked || linked || !imposed || modal {
        scalar(x, inp, s);
        return;
    }
    s.vel = inp.bcs[n.bc as usize].velocity;
    s.force = [0.0, 0.0];
    let at = ShellColumns::node(x);
    s.seg_rest = inp.cols.get(at, SEG_REST);
    s.theta_p = inp.cols.get(at, THETA_P);
}

/// Whether a node's force from the modal bodies changes its sum: not ±0 (NaN included).
#[inline(always)]
pub(crate) fn modal_acts(m: [f32; 2]) -> bool {
    m[0] != 0.0 || m[1] != 0.0
}

#[inline(always)]
fn run<L: Lanes>(c0: usize, inp: &NodeInputs, out: &mut [NodeState]) {
    let end = c0 + out.len();
    let words = inp.slot_marks.len() / 2;
    let gather_marks = &inp.slot_marks[words..];
    let mut x = c0;
    while x < end {
        let b = inp.nodes[x].body as usize;
        let body = inp.bodies[b];
        let run_end = end.min((body.first + body.count) as usize);
        let mass = match inp.lane_mass[b] {
            Some(m) => m,
            None if body.flags & BODY_FROZEN != 0 => {
                // Nodes at rest with no contact this step already hold what node_forces writes
                // (`RestingWalls`): skipped, a word of 32 at a time where they fill one.
                let resting = |w: usize| inp.rest_skip.get(w).map_or(0, |&r| r & !gather_marks[w]);
                let mut i = x;
                while i < run_end {
                    if i & 31 == 0 && i + 32 <= run_end && resting(i >> 5) == u32::MAX {
                        i += 32;
                        continue;
                    }
                    if resting(i >> 5) >> (i & 31) & 1 == 0 {
                        wall_node(i, inp, gather_marks, &mut out[i - c0]);
                    }
                    i += 1;
                }
                x = run_end;
                continue;
            }
            _ => {
                for i in x..run_end {
                    scalar(i, inp, &mut out[i - c0]);
                }
                x = run_end;
                continue;
            }
        };
        while x < run_end {
            let len = LANES.min(run_end - x);
            // Nodes with a contact term this step (gather marks; they may straddle two words)
            // or a cohesive link take the scalar twin, after the lanes (which leave them alone).
            let w = x >> 5;
            let bits = gather_marks[w] as u64 | (gather_marks.get(w + 1).copied().unwrap_or(0) as u64) << 32;
            let mut special = ((bits >> (x & 31)) as u32) & ((1u32 << len) - 1);
            if !inp.link_list.is_empty() {
                for l in 0..len {
                    special |= ((inp.link_start[x + l] != inp.link_start[x + l + 1]) as u32) << l;
                }
            }
            if let Some(m) = inp.modal {
                for l in 0..len {
                    special |= (modal_acts(m[x + l]) as u32) << l;
                }
            }
            let out_group = &mut out[x - c0..][..len];
            if special != (1u32 << len) - 1 {
                group::<L>(x, &body, mass, inp, special, out_group);
            }
            while special != 0 {
                let l = special.trailing_zeros() as usize;
                scalar(x + l, inp, &mut out_group[l]);
                special &= special - 1;
            }
            x += len;
        }
    }
}

/// Nodes x0 … x0 + out.len() − 1 (at most 8) of one body, with shell forces only, except those
/// whose bit is set in `skip`, which are left as they are.
#[inline(always)]
fn group<L: Lanes>(x0: usize, body: &Body, mass: f32, inp: &NodeInputs, skip: u32, out: &mut [NodeState]) {
    let p = inp.p;
    let len = out.len();
    let first = body.first as usize;
    let last = first + body.count as usize - 1;
    let closed = body.flags & BODY_CLOSED != 0;
    let xl = x0 + len - 1;
    // Neighbours outside the group: before lane 0, after lane len − 1 (on an open line a
    // stand-in, masked below).
    let before = if x0 > first {
        x0 - 1
    } else if closed {
        last
    } else {
        x0
    };
    let after = if xl < last {
        xl + 1
    } else if closed {
        first
    } else {
        xl
    };
    let cols = inp.cols;
    let (at, at_before, at_after) = (
        ShellColumns::node(x0),
        ShellColumns::node(before),
        ShellColumns::node(after),
    );
    let end_lane = (len < LANES).then(|| L::mask(std::array::from_fn(|l| l == len - 1)));
    let load = |f: usize| -> (L, L, L) { neighbours(cols, [at, at_before, at_after], end_lane, f) };
    // On an open line: the last node owns no segment (no next), the first no predecessor.
    let ends = (!closed).then(|| {
        let x = |l: usize| x0 + l;
        (
            L::mask(std::array::from_fn(|l| x(l) != last)),
            L::mask(std::array::from_fn(|l| x(l) != first)),
        )
    });
    let if_next = |v: L, f: L| ends.map_or(v, |(has_next, _)| L::select(has_next, v, f));
    let if_prev = |v: L, f: L| ends.map_or(v, |(_, has_prev)| L::select(has_prev, v, f));
    let core = closed && body.core_model != CORE_NONE;
    // (No closure calls a lane operation: see `neighbours`.)
    // A full group moves its records as rows (`Lanes::transpose4`, `store_rows4`): v_{n+½} in,
    // v_{n+1}, f, ℓ_p and θ_p out; a short one lane by lane.
    let full = len == LANES;
    let vh = if full {
        let [vx, vy, _, _] = L::transpose4(std::array::from_fn(|l| out[l].vel_force_row()));
        [vx, vy]
    } else {
        let vel_of = |d: usize| -> [f32; LANES] { std::array::from_fn(|l| out[l.min(len - 1)].vel[d]) };
        [L::from_array(vel_of(0)), L::from_array(vel_of(1))]
    };
    let zero = L::splat(0.0);
    let m = L::splat(mass);
    let mut f = [zero; 2];
    for (d, fd) in f.iter_mut().enumerate() {
        // node_force_sum's terms, in its order.
        let (s_prev, s_own, _) = load(STRETCH_X + d);
        *fd = if_next(*fd - s_own, *fd);
        *fd = if_prev(*fd + s_prev, *fd);
        let (bc_prev, bc_own, _) = load(BEND_C_X + d);
        *fd = if_prev(*fd - bc_prev, *fd);
        let (_, ba_own, ba_next) = load(BEND_A_X + d);
        *fd = *fd + (ba_own + bc_own);
        *fd = if_next(*fd - ba_next, *fd);
        if core {
            let (p_prev, p_own, _) = load(PRESSURE_X + d);
            *fd = *fd + (p_prev + p_own);
        }
    }
    // node_force_finish without a boundary condition (its added force is zero): the twin's
    // generic functions, one copy of the arithmetic.
    let f = external_and_damping(p, m, vh, f, [zero; 2]);
    let vel = half_kick(p.dt, m, vh, f);
    let (rest, theta) = (cols.load::<L>(at, SEG_REST), cols.load::<L>(at, THETA_P));
    if full && skip == 0 {
        let out: &mut [NodeState; LANES] = out.try_into().expect("eight nodes");
        L::store_rows4(
            [vel[0], vel[1], f[0], f[1]],
            out.each_mut().map(NodeState::vel_force_row_mut),
        );
        L::store_rows2([rest, theta], out.each_mut().map(NodeState::plastic_mut));
        return;
    }
    // (Each `to_array` written out: `array::map` would compile it without AVX2, as a call.)
    let lanes = [vel[0].to_array(), vel[1].to_array(), f[0].to_array(), f[1].to_array()];
    let (rest, theta) = (rest.to_array(), theta.to_array());
    for (l, s) in out.iter_mut().enumerate() {
        if skip >> l & 1 == 0 {
            s.vel = [lanes[0][l], lanes[1][l]];
            s.force = [lanes[2][l], lanes[3][l]];
            s.seg_rest = rest[l];
            s.theta_p = theta[l];
        }
    }
}

/// Field f of the group's nodes X (at `at[0]`) and, shifted by one lane, of X−1 and X+1: the
/// node before the group (`at[1]`) in lane 0 of X−1, the node after it (`at[2]`) in the last
/// real lane of X+1 (`end_lane` when the group is short). A function, not a closure: a closure
/// is compiled on its own, without the AVX2 of the pass that calls it.
#[inline(always)]
fn neighbours<L: Lanes>(cols: &ShellColumns, at: [usize; 3], end_lane: Option<L::Mask>, f: usize) -> (L, L, L) {
    let v: L = cols.load(at[0], f);
    let a = cols.get(at[2], f);
    let next = v.shift_in_last(a);
    let next = end_lane.map_or(next, |m| L::select(m, L::splat(a), next));
    (v.shift_in_first(cols.get(at[1], f)), v, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::core_area::core_area;
    use crate::cpu::shell_columns::put;
    use crate::cpu::shell_forces::shell_forces;
    use crate::cpu::shell_lanes::{lane_bodies, tests::scene_and_states};
    use crate::cpu::CHUNK;
    use crate::scenes::SplitMix;

    /// The bodies of the shell-pass test, one of them with a heavier node and one with an
    /// imposed velocity (both scalar), and a moving wall (`wall_node`, one node with a free x
    /// component); damping and gravity on; random v_{n+½}. About one node in
    /// eight has a contact term (a gather mark, half of them with a cap-contact slot whose force
    /// only the scalar twin adds) and one in twenty a cohesive link, so groups of every mix occur.
    #[test]
    fn lanes_equal_the_scalar_twin_bit_for_bit() {
        let mut rng = SplitMix(5);
        let mut kinds = [0usize; 3]; // groups all lanes, mixed, all scalar
        let mut walls = [0usize; 2]; // wall nodes through the twin, written directly
        for _ in 0..20 {
            let (mut sc, old, pos) = scene_and_states(&mut rng);
            let (b1, b2) = (sc.bodies[1], sc.bodies[2]);
            sc.nodes[b1.first as usize + 4].mass = 2.0;
            sc.nodes[b2.first as usize + 7].bc_mode = BC_VX;
            sc.nodes[b2.first as usize + 7].bc_velocity = [0.25, 0.0];
            // The wall (frozen line) moves, and one of its nodes has a free x component.
            let wall = *sc.bodies.last().expect("the frozen line");
            for k in wall.first..wall.first + wall.count {
                sc.nodes[k as usize].bc_velocity = [0.5, -0.25];
            }
            sc.nodes[wall.first as usize + 3].bc_mode = BC_VY;
            sc.gravity = [0.1, -9.8];
            sc.viscous_damping = 0.3;
            sc.local_damping = 0.2;
            let p = sc.sim_params();
            let n = sc.nodes.len();
            let (nodes, bcs) = device_nodes(&sc.nodes);
            let lane_ok = lane_bodies(&nodes, &sc.bodies);
            let masses = lane_mass(&nodes, &sc.bodies, &lane_ok);
            let scalar_bodies: Vec<usize> = (0..masses.len()).filter(|&b| masses[b].is_none()).collect();
            assert_eq!(
                scalar_bodies,
                vec![1, 2, sc.bodies.len() - 1],
                "heavier node, bc, frozen"
            );
            let body_state: Vec<BodyState> = (0..sc.bodies.len())
                .map(|b| core_area(b, &sc.bodies, &sc.materials, &pos))
                .collect();
            let records: Vec<ShellForce> = (0..n)
                .map(|x| shell_forces(x, &nodes, &sc.bodies, &sc.materials, &body_state, &old, &pos))
                .collect();
            let mut cols = ShellColumns::new(n);
            {
                use rayon::prelude::*;
                cols.par_chunks_mut().enumerate().for_each(|(k, c)| {
                    for (j, r) in records[k * CHUNK..].iter().take(CHUNK).enumerate() {
                        put(c, j, r);
                    }
                });
            }
            // Contacts: gather marks; marked even nodes own a cap-contact slot against the next
            // node (odd, so never slot-marked: no mirror search).
            let words = n.div_ceil(32);
            let mut marks = vec![0u32; 2 * words];
            let (mut start, mut entries, mut slot_index, mut pool) = (vec![0u32], vec![], vec![], vec![]);
            for x in 0..n {
                // (A run of 16 marked nodes makes whole groups scalar.)
                if rng.next_f64() < 0.125 || (200..216).contains(&x) {
                    marks[words + x / 32] |= 1 << (x % 32);
                    if x % 2 == 0 && x + 1 < n {
                        marks[x / 32] |= 1 << (x % 32);
                        entries.push(Entry { neighbor: x as u32 + 1 });
                        slot_index.push(pool.len() as u32);
                        pool.push(ContactSlot {
                            cap_force: [rng.next_f64() as f32, -(rng.next_f64() as f32)],
                            flags: SLOT_CAP,
                            ..Default::default()
                        });
                    }
                }
                start.push(entries.len() as u32);
            }
            // Cohesive links: one side of a link on a few nodes.
            let (mut link_start, mut link_list, mut link_force) = (vec![0u32], vec![], vec![]);
            for _ in 0..n {
                if rng.next_f64() < 0.05 {
                    link_list.push((link_force.len() * 2) as u32);
                    link_force.push([rng.next_f64() as f32, rng.next_f64() as f32]);
                }
                link_start.push(link_list.len() as u32);
            }
            // Forces from modal bodies (the coupled stepper): none, or on one node in ten, a
            // few of them ±0 (no term) and one NaN.
            let modal_forces: Vec<[f32; 2]> = (0..n)
                .map(|x| match x % 10 {
                    _ if x == 41 => [f32::NAN, 0.0],
                    3 => [rng.next_f64() as f32, -(rng.next_f64() as f32)],
                    7 => [-0.0, 0.0],
                    _ => [0.0, 0.0],
                })
                .collect();
            for modal in [None, Some(modal_forces.as_slice())] {
                let inputs = NodeInputs {
                    p: &p,
                    nodes: &nodes,
                    bcs: &bcs,
                    bodies: &sc.bodies,
                    cols: &cols,
                    lane_mass: &masses,
                    start: &start,
                    entries: &entries,
                    slot_index: &slot_index,
                    pool: &pool,
                    slot_marks: &marks,
                    link_start: &link_start,
                    link_list: &link_list,
                    link_force: &link_force,
                    modal,
                    rest_skip: &[],
                };
                let want: Vec<NodeState> = (0..n)
                    .map(|x| {
                        let u = node_forces(
                            x,
                            &p,
                            &nodes,
                            &bcs,
                            &sc.bodies,
                            records.as_slice(),
                            pos[x].vel,
                            &start,
                            &entries,
                            &slot_index,
                            &pool,
                            &marks,
                            &link_start,
                            &link_list,
                            &link_force,
                            modal.map(|m| m[x]),
                        );
                        NodeState {
                            vel: u.vel,
                            force: u.force,
                            seg_rest: records[x].seg_rest,
                            theta_p: records[x].theta_p,
                            ..pos[x]
                        }
                    })
                    .collect();
                // Wall nodes written directly (`wall_node`) and through the scalar twin.
                for x in wall.first as usize..(wall.first + wall.count) as usize {
                    let direct = !gathers(&marks, x as u32)
                        && link_start[x] == link_start[x + 1]
                        && sc.nodes[x].bc_mode == BC_VX | BC_VY
                        && modal.is_none_or(|m| !modal_acts(m[x]));
                    walls[direct as usize] += 1;
                }
                for x in (0..n).step_by(LANES) {
                    let special = (x..(x + LANES).min(n))
                        .filter(|&i| {
                            gathers(&marks, i as u32)
                                || link_start[i] != link_start[i + 1]
                                || modal.is_some_and(|m| modal_acts(m[i]))
                        })
                        .count();
                    kinds[if special == 0 {
                        0
                    } else if special < LANES {
                        1
                    } else {
                        2
                    }] += 1;
                }
                for (c0, c1) in [(0, n), (5, 40), (37, 38), (100, n - 3)] {
                    let mut got = pos[c0..c1].to_vec();
                    node_forces_run(c0, &inputs, &mut got);
                    let mut base = pos[c0..c1].to_vec();
                    run::<F8>(c0, &inputs, &mut base);
                    for i in 0..c1 - c0 {
                        let w = bytemuck::bytes_of(&want[c0 + i]);
                        assert_eq!(
                            bytemuck::bytes_of(&got[i]),
                            w,
                            "node {}, modal {}",
                            c0 + i,
                            modal.is_some()
                        );
                        assert_eq!(
                            bytemuck::bytes_of(&base[i]),
                            w,
                            "node {}, modal {}",
                            c0 + i,
                            modal.is_some()
                        );
                    }
                }
            }
        }
        assert!(
            kinds.iter().all(|&k| k > 0),
            "groups all lanes / mixed / all scalar: {kinds:?}"
        );
        assert!(walls.iter().all(|&k| k > 0), "wall nodes twin / direct: {walls:?}");
    }
}
