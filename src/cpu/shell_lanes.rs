//! The CPU stepper's shell pass: `shell_forces` (the scalar twin of `shaders/shell_forces.wgsl`)
//! evaluated on eight consecutive nodes at a time.
//!
//! The laws (`stretch`, `core_pressure`, `bending`, `atan2_det`) are written once, generic over
//! `Real`; here they run on `F8` lanes, lane l being node x + l. Each lane gives the scalar twin's
//! bits (see `model::lanes`; test `lanes_equal_the_scalar_twin_bit_for_bit`), so the stepper's
//! results do not depend on which path ran, nor on the CPU.
//!
//! Why a separate pass and not `shell_forces` in a loop: the scalar twin reads nodes X−1, X and
//! X+1 from the array-of-structures node state and branches on the body's kind. Here a block of
//! up to `BLOCK` nodes of one body is first copied into structure-of-arrays form with one node
//! on each side (X−1 of the first, X+1 of the last, wrapped for a closed shell), so the lanes
//! of X−1, X and X+1 are three shifted loads of the same array; the material and core pressure
//! are the body's, the same in every lane. Bodies whose nodes do not follow `Scene::add_body`'s
//! ring layout take the scalar twin; frozen bodies (walls) write `shell_forces`' early-out record
//! row by row (`put_wall`), so a finely cut wall costs a copy per node.
//!
//! Dispatch (the same in the three lane passes): on x86-64 with AVX2, detected at run time, the
//! pass runs on `F8Avx` (eight lanes in one AVX register) inside a function compiled with AVX2
//! enabled; elsewhere on `F8` (two SSE registers, or a portable array). Both give the scalar
//! twin's bits. FMA is never enabled: it would change the rounding.

use super::bending::bending;
use super::core_pressure::core_pressure;
use super::resting_walls::bit;
use super::shell_columns::{put, put_lanes, put_wall};
use super::shell_forces::shell_forces;
use super::stretch::stretch;
use crate::model::lanes::{Lanes, Point, ShellMaterial, F8, LANES};
use crate::model::*;

/// Nodes staged at a time (the stage lives on the stack: 6 × 74 floats).
const BLOCK: usize = 64;

/// Per body: may the lanes take it? Its nodes must follow the ring layout of `Scene::add_body`
/// (node k's prev is k − 1 and its next k + 1 inside the body; the ends wrap for a closed body
/// and have none for an open one) and it must not be frozen.
pub fn lane_bodies(nodes: &[NodeRecord], bodies: &[Body]) -> Vec<bool> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (first, count) = (b.first, b.count);
            let closed = b.flags & BODY_CLOSED != 0;
            b.flags & BODY_FROZEN == 0
                && count >= 2
                && (0..count).all(|k| {
                    let n = nodes[(first + k) as usize];
                    n.body == i as u32 && (n.prev, n.next) == ring_neighbours(first, count, k, closed)
                })
        })
        .collect()
}

/// What the shell pass reads.
#[derive(Clone, Copy)]
pub struct ShellInputs<'a> {
    pub nodes: &'a [NodeRecord],
    pub bodies: &'a [Body],
    pub materials: &'a [Material],
    pub body_state: &'a [BodyState],
    /// `lane_bodies`.
    pub lane_ok: &'a [bool],
    /// Step n (plastic state), step n + 1 (positions, v_{n+½}).
    pub old: &'a [NodeState],
    pub pos: &'a [NodeState],
    /// `RestingWalls::skip` (one bit per node; empty: none): wall nodes whose columns hold what
    /// shell_forces writes.
    pub skip: &'a [u32],
}

/// `shell_forces` of nodes c0 … c1 − 1, written into `cols`, the slice of `ShellColumns` whose
/// node 0 is c0.
pub fn shell_forces_run(c0: usize, c1: usize, inp: &ShellInputs, cols: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
        // `#[target_feature(enable = "avx2")]` function.
        unsafe { run_avx2(c0, c1, inp, cols) };
        return;
    }
    run::<F8>(c0, c1, inp, cols);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2(c0: usize, c1: usize, inp: &ShellInputs, cols: &mut [f32]) {
    run::<crate::model::lanes::F8Avx>(c0, c1, inp, cols);
}

