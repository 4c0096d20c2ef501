//! The fixed-order reduction of the bead planes' and the modal walls' forces
//! (shaders/fixed_reduce.wgsl, twin src/cpu/fixed_reduce.rs: 256 lanes, lane t takes items
//! t, t + 256, … in increasing order, then a binary tree):
//! - on the CPU, against the exact f64 sum of the same f32 terms on real scenes (a lattice sphere
//!   of 895 beads pressed by two eq-6 plates; the 3×3 modal packing between four walls). Bound:
//!   each result is a sum along a path of K + 8 f32 additions (K = ⌈n/256⌉ in a lane, 8 tree
//!   levels), so it errs by at most (K + 8)·2⁻²⁴·Σ|f_i| per component;
//! - on the GPU (lavapipe in CI; a missing adapter fails, `gpu_for_tests`): the kernels'
//!   results equal the CPU twin bit for bit when the twin is fed the device's own inputs (its
//!   bead positions, its contact slots) — the reduction is plain additions in a fixed order, so
//!   any IEEE device gives these bits; whole runs differ from the CPU's through sqrt/sin only.

use softdem::beads::forces::{plane_gather, BeadForces};
use softdem::beads::scenes::{compression_scene, paper_compression_spec, BeadRun, BeadScene};
use softdem::broad_phase::pool::SlotPool;
use softdem::gpu::context::gpu_for_tests;
use softdem::laws::plane_repulsion::plane_repulsion_force;
use softdem::modal::cpu::{modal_wall_force, CpuModal};
use softdem::modal::gpu::GpuModal;
use softdem::modal::layout::{ModalSlot, ModalState};
use softdem::modal::packed::Packed;
use softdem::modal::stepper::{ModalBackend, ModalRun};
use softdem::modal::validation::{compaction_case, COMPACTION_DURATION};
use softdem::spheres::precision::df3_sub;
use softdem::spheres::SphereState;

const LANES: usize = softdem::cpu::fixed_reduce::REDUCE_LANES;
const U: f64 = f32::EPSILON as f64 / 2.0;

/// The paper's compression (Table 1 beads, S = 1e10) of a lattice sphere R = √35 l (895 beads,
/// 37 under each plate), the plates closing at 1 m/s each.
fn bead_scene() -> BeadScene {
    let (scene, _) = compression_scene(&paper_compression_spec(6.0));
    scene
}

