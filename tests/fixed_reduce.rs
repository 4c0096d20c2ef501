//! The fixed-order reduction of the bead planes' and the modal walls' forces
//! (shaders/fixed_reduce.wgsl, twin src/cpu/fixed_reduce.rs: 256 lanes, lane t takes items
//! t, t + 256, … in increasing order, then a binary tree):
//! - on the CPU, against the exact f64 sum of the same f32 terms on real scenes (a lattice sphere
//!   of 925 beads pressed by two eq-6 plates; the 3×3 modal packing between four walls). Bound:
//!   each result is a sum along a path of K + 8 f32 additions (K = ⌈n/256⌉ in a lane, 8 tree
//!   levels), so it errs by at most (K + 8)·2⁻²⁴·Σ|f_i| per component;
//! - on the GPU (lavapipe in CI; a missing adapter fails, `gpu_for_tests`): the kernels'
//!   results equal the CPU twin bit for bit when the twin is fed the device's own inputs (its
//!   bead positions, its contact slots) — the reduction is plain additions in a fixed order, so
//!   any IEEE device gives these bits; whole runs differ from the CPU's through sqrt/sin only.

use softdem::beads::forces::{plane_gather, BeadForces};
use softdem::beads::scenes::{compression_scene, paper_compression_spec, BeadRun, BeadScene};
use softdem::gpu::context::gpu_for_tests;
use softdem::laws::plane_repulsion::plane_repulsion_force;
use softdem::modal::cpu::{modal_wall_force, CpuModal};
use softdem::modal::gpu::GpuModal;
use softdem::modal::stepper::{ModalBackend, ModalRun};
use softdem::modal::validation::{compaction_case, COMPACTION_DURATION};
use softdem::spheres::precision::df3_sub;
use softdem::spheres::SphereState;

const LANES: usize = softdem::cpu::fixed_reduce::REDUCE_LANES;
const U: f64 = f32::EPSILON as f64 / 2.0;

/// The paper's compression (Table 1 beads, S = 1e10) of a lattice sphere R = √35 l (925 beads,
/// 37 under each plate), the plates closing at 1 m/s each.
fn bead_scene() -> BeadScene {
    let (scene, _) = compression_scene(&paper_compression_spec(6.0));
    scene
}

/// (exact f64 sum, Σ|term|) per component of minus a plane's forces on the beads.
fn plane_exact(states: &[SphereState], f: &BeadForces, p: usize, dt: f32) -> [(f64, f64); 3] {
    let (hi, lo, nrm, sc) = f.plane_records(f.time(dt))[p];
    let mut out = [(0.0, 0.0); 3];
    for s in states {
        let d = df3_sub(s.pos_hi, s.pos_lo, hi, lo);
        let t = plane_repulsion_force(sc, s.radius, nrm, d).0;
        for c in 0..3 {
            out[c].0 -= t[c] as f64;
            out[c].1 += (t[c] as f64).abs();
        }
    }
    out
}

#[test]
fn bead_plane_force_is_within_f32_rounding_of_the_f64_sum() {
    let mut run = BeadRun::cpu(bead_scene());
    run.steps(None, 300).unwrap();
    let states = run.states(None);
    let n = run.host().bonds.n_beads();
    assert!(n > 2 * LANES, "{n} beads: every lane gets more than one");
    let bound = (n.div_ceil(LANES) + 8) as f64 * U;
    let got = run.plane_force(None);
    for (p, g) in got.iter().enumerate() {
        let exact = plane_exact(&states[..n], run.host(), p, run.dt());
        for c in 0..3 {
            let (e, abs) = exact[c];
            println!("plane {p} force {c}: {:e} (f64 {e:e}, Σ|f| {abs:e})", g[c]);
            assert!((g[c] as f64 - e).abs() <= bound * abs, "plane {p} force {c}: {} vs {e}", g[c]);
        }
        // Pressed: more than one bead carries the plate (the sum is not a single term).
        let carrying = states[..n]
            .iter()
            .filter(|s| {
                let (hi, lo, nrm, sc) = run.host().plane_records(run.host().time(run.dt()))[p];
                plane_repulsion_force(sc, s.radius, nrm, df3_sub(s.pos_hi, s.pos_lo, hi, lo)).0[2] != 0.0
            })
            .count();
        println!("plane {p}: {carrying} beads in contact");
        assert!(carrying > 10 && g[2].abs() > 0.0, "plane {p}: {carrying} beads");
    }
}

