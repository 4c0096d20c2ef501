//! The CPU stepper's integrate pass: `integrate` (the scalar twin of `shaders/integrate.wgsl`)
//! on eight consecutive nodes at a time (`F8`, or `F8Avx` where the CPU has AVX2).
//!
//! Integrate is a handful of operations per node, but two of them are a division (½ dt / m) and
//! a square root (the displacement since the last build), which one at a time cost about as much
//! as the rest of the pass; on lanes they cost an eighth. Each lane does `integrate`'s operations
//! in its order with the same rounding (no FMA), so the lanes give the scalar bits; an imposed
//! velocity component replaces the lane's half-kick result as it replaces the twin's (a select
//! moves bits), so the nodes of walls (frozen bodies, both components imposed) run on lanes as
//! well and a wall cut into many segments costs a lane pass per node, not a scalar call. The
//! nodes after the last full group take the scalar twin (test
//! `lanes_equal_the_scalar_twin_bit_for_bit`). The largest displacement is the maximum of the
//! same values, taken by `f32::max` as in the scalar loop (order does not matter to a maximum,
//! and `f32::max` drops a NaN whichever side it is on).

use super::integrate::{drift, half_kick, integrate};
use super::resting_walls::{bit, eight_set};
use crate::model::lanes::{Lanes, F8, LANES};
use crate::model::*;

/// What the pass reads besides the node states (the other arguments of `integrate`).
#[derive(Clone, Copy)]
pub struct IntegrateInputs<'a> {
    pub p: &'a SimParams,
    pub nodes: &'a [NodeRecord],
    pub bcs: &'a [NodeBc],
    pub x_ref: &'a [[f32; 2]],
    /// Nodes whose records already hold what integrate would write (`RestingWalls::skip`, one
    /// bit per node; empty: none): left as they are, their displacement the stepper's
    /// `RestingWalls::disp`.
    pub skip: &'a [u32],
}

impl<'a> IntegrateInputs<'a> {
    pub fn new(p: &'a SimParams, nodes: &'a [NodeRecord], bcs: &'a [NodeBc], x_ref: &'a [[f32; 2]]) -> Self {
        IntegrateInputs {
            p,
            nodes,
            bcs,
            x_ref,
            skip: &[],
        }
    }
}