#[inline(always)]
fn run<L: Lanes>(c0: usize, end: usize, inp: &ShellInputs, cols: &mut [f32]) {
    let mut stage = Stage::new();
    let mut x = c0;
    // Nodes in increasing order: a group's lanes past its body write the columns of the nodes
    // after it, which their own group or record overwrites later.
    while x < end {
        let b = inp.nodes[x].body as usize;
        let body = inp.bodies[b];
        let run_end = end.min((body.first + body.count) as usize);
        if body.flags & BODY_FROZEN != 0 {
            // A wall: shell_forces gives no force and keeps the plastic state (its early out).
            // Nodes at rest keep the columns their last write left (`RestingWalls`), except the
            // first LANES − 1 of a body starting inside the chunk: the last group of the body
            // before may have written over them (see above).
            let guard = if x > c0 { (x + LANES - 1).min(run_end) } else { x };
            let resting = |i: usize| i >= guard && bit(inp.skip, i);
            let mut a = x;
            while a < run_end {
                if resting(a) {
                    let whole_word = a & 31 == 0 && a + 32 <= run_end && inp.skip[a >> 5] == u32::MAX;
                    a += if whole_word { 32 } else { 1 };
                    continue;
                }
                let mut b = a + 1;
                while b < run_end && !resting(b) {
                    b += 1;
                }
                put_wall(cols, a - c0, &inp.old[a..b]);
                a = b;
            }
            x = run_end;
            continue;
        }
        if !inp.lane_ok[b] {
            for i in x..run_end {
                let r = shell_forces(
                    i,
                    inp.nodes,
                    inp.bodies,
                    inp.materials,
                    inp.body_state,
                    inp.old,
                    inp.pos,
                );
                put(cols, i - c0, &r);
            }
            x = run_end;
            continue;
        }
        let material = &inp.materials[body.material as usize];
        while x < run_end {
            let len = BLOCK.min(run_end - x);
            let at = x - c0;
            block::<L>(
                x,
                len,
                &body,
                material,
                &inp.body_state[b],
                inp.old,
                inp.pos,
                cols,
                at,
                &mut stage,
            );
            x += len;
        }
    }
}

/// A block's nodes as structure of arrays: position (x_hi, y_hi, x_lo, y_lo) and v_{n+½} of
/// nodes x0 − 1 … (`fields`), the plastic state ℓ_p, θ_p of nodes x0 … (`rest`, `theta_p`).
/// One per run of the pass: zeroing it per block cost more than a 32-node body's staging. What a
/// block's groups read it wrote first: `fields` up to `padded + 1`, the others up to `padded`.
struct Stage {
    fields: [[f32; BLOCK + 2 + LANES]; 6],
    rest: [f32; BLOCK + LANES],
    theta_p: [f32; BLOCK + LANES],
}

impl Stage {
    fn new() -> Self {
        Stage {
            fields: [[0.0; BLOCK + 2 + LANES]; 6],
            rest: [0.0; BLOCK + LANES],
            theta_p: [0.0; BLOCK + LANES],
        }
    }
}

/// Stage entry i of `fields` from one node's state.
#[inline(always)]
fn stage_node(fields: &mut [[f32; BLOCK + 2 + LANES]; 6], i: usize, s: &NodeState) {
    let v = [s.pos_hi[0], s.pos_hi[1], s.pos_lo[0], s.pos_lo[1], s.vel[0], s.vel[1]];
    for (f, col) in fields.iter_mut().enumerate() {
        col[i] = v[f];
    }
}