/// The 3×3 packing between four walls after `steps` steps on `backend`: (packed scene, slots,
/// wall forces).
fn modal_after<B: ModalBackend>(backend: B, steps: u64) -> (ModalRun<B>, Vec<[f32; 2]>) {
    let c = compaction_case(3, COMPACTION_DURATION).unwrap();
    let mut r = ModalRun::new(backend, c.scene.rebuild_every, c.scene.skin);
    r.run(steps).unwrap();
    let wf = r.backend.wall_forces().unwrap();
    (r, wf)
}

fn modal_scene() -> (softdem::modal::packed::Packed, Vec<softdem::modal::layout::ModalState>) {
    let c = compaction_case(3, COMPACTION_DURATION).unwrap();
    let packed = c.scene.pack().unwrap();
    let state = c.scene.bodies.iter().map(|b| b.initial_state()).collect();
    (packed, state)
}

#[test]
fn modal_wall_force_is_within_f32_rounding_of_the_f64_sum() {
    let (packed, state) = modal_scene();
    let (mut r, wf) = modal_after(CpuModal::new(packed, state), 2000);
    let pool = r.backend.pool().unwrap();
    let sc = r.backend.packed().clone();
    let n = sc.params.n_nodes as usize;
    assert!(n > 2 * LANES, "{n} nodes");
    let bound = (n.div_ceil(LANES) + 8) as f64 * U;
    for (w, g) in wf.iter().enumerate() {
        let mut active = 0;
        for c in 0..2 {
            let (mut e, mut abs) = (0.0f64, 0.0f64);
            active = 0;
            for k in 0..n {
                let o = &pool.slots[pool.start[k] as usize + w];
                if o.active != 0 {
                    e -= o.force[c] as f64;
                    abs += (o.force[c] as f64).abs();
                    active += 1;
                }
            }
            println!("wall {w} force {c}: {:e} (f64 {e:e}, Σ|f| {abs:e})", g[c]);
            assert!((g[c] as f64 - e).abs() <= bound * abs, "wall {w} force {c}: {} vs {e}", g[c]);
        }
        println!("wall {w}: {active} nodes in contact");
        assert!(active >= 3 && g[0].hypot(g[1]) > 0.0, "wall {w}: {active} nodes");
    }
}

#[test]
fn gpu_bead_plane_force_is_its_cpu_twin_bit_for_bit() {
    let ctx = gpu_for_tests();
    let mut run = BeadRun::gpu(&ctx, bead_scene()).unwrap();
    run.steps(Some(&ctx), 300).unwrap();
    // The last evaluation's positions (the force pass follows the drift) and plane records.
    let states = run.states(Some(&ctx));
    let h = run.host();
    let n = h.bonds.n_beads();
    let planes = h.plane_records(h.time(run.dt()));
    let got = run.plane_force(Some(&ctx));
    for (p, g) in got.iter().enumerate() {
        let twin = plane_gather(&states[..n], &planes[p]);
        println!("plane {p}: GPU {g:?}, CPU twin {twin:?}");
        assert!(g[2] != 0.0, "plane {p} carries load");
        assert_eq!(g.map(f32::to_bits), twin.map(f32::to_bits), "plane {p}");
    }
}

#[test]
fn gpu_modal_wall_force_is_its_cpu_twin_bit_for_bit() {
    let (packed, state) = modal_scene();
    let ctx = gpu_for_tests();
    let (mut r, wf) = modal_after(GpuModal::new(ctx, packed, state).unwrap(), 2000);
    // The slots the last step's wall reduction read (nothing writes them after it).
    let pool = r.backend.pool().unwrap();
    let sc = r.backend.packed().clone();
    for (w, g) in wf.iter().enumerate() {
        let twin = modal_wall_force(&sc, &pool, w);
        println!("wall {w}: GPU {g:?}, CPU twin {twin:?}");
        assert!(g[0].hypot(g[1]) > 0.0, "wall {w} carries load");
        assert_eq!(g.map(f32::to_bits), twin.map(f32::to_bits), "wall {w}");
    }
}