/// `integrate` of nodes c0 … c0 + state_in.len() − 1 from their states `state_in` into
/// `state_out` (position and velocity only); returns the largest displacement since the last
/// build (0 for no nodes). The stepper runs it as the first pass of a step, or right after the
/// previous step's node pass on the states that pass just wrote (`CpuBackend::step_end`).
pub fn integrate_run(c0: usize, inp: &IntegrateInputs, state_in: &[NodeState], state_out: &mut [NodeState]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above), the only requirement of a
        // `#[target_feature(enable = "avx2")]` function.
        return unsafe { run_avx2(c0, inp, state_in, state_out) };
    }
    run::<F8>(c0, inp, state_in, state_out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_avx2(c0: usize, inp: &IntegrateInputs, state_in: &[NodeState], state_out: &mut [NodeState]) -> f32 {
    run::<crate::model::lanes::F8Avx>(c0, inp, state_in, state_out)
}

#[inline(always)]
fn run<L: Lanes>(c0: usize, inp: &IntegrateInputs, state_in: &[NodeState], state_out: &mut [NodeState]) -> f32 {
    let IntegrateInputs {
        p,
        nodes,
        bcs,
        x_ref,
        skip,
    } = *inp;
    let n = state_in.len().min(state_out.len());
    let full = n - n % LANES;
    // The largest displacement: per lane over the groups (`max` drops a NaN as `f32::max`
    // does), then across the lanes and the nodes of the twin.
    let mut lanes_max = L::splat(0.0);
    let mut d = 0.0f32;
    for j in (0..full).step_by(LANES) {
        if eight_set(skip, c0 + j) {
            continue;
        }
        let (s, out) = (&state_in[j..j + LANES], &mut state_out[j..j + LANES]);
        let group_nodes = &nodes[c0 + j..c0 + j + LANES];
        lanes_max = lanes_max.max(group::<L>(c0 + j, p, group_nodes, bcs, s, x_ref, out));
    }
    for dl in lanes_max.to_array() {
        d = d.max(dl);
    }
    for j in (full..n).filter(|&j| !bit(skip, c0 + j)) {
        d = d.max(integrate(c0 + j, p, nodes, bcs, &state_in[j], x_ref, &mut state_out[j]));
    }
    d
}

/// `integrate` of the eight nodes x0 … x0 + 7 (records `nodes`): writes their positions and
/// velocities into `out`; returns their displacements.
#[inline(always)]
fn group<L: Lanes>(
    x0: usize,
    p: &SimParams,
    nodes: &[NodeRecord],
    bcs: &[NodeBc],
    s: &[NodeState],
    x_ref: &[[f32; 2]],
    out: &mut [NodeState],
) -> L {
    // Records to lanes and back by rows of four fields (`Lanes::transpose4`); x_ref's eight
    // pairs lie in a row. (The closures below only pick fields: a lane operation in a closure
    // would be compiled without the AVX2 of the pass that calls it.)
    let [hi_x, hi_y, lo_x, lo_y] = L::transpose4(std::array::from_fn(|l| s[l].pos_row()));
    let [vel_x, vel_y, force_x, force_y] = L::transpose4(std::array::from_fn(|l| s[l].vel_force_row()));
    let nodes = &nodes[..LANES];
    let mass = L::from_array(std::array::from_fn(|l| nodes[l].mass));
    let with_bc = nodes.iter().any(|n| n.bc != NONE);
    // integrate's arithmetic (one copy for the twin and the lanes).
    let mut vh = half_kick(p.dt, mass, [vel_x, vel_y], [force_x, force_y]);
    if with_bc {
        // The imposed components replace the half-kick's, lane by lane (the twin's `if`).
        let c: [NodeBc; LANES] = std::array::from_fn(|l| match nodes[l].bc {
            NONE => NodeBc::default(),
            k => bcs[k as usize],
        });
        let imposed_x = L::mask(std::array::from_fn(|l| c[l].mode & BC_VX != 0));
        let imposed_y = L::mask(std::array::from_fn(|l| c[l].mode & BC_VY != 0));
        let v_x = L::from_array(std::array::from_fn(|l| c[l].velocity[0]));
        let v_y = L::from_array(std::array::from_fn(|l| c[l].velocity[1]));
        vh = [L::select(imposed_x, v_x, vh[0]), L::select(imposed_y, v_y, vh[1])];
    }
    let [ref_x, ref_y] = L::deinterleave2(bytemuck::cast_slice(&x_ref[x0..x0 + LANES]));
    let ([hx, hy], [lx, ly], disp) = drift(p.dt, [hi_x, hi_y], [lo_x, lo_y], vh, [ref_x, ref_y]);
    let out: &mut [NodeState; LANES] = out.try_into().expect("eight nodes");
    L::store_rows4([hx, hy, lx, ly], out.each_mut().map(NodeState::pos_row_mut));
    L::store_rows2(vh, out.each_mut().map(|s| &mut s.vel));
    disp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::SplitMix;

    /// 203 nodes (groups and a tail) of two masses, a third of them with a boundary condition
    /// (each kind of `mode`), random states far from and near the origin, a few NaN velocities,
    /// runs starting anywhere: every byte written and the displacement equal the scalar loop's.
    #[test]
    fn lanes_equal_the_scalar_twin_bit_for_bit() {
        let mut rng = SplitMix(17);
        let n = 203;
        let bcs = vec![
            NodeBc {
                mode: BC_VX,
                velocity: [0.25, -1.0],
                ..Default::default()
            },
            NodeBc {
                mode: BC_VY,
                velocity: [3.0, -0.125],
                ..Default::default()
            },
            NodeBc {
                mode: BC_VX | BC_VY,
                velocity: [-0.5, 0.75],
                ..Default::default()
            },
            NodeBc::default(),
        ];
        let nodes: Vec<NodeRecord> = (0..n)
            .map(|i| NodeRecord {
                mass: if i < 90 { 0.03125 } else { 0.7 },
                bc: if i % 3 == 1 { (i / 3 % 4) as u32 } else { NONE },
                ..Default::default()
            })
            .collect();
        let p = SimParams {
            dt: 1.0e-3,
            ..Default::default()
        };
        for round in 0..20 {
            let mut j = |s: f64| ((rng.next_f64() - 0.5) * s) as f32;
            let far = if round % 2 == 0 { 1234.5 } else { 0.5 };
            let state: Vec<NodeState> = (0..n)
                .map(|i| NodeState {
                    pos_hi: [far + j(10.0), -far + j(10.0)],
                    pos_lo: [j(1e-4), j(1e-4)],
                    vel: if i == 77 && round == 3 {
                        [f32::NAN, 0.0]
                    } else {
                        [j(2.0), j(2.0)]
                    },
                    force: [j(100.0), j(100.0)],
                    seg_rest: j(1.0),
                    theta_p: j(1.0),
                })
                .collect();
            let x_ref: Vec<[f32; 2]> = state
                .iter()
                .map(|s| [s.pos_hi[0] + j(0.01), s.pos_hi[1] + j(0.01)])
                .collect();
            for (a, b) in [(0, n), (5, n), (0, 8), (9, 20), (100, 203)] {
                let init: Vec<NodeState> = (a..b)
                    .map(|_| NodeState {
                        seg_rest: 9.0,
                        ..Default::default()
                    })
                    .collect();
                let (mut got, mut base, mut want) = (init.clone(), init.clone(), init.clone());
                let inp = IntegrateInputs::new(&p, &nodes, &bcs, &x_ref);
                let d_got = integrate_run(a, &inp, &state[a..b], &mut got);
                let d_base = run::<F8>(a, &inp, &state[a..b], &mut base);
                let mut d_want = 0.0f32;
                for i in a..b {
                    d_want = d_want.max(integrate(i, &p, &nodes, &bcs, &state[i], &x_ref, &mut want[i - a]));
                }
                let bytes = |v: &[NodeState]| bytemuck::cast_slice::<_, u8>(v).to_vec();
                assert_eq!(bytes(&got), bytes(&want), "round {round}, nodes {a}..{b}");
                assert_eq!(bytes(&base), bytes(&want), "round {round}, nodes {a}..{b}");
                assert_eq!(d_got.to_bits(), d_want.to_bits(), "round {round}, nodes {a}..{b}");
                assert_eq!(d_base.to_bits(), d_want.to_bits(), "round {round}, nodes {a}..{b}");
            }
        }
    }
}
