//! GPU twins of the membrane passes (`shaders/membrane_step.wgsl`) against the CPU reference
//! (`membrane::forces`), on lavapipe. Needs a wgpu adapter: `gpu_for_tests` panics without one.
//! One force evaluation from the same records, list, history and states: every sphere's membrane
//! force and torque within 2e-5 of the largest (a few f32 ulp: the driver may fuse products and
//! sqrt may differ by 1 ulp), the Table 1 selection (active flags) identical, the contact
//! histories within the same tolerance; two GPU runs bit-identical. And the membrane as a force
//! source of the GPU stepper against the CPU façade over 400 steps (below).

use softdem::gpu::context::{gpu_for_tests, GpuContext};
use softdem::membrane::cases::{confined_ring, drag_step, pocket_system, sliding_system};
use softdem::membrane::gpu::GpuMembraneForces;
use softdem::membrane::{MembraneContact, MembraneSpheres};
use softdem::spheres::SphereForce;

fn largest(v: &[SphereForce]) -> (f32, f32) {
    let m = |x: [f32; 3]| x.iter().fold(0.0f32, |a, b| a.max(b.abs()));
    v.iter()
        .fold((0.0f32, 0.0f32), |(a, b), f| (a.max(m(f.force)), b.max(m(f.torque))))
}

fn compare(ctx: &GpuContext, name: &str, sys: &MembraneSpheres, gpu: &GpuMembraneForces) {
    let mut m = sys.membrane.clone();
    let states = sys.spheres.states.clone();
    if m.needs_rebuild(&states) {
        m.rebuild(&states);
    }
    let before = m.clone();
    let mut cpu_ext = Vec::new();
    m.compute(&states, &mut cpu_ext);
    let got = gpu.run(ctx, &before, &states).unwrap();
    let again = gpu.run(ctx, &before, &states).unwrap();
    assert!(
        got.external == again.external && got.patch_history == again.patch_history,
        "{name}: two GPU runs differ"
    );
    let (fmax, tmax) = largest(&cpu_ext);
    let mut worst = (0.0f32, 0.0f32);
    for (c, g) in cpu_ext.iter().zip(&got.external) {
        for k in 0..3 {
            worst.0 = worst.0.max((c.force[k] - g.force[k]).abs());
            worst.1 = worst.1.max((c.torque[k] - g.torque[k]).abs());
        }
    }
    let active: Vec<u32> = m.patch_out.iter().map(|o| o.active).collect();
    let n_active = active.iter().filter(|&&a| a != 0).count();
    assert_eq!(
        active,
        got.patch_out.iter().map(|o| o.active).collect::<Vec<_>>(),
        "{name}: Table 1 selection differs"
    );
    let hmax = m
        .patch_history
        .iter()
        .flat_map(|h| h.tangential)
        .fold(0.0f32, |a, b| a.max(b.abs()));
    let hgap = m
        .patch_history
        .iter()
        .zip(&got.patch_history)
        .flat_map(|(a, b)| (0..3).map(move |k| (a.tangential[k] - b.tangential[k]).abs()))
        .fold(0.0f32, f32::max);
    println!(
        "{name}: {} spheres, {} candidates, {n_active} active; force gap {:.2e} of {:.2e}, torque gap {:.2e} of {:.2e}, history gap {:.2e} of {:.2e}",
        states.len(),
        m.list.patch.len(),
        worst.0,
        fmax,
        worst.1,
        tmax,
        hgap,
        hmax
    );
    assert!(n_active > 0, "{name}: no patch contact to compare");
    assert!(
        worst.0 <= 2e-5 * fmax,
        "{name}: forces differ by {:.2e} of {:.2e}",
        worst.0,
        fmax
    );
    // Torques on the scale of the largest force times the largest radius: where every contact's
    // torque is zero on the CPU (a pocket of normal contacts), an NVIDIA H200 gave 1.2e-17 N m
    // (fused multiply-adds in the lever arm's cross product), which a tolerance relative to
    // the CPU's zero torque cannot hold.
    let r_max = states.iter().fold(0.0f32, |a, s| a.max(s.radius));
    let t_scale = tmax.max(fmax * r_max).max(1e-30);
    assert!(
        worst.1 <= 2e-5 * t_scale,
        "{name}: torques differ by {:.2e} of {t_scale:.2e}",
        worst.1
    );
    assert!(hgap <= 2e-5 * hmax.max(1e-30), "{name}: histories differ");
}