/// (exact f64 sum, Σ|term|, serial bead-order f32 sum of earlier builds) per component of minus
/// a plane's forces on the beads.
fn plane_exact(states: &[SphereState], f: &BeadForces, p: usize, dt: f32) -> [(f64, f64, f32); 3] {
    let (hi, lo, nrm, sc) = f.plane_records(f.time(dt))[p];
    let mut out = [(0.0, 0.0, 0.0f32); 3];
    for s in states {
        let d = df3_sub(s.pos_hi, s.pos_lo, hi, lo);
        let t = plane_repulsion_force(sc, s.radius, nrm, d).0;
        for c in 0..3 {
            out[c].0 -= t[c] as f64;
            out[c].1 += (t[c] as f64).abs();
            out[c].2 -= t[c];
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
    println!("{n} beads");
    assert!(n > 2 * LANES, "{n} beads: every lane gets more than one");
    let bound = (n.div_ceil(LANES) + 8) as f64 * U;
    let got = run.plane_force(None);
    for (p, g) in got.iter().enumerate() {
        let exact = plane_exact(&states[..n], run.host(), p, run.dt());
        for c in 0..3 {
            let (e, abs, serial) = exact[c];
            println!(
                "plane {p} force {c}: {:e} (f64 {e:e}, Σ|f| {abs:e}; serial f32 {serial:e})",
                g[c]
            );
            assert!(
                (g[c] as f64 - e).abs() <= bound * abs,
                "plane {p} force {c}: {} vs {e}",
                g[c]
            );
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

fn modal_scene() -> (Packed, Vec<ModalState>) {
    let c = compaction_case(3, COMPACTION_DURATION).unwrap();
    let packed = c.scene.pack().unwrap();
    let state = c.scene.bodies.iter().map(|b| b.initial_state()).collect();
    (packed, state)
}

/// The 3×3 packing between four closing walls on `backend`, sampled every `every` steps `count`
/// times: (slots, wall forces) of each sample.
type Sample = (SlotPool<ModalSlot>, Vec<[f32; 2]>);
fn modal_samples<B: ModalBackend>(backend: B, every: u64, count: usize) -> (Packed, Vec<Sample>) {
    let c = compaction_case(3, COMPACTION_DURATION).unwrap();
    let mut r = ModalRun::new(backend, c.scene.rebuild_every, c.scene.skin);
    let mut out = Vec::new();
    for _ in 0..count {
        r.run(every).unwrap();
        out.push((r.backend.pool().unwrap(), r.backend.wall_forces().unwrap()));
    }
    (r.backend.packed().clone(), out)
}

/// Active wall slots of wall w.
fn active(sc: &Packed, pool: &SlotPool<ModalSlot>, w: usize) -> usize {
    let n = sc.params.n_nodes as usize;
    (0..n)
        .filter(|&k| pool.slots[pool.start[k] as usize + w].active != 0)
        .count()
}

#[test]
fn modal_wall_force_is_within_f32_rounding_of_the_f64_sum() {
    let (packed, state) = modal_scene();
    let (sc, samples) = modal_samples(CpuModal::new(packed, state), 100, 30);
    let n = sc.params.n_nodes as usize;
    assert!(n > 2 * LANES, "{n} nodes");
    let bound = (n.div_ceil(LANES) + 8) as f64 * U;
    let (mut loaded, mut moved) = (0, 0);
    for (i, (pool, wf)) in samples.iter().enumerate() {
        let mut worst = 0.0f64;
        for (w, g) in wf.iter().enumerate() {
            for (c, &gc) in g.iter().enumerate() {
                let (mut e, mut abs, mut serial) = (0.0f64, 0.0f64, 0.0f32);
                for k in 0..n {
                    let o = &pool.slots[pool.start[k] as usize + w];
                    if o.active != 0 {
                        e -= o.force[c] as f64;
                        abs += (o.force[c] as f64).abs();
                        serial -= o.force[c];
                    }
                }
                // The serial node-order sum of earlier builds: the bits that moved (printed).
                if serial != gc {
                    moved += 1;
                }
                assert!(
                    (gc as f64 - e).abs() <= bound * abs,
                    "sample {i} wall {w} force {c}: {} vs {e}",
                    gc
                );
                if abs > 0.0 {
                    worst = worst.max((gc as f64 - e).abs() / abs);
                }
            }
        }
        let counts: Vec<usize> = (0..wf.len()).map(|w| active(&sc, pool, w)).collect();
        println!(
            "step {}: active wall slots {counts:?}, worst |err|/Σ|f| {worst:.2e} (bound {bound:.2e})",
            100 * (i + 1)
        );
        if counts.iter().all(|&a| a >= 3) {
            loaded += 1;
        }
    }
    println!("{moved} wall force components differ from the serial node-order f32 sum");
    assert!(loaded >= 5, "{loaded} samples with every wall loaded");
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
    let (sc, samples) = modal_samples(GpuModal::new(ctx, packed, state).unwrap(), 100, 6);
    let mut loaded = 0;
    for (i, (pool, wf)) in samples.iter().enumerate() {
        // The slots the sample's last wall reduction read (nothing writes them after it).
        for (w, g) in wf.iter().enumerate() {
            let twin = modal_wall_force(&sc, pool, w);
            assert_eq!(
                g.map(f32::to_bits),
                twin.map(f32::to_bits),
                "sample {i} wall {w}: {g:?} vs {twin:?}"
            );
        }
        let counts: Vec<usize> = (0..wf.len()).map(|w| active(&sc, pool, w)).collect();
        println!(
            "step {}: wall forces {wf:?}, active wall slots {counts:?}",
            100 * (i + 1)
        );
        if counts.iter().all(|&a| a >= 3) {
            loaded += 1;
        }
    }
    assert!(loaded >= 3, "{loaded} samples with every wall loaded");
}