/// Nodes x0 … x0 + len − 1 of one lane body; their columns start at `j0` in `cols`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn block<L: Lanes>(
    x0: usize,
    len: usize,
    body: &Body,
    material: &Material,
    bs: &BodyState,
    old: &[NodeState],
    pos: &[NodeState],
    cols: &mut [f32],
    j0: usize,
    st: &mut Stage,
) {
    let first = body.first as usize;
    let last = first + body.count as usize - 1;
    let closed = body.flags & BODY_CLOSED != 0;
    // Stage entry i is node x0 − 1 + i; entries 0 and len + 1 are the neighbours outside the
    // block (wrapped on a closed shell; on an open line a stand-in whose lanes are masked);
    // entries past len + 1 pad the last group.
    let before = if x0 > first {
        x0 - 1
    } else if closed {
        last
    } else {
        x0
    };
    let after = if x0 + len - 1 < last {
        x0 + len
    } else if closed {
        first
    } else {
        x0 + len - 1
    };
    let Stage {
        fields: stage,
        rest,
        theta_p,
    } = st;
    stage_node(stage, 0, &pos[before]);
    // Whole groups of eight consecutive nodes as rows, transposed (`Lanes::transpose4`).
    let whole = len - len % LANES;
    for g in (0..whole).step_by(LANES) {
        let nodes = &pos[x0 + g..x0 + g + LANES];
        let p = L::transpose4(std::array::from_fn(|l| nodes[l].pos_row()));
        let v = L::transpose4(std::array::from_fn(|l| nodes[l].vel_force_row()));
        for (f, lanes) in [p[0], p[1], p[2], p[3], v[0], v[1]].into_iter().enumerate() {
            lanes.store(&mut stage[f][g + 1..]);
        }
        let plastic = L::transpose4(std::array::from_fn(|l| old[x0 + g + l].plastic_row()));
        plastic[2].store(&mut rest[g..]);
        plastic[3].store(&mut theta_p[g..]);
    }
    for i in whole..len {
        stage_node(stage, i + 1, &pos[x0 + i]);
    }
    let padded = len.next_multiple_of(LANES);
    for i in len + 1..padded + 2 {
        stage_node(stage, i, &pos[after]);
    }
    for i in whole..padded {
        let o = &old[x0 + i.min(len - 1)];
        rest[i] = o.seg_rest;
        theta_p[i] = o.theta_p;
    }
    let m = ShellMaterial::<L>::splat(&ShellMaterial::from(material));
    let core = closed && body.core_model != CORE_NONE;
    let orientation = if bs.area >= 0.0 { 1.0 } else { -1.0 };
    let point = |i: usize| Point {
        hi: [L::load(&stage[0][i..]), L::load(&stage[1][i..])],
        lo: [L::load(&stage[2][i..]), L::load(&stage[3][i..])],
        vel: [L::load(&stage[4][i..]), L::load(&stage[5][i..])],
    };
    let zero = L::splat(0.0);
    for g in (0..len).step_by(LANES) {
        let (pa, px, pb) = (point(g), point(g + 1), point(g + 2));
        let seg_rest = L::load(&rest[g..]);
        let th_p = L::load(&theta_p[g..]);
        // The scalar twin's branches as lane masks, on an open line only (a closed shell takes
        // every branch): its last node owns no segment and its first no vertex.
        let masks = (!closed).then(|| {
            let x = |l: usize| x0 + g + l;
            (
                L::mask(std::array::from_fn(|l| x(l) < last)),
                L::mask(std::array::from_fn(|l| x(l) < last && x(l) > first)),
            )
        });
        let live = |v: L, default: L| masks.map_or(v, |(live, _)| L::select(live, v, default));
        let bend = |v: L, default: L| masks.map_or(v, |(_, bend)| L::select(bend, v, default));
        let s = stretch(&m, &px, &pb, seg_rest);
        let pressure = if core {
            core_pressure(m.depth, L::splat(bs.pressure), L::splat(orientation), &px, &pb)
        } else {
            [zero, zero]
        };
        let bd = bending(&m, &pa, &px, &pb, th_p);
        let couple = |g: [L; 2]| [bd.moment * g[0], bd.moment * g[1]];
        let (bend_a, bend_c) = (couple(bd.grad_a), couple(bd.grad_c));
        let fields = [
            live(s.force_on_b[0], zero),
            live(s.force_on_b[1], zero),
            live(pressure[0], zero),
            live(pressure[1], zero),
            bend(bend_a[0], zero),
            bend(bend_a[1], zero),
            bend(bend_c[0], zero),
            bend(bend_c[1], zero),
            live(s.rest, seg_rest),
            bend(bd.theta_p, th_p),
        ];
        for (f, v) in fields.iter().enumerate() {
            put_lanes(cols, f, j0 + g, *v);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cpu::core_area::core_area;
    use crate::cpu::shell_columns::FIELDS;
    use crate::scenes::SplitMix;

    /// Bodies of every kind the pass meets, 1,000 R from the origin: closed cells with each core
    /// model and without one, open lines, a frozen line; sizes that are not a multiple of 8 and
    /// one longer than `BLOCK`. Random displacements, velocities and plastic states, a quarter of
    /// the segments and vertices past yield.
    pub(crate) fn scene_and_states(rng: &mut SplitMix) -> (Scene, Vec<NodeState>, Vec<NodeState>) {
        let mut sc = Scene::default();
        let soft = sc.add_material(Material {
            k_s: 100.0,
            f_s_yield: 0.8,
            c_s: 0.3,
            k_b: 2.0,
            m_b_yield: 0.05,
            c_b: 0.01,
            k_core: 50.0,
            depth: 1.0,
        });
        let elastic = sc.add_material(Material {
            k_s: 80.0,
            f_s_yield: f32::INFINITY,
            c_s: 0.0,
            k_b: 1.0,
            m_b_yield: f32::INFINITY,
            c_b: 0.0,
            k_core: 10.0,
            depth: 0.5,
        });
        let opts = |material, core, frozen| BodyOptions {
            material,
            radius: 0.05,
            node_mass: 1.0,
            frozen,
            self_contact: false,
            core,
        };
        let origin = [1000.0, -700.0];
        let cores = [
            Core::Undrained { p0: 0.1 },
            Core::Drained { p0: 0.2 },
            Core::Gas { p0: 0.3 },
            Core::None,
        ];
        for (k, n) in [32usize, 13, 70, 8, 3, 41, 64, 9].into_iter().enumerate() {
            let c = [origin[0] + 3.0 * k as f64, origin[1]];
            sc.add_ring(c, 1.0, n, opts(k as u32 % 2, cores[k % 4], false));
        }
        for (k, n) in [2usize, 17, 66].into_iter().enumerate() {
            let y = origin[1] - 5.0 - k as f64;
            sc.add_line([origin[0], y], [origin[0] + 10.0, y], n, opts(soft, Core::None, false));
        }
        let y = origin[1] + 5.0;
        sc.add_line(
            [origin[0], y],
            [origin[0] + 10.0, y],
            12,
            opts(elastic, Core::None, true),
        );
        let mut jitter = |s: f64| ((rng.next_f64() - 0.5) * s) as f32;
        let mut pos = sc.init.clone();
        for p in pos.iter_mut() {
            p.pos_lo = [jitter(2e-5), jitter(2e-5)];
            p.pos_hi = [p.pos_hi[0] + jitter(0.05), p.pos_hi[1] + jitter(0.05)];
            p.vel = [jitter(1.0), jitter(1.0)];
        }
        let mut old = sc.init.clone();
        for o in old.iter_mut() {
            o.seg_rest *= 1.0 + jitter(0.05);
            o.theta_p += jitter(0.1);
        }
        (sc, old, pos)
    }

    /// A scene of `scene_and_states` with the tables the shell pass reads, and the scalar twin's
    /// record of every node.
    struct Case {
        sc: Scene,
        old: Vec<NodeState>,
        pos: Vec<NodeState>,
        nodes: Vec<NodeRecord>,
        lane_ok: Vec<bool>,
        body_state: Vec<BodyState>,
        want: Vec<ShellForce>,
    }

    impl Case {
        fn new(rng: &mut SplitMix) -> Case {
            let (sc, old, pos) = scene_and_states(rng);
            let (nodes, _) = device_nodes(&sc.nodes);
            let lane_ok = lane_bodies(&nodes, &sc.bodies);
            let body_state: Vec<BodyState> = (0..sc.bodies.len())
                .map(|b| core_area(b, &sc.bodies, &sc.materials, &pos))
                .collect();
            let want = (0..nodes.len())
                .map(|x| shell_forces(x, &nodes, &sc.bodies, &sc.materials, &body_state, &old, &pos))
                .collect();
            Case {
                sc,
                old,
                pos,
                nodes,
                lane_ok,
                body_state,
                want,
            }
        }

        fn inputs<'a>(&'a self, skip: &'a [u32]) -> ShellInputs<'a> {
            ShellInputs {
                nodes: &self.nodes,
                bodies: &self.sc.bodies,
                materials: &self.sc.materials,
                body_state: &self.body_state,
                lane_ok: &self.lane_ok,
                old: &self.old,
                pos: &self.pos,
                skip,
            }
        }
    }

    #[test]
    fn lanes_equal_the_scalar_twin_bit_for_bit() {
        let mut rng = SplitMix(7);
        let mut yielded = [0usize; 2];
        for _ in 0..20 {
            let case = Case::new(&mut rng);
            let (nodes, old, lane_ok, want) = (&case.nodes, &case.old, &case.lane_ok, &case.want);
            assert_eq!(
                lane_ok.iter().filter(|&&ok| !ok).count(),
                1,
                "only the frozen line is scalar"
            );
            for (x, w) in want.iter().enumerate() {
                yielded[0] += (w.seg_rest != old[x].seg_rest) as usize;
                yielded[1] += (w.theta_p != old[x].theta_p) as usize;
            }
            // Runs that start and end anywhere (the stepper's chunks cut bodies), on both the
            // dispatched path and the baseline one.
            for (c0, c1) in [(0, nodes.len()), (5, 40), (37, 38), (100, nodes.len() - 3)] {
                let inputs = case.inputs(&[]);
                let len = c1 - c0;
                let row = len + LANES;
                let mut got_cols = vec![0.0; FIELDS * row];
                shell_forces_run(c0, c1, &inputs, &mut got_cols);
                let mut base_cols = vec![0.0; FIELDS * row];
                run::<F8>(c0, c1, &inputs, &mut base_cols);
                for i in 0..len {
                    let w = &want[c0 + i];
                    // The columns hold the scalar twin's record, bit for bit.
                    let mut col = vec![0.0; FIELDS * (1 + LANES)];
                    put(&mut col, 0, w);
                    for f in 0..FIELDS {
                        let want = col[f * (1 + LANES)].to_bits();
                        assert_eq!(got_cols[f * row + i].to_bits(), want, "node {} field {f}", c0 + i);
                        assert_eq!(base_cols[f * row + i].to_bits(), want, "node {} field {f}", c0 + i);
                    }
                }
            }
        }
        // The return mappings were exercised, on some nodes and not all.
        let n = 20 * 337;
        assert!(
            yielded.iter().all(|&y| y > n / 20 && y < n * 19 / 20),
            "yielded {yielded:?}"
        );
    }

    /// Wall nodes at rest (`skip`): a second pass over columns the first one filled writes the
    /// first LANES − 1 nodes of the frozen line again, which the last group of the line before
    /// it (66 nodes: two real lanes, six past its end) has written over, and leaves the others;
    /// every column then holds the scalar twin's record.
    #[test]
    fn skipped_wall_nodes_keep_their_columns() {
        let case = Case::new(&mut SplitMix(11));
        let (sc, n) = (&case.sc, case.nodes.len());
        let wall = sc.bodies[sc.bodies.len() - 1];
        let before = sc.bodies[sc.bodies.len() - 2];
        assert_eq!(
            (before.count % LANES as u32, wall.first),
            (2, n as u32 - 12),
            "the layout the test needs"
        );
        let mut skip = vec![0u32; n.div_ceil(32)];
        for x in wall.first..wall.first + wall.count {
            skip[x as usize >> 5] |= 1 << (x & 31);
        }
        let row = n + LANES;
        let mut cols = vec![0.0; FIELDS * row];
        shell_forces_run(0, n, &case.inputs(&[]), &mut cols);
        let first = cols.clone();
        shell_forces_run(0, n, &case.inputs(&skip), &mut cols);
        for (x, w) in case.want.iter().enumerate() {
            let mut col = vec![0.0; FIELDS * (1 + LANES)];
            put(&mut col, 0, w);
            for f in 0..FIELDS {
                assert_eq!(
                    cols[f * row + x].to_bits(),
                    col[f * (1 + LANES)].to_bits(),
                    "node {x} field {f}"
                );
            }
        }
        assert_eq!(first, cols);
    }
}