#[test]
fn gpu_membrane_passes_follow_the_cpu() {
    let ctx = gpu_for_tests();
    let gpu = GpuMembraneForces::new(&ctx).unwrap();
    // A grain sliding on a patch sheet (friction history live, hand-overs between patches).
    let mut slide = sliding_system(MembraneContact::Patches, 9.81, 1e-5);
    for _ in 0..300 {
        drag_step(&mut slide, 0.02);
    }
    compare(&ctx, "sliding", &slide, &gpu);
    // A confined cylinder with a ring of grains pressed into it, bending on, moving.
    let mut ring = confined_ring(0.012, 4e-3, 2e3, 3e-3, 0.2e-3, 10);
    for _ in 0..300 {
        ring.step();
    }
    compare(&ctx, "confined ring", &ring, &gpu);
    // The escape's pocket: of two edge contacts on patches sharing a vertex the deeper one is
    // selected, not the lower index (Table 1 with the overlap proviso, same on both).
    compare(&ctx, "pocket", &pocket_system(), &gpu);
}

/// The membrane as a `GpuExtraForces` source of the GPU sphere stepper (`GpuMembraneSpheres`):
/// a confined cylinder (R = 12 mm, s = 4 mm, rims pinned, σ = 2 kPa, bending on) with 10 grains
/// pressed into it, 400 steps of 1 µs with sphere-list rebuilds (the patch list is rebuilt on
/// the GPU after each). The GPU-built candidate list at the start equals the CPU's; after 400
/// steps every position is within 1e-8 m of the CPU's (1e-6 of the 12 mm radius; seen 1.9e-10 m:
/// the passes differ by f32 ulps, see above) and the selected (grain, patch) contacts are the same; two GPU
/// runs are bit-identical.
#[test]
fn gpu_stepper_runs_the_membrane_as_a_force_source() {
    use softdem::membrane::cases::confined_ring_parts;
    use softdem::membrane::gpu_system::GpuMembraneSpheres;
    use std::collections::BTreeSet;
    let ctx = gpu_for_tests();
    let c = confined_ring_parts(0.012, 4e-3, 2e3, 3e-3, 0.2e-3, 10);
    let mut cpu = MembraneSpheres::new(c.params, c.grains.clone(), &c.materials, Vec::new(), &c.spec);
    cpu.pin(&c.pinned, [0.0; 3]);
    let run = || {
        let mut g = GpuMembraneSpheres::new(&ctx, c.params, c.grains.clone(), &c.materials, &[], &c.spec).unwrap();
        g.pin(&ctx, &c.pinned, [0.0; 3]);
        g
    };
    let mut gpu = run();
    let mut gpu2 = run();
    let (list0, hist0) = gpu.source().list(&ctx);
    assert_eq!(
        list0, cpu.membrane.list,
        "GPU-built candidate list differs from the CPU's"
    );
    assert!(hist0.iter().all(|h| *h == Default::default()));
    let steps = 400;
    for _ in 0..steps {
        cpu.step();
        gpu.step(&ctx).unwrap();
        gpu2.step(&ctx).unwrap();
    }
    let (g, g2) = (gpu.spheres.states(&ctx), gpu2.spheres.states(&ctx));
    assert_eq!(g, g2, "two GPU runs differ");
    let gap = cpu
        .spheres
        .states
        .iter()
        .zip(&g)
        .map(|(a, b)| {
            let (p, q) = (a.position(), b.position());
            (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    let selected = |list: &softdem::membrane::patch_list::PatchList, active: &[u32]| -> BTreeSet<(usize, u32)> {
        let mut set = BTreeSet::new();
        for s in 0..list.start.len().saturating_sub(1) {
            let row = list.start[s] as usize..list.start[s + 1] as usize;
            for (p, a) in list.patch[row.clone()].iter().zip(&active[row]) {
                if *a != 0 {
                    set.insert((s, *p));
                }
            }
        }
        set
    };
    let cpu_sel = selected(
        &cpu.membrane.list,
        &cpu.membrane.patch_out.iter().map(|o| o.active).collect::<Vec<_>>(),
    );
    let (glist, _) = gpu.source().list(&ctx);
    let gout: Vec<u32> = gpu.source().patch_out(&ctx).iter().map(|o| o.active).collect();
    let gpu_sel = selected(&glist, &gout);
    println!(
        "{} spheres, sphere-list builds CPU {} GPU {}, patch-list builds CPU {} GPU {}, {} contacts selected; position gap {gap:.3e} m",
        g.len(),
        cpu.spheres.rebuilds,
        gpu.spheres.rebuilds,
        cpu.membrane.list_builds,
        gpu.source().list_builds,
        cpu_sel.len()
    );
    assert!(gpu.source().list_builds >= 2, "no rebuild on the GPU during the run");
    assert!(!cpu_sel.is_empty(), "no patch contact");
    assert_eq!(cpu_sel, gpu_sel, "selected contacts differ");
    assert!(gap < 1e-8, "positions differ by {gap:.3e} m");
}

/// Self-contact on the GPU stepper: the folded sheet of `tests/membrane_self_contact.rs` closing
/// at 600 rad/s (contact after ≈ 430 steps), 600 steps of 2 µs: the GPU-built list (vertex rows
/// included) equals the CPU's at the start, positions within 1e-8 m of the CPU's after the fold
/// met itself (seen: printed), the same contacts selected, no upper vertex below r_v/4.
#[test]
fn gpu_self_contact_follows_the_cpu() {
    use softdem::membrane::cases::folded_sheet;
    use softdem::membrane::gpu_system::GpuMembraneSpheres;
    let ctx = gpu_for_tests();
    let r_v = 0.5e-3;
    let f = folded_sheet(8, 9, 4, 2e-3, 30f64.to_radians(), 600.0, r_v, true);
    let c = &f.case;
    let mut cpu = MembraneSpheres::new(c.params, c.grains.clone(), &c.materials, Vec::new(), &c.spec);
    cpu.pin(&c.pinned, [0.0; 3]);
    let mut gpu = GpuMembraneSpheres::new(&ctx, c.params, c.grains.clone(), &c.materials, &[], &c.spec).unwrap();
    gpu.pin(&ctx, &c.pinned, [0.0; 3]);
    assert_eq!(gpu.source().list(&ctx).0, cpu.membrane.list, "GPU-built list differs");
    let mut states = gpu.spheres.states(&ctx);
    for (v, u) in f.upper.iter().zip(&f.velocity) {
        let s = cpu.vertex_sphere(*v);
        cpu.spheres.states[s].vel = u.map(|x| x as f32);
        states[s].vel = u.map(|x| x as f32);
    }
    gpu.spheres.write_spheres(&ctx, 0, &states);
    for _ in 0..600 {
        cpu.step();
        gpu.step(&ctx).unwrap();
    }
    let g = gpu.spheres.states(&ctx);
    let gap = cpu
        .spheres
        .states
        .iter()
        .zip(&g)
        .map(|(a, b)| {
            let (p, q) = (a.position(), b.position());
            (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f64::max)
        })
        .fold(0.0, f64::max);
    let low = f
        .upper
        .iter()
        .map(|v| g[cpu.vertex_sphere(*v)].position()[2])
        .fold(f64::MAX, f64::min);
    let n_cpu = cpu.membrane.patch_out.iter().filter(|o| o.active != 0).count();
    let n_gpu = gpu.source().patch_out(&ctx).iter().filter(|o| o.active != 0).count();
    println!(
        "folded sheet: {n_cpu} self-contacts (GPU {n_gpu}), lowest upper vertex {low:.4e} m, position gap {gap:.3e} m"
    );
    assert!(n_cpu > 0, "the fold has not met itself");
    assert_eq!(n_cpu, n_gpu);
    assert!(low > 0.25 * r_v, "passed through: {low:.3e}");
    assert!(gap < 1e-8, "positions differ by {gap:.3e} m");
}
