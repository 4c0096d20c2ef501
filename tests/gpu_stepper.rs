//! GPU stepper mechanics, each checked against the CPU twin: neighbour-list and contact-slot pool
//! growth after an overflow (the overflowing step is redone, so the result equals a run that had
//! room), bit-identical reruns, the init pass (forces of the initial state equal the CPU's to a
//! stated tolerance) and the list build (the same neighbour lists as the CPU's, also with box
//! walls drawn as one long segment per side, which the segment grid handles, and around the
//! corners of a frozen polygon with long sides; the 400-cell deposit scene against the CPU).

use softdem::backend::Backend;
use softdem::cpu::CpuBackend;
use softdem::gpu::context::gpu_for_tests;
use softdem::gpu::stepper::{DisplacementMax, GpuBackend, SlotAllocation};
use softdem::scenes::{packing_in_box, PackingSpec};
use std::sync::Arc;

fn small_packing() -> softdem::model::Scene {
    let spec = PackingSpec {
        columns: 3,
        rows: 3,
        radius: 1.0,
        spread: 0.15,
        nodes_per_cell: 16,
        seed: 3,
    };
    packing_in_box(spec, 1.0).0
}

#[test]
fn list_overflow_grows_and_redoes_the_batch() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let mut roomy = GpuBackend::new(ctx.clone(), &scene).unwrap();
    // Capacity 8 entries: every rebuild overflows until the lists have grown.
    let mut tight = GpuBackend::with_list_capacity(ctx, &scene, Some(8)).unwrap();
    // The cells fall apart from each other: their lists are empty for the first ~500 steps.
    roomy.step(1000).unwrap();
    tight.step(1000).unwrap();
    assert!(tight.list_capacity() > 8, "the lists did not grow");
    let needed = roomy.read_contacts().unwrap().entries.len() as u32;
    assert!(tight.list_capacity() >= needed);
    // Redoing from the overflowing step makes the run identical to one that never overflowed.
    assert_eq!(roomy.read_nodes().unwrap(), tight.read_nodes().unwrap());
}

/// An overflow in the middle of a batch: the capacity fits the lists of the first few rebuilds
/// (those of a run 700 steps in: the cells start apart, with empty lists), and the falling cells
/// need more entries at a later rebuild. Every kernel after the overflow must do nothing, and the
/// host must redo from the overflowing step (step counter, rebuild counter and ping-pong side
/// restored), so the run equals one that had room.
#[test]
fn list_overflow_mid_batch_resumes_at_the_overflowing_step() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let mut roomy = GpuBackend::new(ctx.clone(), &scene).unwrap();
    let mut probe = GpuBackend::new(ctx.clone(), &scene).unwrap();
    probe.step(700).unwrap();
    let first = probe.read_contacts().unwrap().entries.len() as u32;
    assert!(first > 0, "no entries after 700 steps");
    let mut tight = GpuBackend::with_list_capacity(ctx, &scene, Some(first)).unwrap();
    assert_eq!(
        tight.list_capacity(),
        first,
        "the first list should fit without growing"
    );
    roomy.step(2000).unwrap();
    tight.step(2000).unwrap();
    let needed = roomy.read_contacts().unwrap().entries.len() as u32;
    assert!(
        needed > first,
        "the lists never outgrew the first one ({needed} ≤ {first} entries)"
    );
    assert!(tight.list_capacity() > first, "the lists did not grow");
    assert_eq!(roomy.rebuilds(), tight.rebuilds(), "rebuild counts differ");
    assert_eq!(roomy.read_nodes().unwrap(), tight.read_nodes().unwrap());
    assert_eq!(roomy.read_contacts().unwrap(), tight.read_contacts().unwrap());
    // The CPU twin agrees with the run that grew.
    assert_cpu_agrees(&scene, 2000, &tight.read_nodes().unwrap());
}

/// The CPU twin, run `steps` steps on `scene`, puts every node within 1e-5 (of R = 1) of the GPU
/// run's `gpu` positions: the engine tests' tolerance for the GPU check.
fn assert_cpu_agrees(scene: &softdem::model::Scene, steps: u32, gpu: &[softdem::model::NodeState]) {
    let mut cpu = CpuBackend::new(scene).unwrap();
    cpu.step(steps).unwrap();
    assert_close(gpu, &cpu.read_nodes().unwrap());
}

/// Every node of `gpu` within 1e-5 (of R = 1) of `cpu`.
fn assert_close(gpu: &[softdem::model::NodeState], cpu: &[softdem::model::NodeState]) {
    for (g, c) in gpu.iter().zip(cpu) {
        let d = ((g.pos_hi[0] - c.pos_hi[0]) + (g.pos_lo[0] - c.pos_lo[0]))
            .hypot((g.pos_hi[1] - c.pos_hi[1]) + (g.pos_lo[1] - c.pos_lo[1]));
        assert!(d <= 1e-5, "GPU and CPU positions differ by {d:e}");
    }
}

/// A beam dropped with a sideways velocity onto a flat frozen floor, with friction: once it has
/// landed, a quarter of the list entries hold a contact (every beam node on a floor segment).
fn beam_on_floor() -> softdem::model::Scene {
    use softdem::model::{BodyOptions, Core, NodeSet};
    let (mut sc, _) = softdem::scenes::compaction_bench(1);
    let beam_opts = BodyOptions {
        material: 0,
        radius: sc.bodies[0].radius,
        node_mass: sc.nodes[0].mass,
        frozen: false,
        self_contact: false,
        core: Core::None,
    };
    let floor_opts = BodyOptions {
        frozen: true,
        material: 1,
        ..beam_opts
    };
    sc.bodies.clear();
    sc.nodes.clear();
    sc.init.clear();
    let (r, ell, n) = (beam_opts.radius as f64, 2.0 * std::f64::consts::PI / 32.0, 40);
    sc.add_line([0.0, 0.0], [n as f64 * ell, 0.0], n + 1, floor_opts);
    let y = 2.0 * r + 0.01;
    let beam = sc.add_line([0.5 * ell, y], [(n as f64 - 1.5) * ell, y], n - 1, beam_opts);
    sc.gravity = [0.0, -1.0];
    sc.local_damping = 0.7;
    sc.contact.mu = 0.3;
    sc.contact.k_t = 0.5 * sc.contact.k_n;
    sc.set_initial_velocity(&NodeSet::Body(beam), [0.05, -0.1]);
    sc
}

/// A contact-slot pool overflow in the middle of a batch: the pool starts with 8 slots and the
/// landing beam needs several times that, in steps that carry friction histories. contact_pairs
/// flags the overflow, the rest of the batch does nothing, the host grows the pools (keeping the
/// histories the step reads) and redoes the step (keeping the step's list build), so the run
/// equals one that had room, friction histories included.
#[test]
fn pool_overflow_mid_batch_resumes_at_the_overflowing_step() {
    let scene = beam_on_floor();
    let ctx = Arc::new(gpu_for_tests());
    let mut roomy = GpuBackend::new(ctx.clone(), &scene).unwrap();
    let capacity = roomy.list_capacity();
    let mut tight = GpuBackend::with_capacities(ctx, &scene, Some(capacity), Some(8)).unwrap();
    let pool0 = tight.pool_capacity();
    assert_eq!(pool0, 8);
    roomy.step(1500).unwrap();
    tight.step(1500).unwrap();
    let contacts = roomy.read_contacts().unwrap();
    let slots_used: usize = contacts.slots.iter().filter(|s| s.flags != 0).count();
    assert!(
        slots_used as u32 > pool0,
        "the landed beam holds {slots_used} contacts, not more than the {pool0} slots of the pool"
    );
    assert!(tight.pool_capacity() > pool0, "the pool did not grow");
    assert_eq!(
        tight.list_capacity(),
        capacity,
        "the lists grew: this test is about the pool"
    );
    assert_eq!(roomy.rebuilds(), tight.rebuilds(), "rebuild counts differ");
    assert_eq!(roomy.read_nodes().unwrap(), tight.read_nodes().unwrap());
    assert_eq!(contacts, tight.read_contacts().unwrap());
    assert_eq!(
        roomy.export_state().unwrap().hist,
        tight.export_state().unwrap().hist,
        "friction histories differ"
    );
    let sliding = contacts.slots.iter().filter(|s| s.hist != [0.0, 0.0]).count();
    assert!(sliding > 0, "no contact carries a friction history");
    assert_cpu_agrees(&scene, 1500, &tight.read_nodes().unwrap());
}

#[test]
fn two_gpu_runs_are_bit_identical_and_init_forces_match_cpu() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let mut a = GpuBackend::new(ctx.clone(), &scene).unwrap();
    let mut b = GpuBackend::new(ctx, &scene).unwrap();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    // Initial state after the dt = 0 force pass: positions bit-identical (double-f32 survives
    // the driver's optimiser); forces within 4 ulp of a segment length times k_s, the effect of
    // the FMA contractions the Vulkan driver may apply where Rust rounds each product.
    let (ga, ca) = (a.read_nodes().unwrap(), cpu.read_nodes().unwrap());
    let k_s = scene.materials[0].k_s;
    let tol = 4.0 * k_s * f32::EPSILON * scene.longest_segment();
    for (i, (g, c)) in ga.iter().zip(&ca).enumerate() {
        assert_eq!((g.pos_hi, g.pos_lo), (c.pos_hi, c.pos_lo), "node {i} moved differently");
        let df = (g.force[0] - c.force[0]).hypot(g.force[1] - c.force[1]);
        assert!(df <= tol, "node {i}: |Δf| = {df:e} > {tol:e}");
    }
    a.step(500).unwrap();
    b.step(250).unwrap();
    b.step(250).unwrap();
    assert_eq!(a.read_nodes().unwrap(), b.read_nodes().unwrap(), "GPU reruns differ");
    assert_eq!(a.read_contacts().unwrap(), b.read_contacts().unwrap());
}

/// N steps equal N/2 + export + import into a fresh backend + N/2, bit for bit, on each backend.
#[test]
fn export_import_resumes_bit_for_bit_on_both_backends() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let mk: [Box<dyn Fn() -> Box<dyn Backend>>; 2] = [
        Box::new(|| Box::new(CpuBackend::new(&scene).unwrap())),
        Box::new(|| Box::new(GpuBackend::new(ctx.clone(), &scene).unwrap())),
    ];
    for make in mk.iter() {
        let mut straight = make();
        straight.step(400).unwrap();
        let mut first = make();
        first.step(200).unwrap();
        let saved = first.export_state().unwrap();
        let mut resumed = make();
        resumed.import_state(&saved).unwrap();
        resumed.step(200).unwrap();
        assert_eq!(resumed.steps_done(), 400);
        assert_eq!(
            straight.read_nodes().unwrap(),
            resumed.read_nodes().unwrap(),
            "{}",
            straight.name()
        );
    }
}

/// The list build's twins agree: from the same positions (the initial state) the GPU's
/// neighbour lists — the cut-off circle and the shell test `near_shell` — are the CPU's, entry
/// for entry, on the dense bench packing and on a tissue (cells close together, cohesive links).
#[test]
fn neighbour_lists_equal_the_cpu_twins() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let tissue = softdem::scenario::Scenario::load(&root.join("scenarios/tissue_elastic.toml"))
        .unwrap()
        .build()
        .unwrap()
        .scene;
    let ctx = Arc::new(gpu_for_tests());
    for (name, scene) in [
        ("bench", softdem::scenes::compaction_bench(36).0),
        ("tissue", tissue),
        // Box walls as one segment per side (the segment grid's routes) and subdivided.
        ("deposit, one-segment walls", softdem::scenes::deposit_bench(60, None)),
        (
            "deposit, subdivided walls",
            softdem::scenes::deposit_bench(60, Some(0.0)),
        ),
    ] {
        let gpu = GpuBackend::new(ctx.clone(), &scene).unwrap().read_contacts().unwrap();
        let cpu = CpuBackend::new(&scene).unwrap().read_contacts().unwrap();
        assert!(
            cpu.entries.len() > scene.nodes.len() / 2,
            "{name}: only {} entries for {} nodes",
            cpu.entries.len(),
            scene.nodes.len()
        );
        assert_same_lists(name, &gpu, &cpu);
    }
}

/// The GPU's neighbour lists are the CPU's, entry for entry (the first node whose list differs
/// is named, not the whole lists: they are long).
fn assert_same_lists(name: &str, gpu: &softdem::backend::ContactSnapshot, cpu: &softdem::backend::ContactSnapshot) {
    let n = cpu.start.len() - 1;
    let differs = (0..n).find(|&x| {
        let (g, c) = (
            gpu.start[x] as usize..gpu.start[x + 1] as usize,
            cpu.start[x] as usize..cpu.start[x + 1] as usize,
        );
        gpu.entries[g] != cpu.entries[c]
    });
    assert_eq!(differs, None, "{name}: the list of this node differs");
    assert_eq!(gpu.start, cpu.start, "{name}: list offsets differ");
}

/// The deposit bench scene (60 cells, one-segment walls) with a frozen pentagon of sides 3.5 among
/// the cells: each of its nodes joins two long wall segments, so a node's list build walks both
/// (`free_nodes_along_segment` twice). On lavapipe that walk used to exceed llvmpipe's cap on
/// the loop iterations of one invocation (65535, all loops together) and lose entries silently.
fn deposit_with_pentagon() -> softdem::model::Scene {
    let mut scene = softdem::scenes::deposit_bench(60, None);
    let wall = scene.bodies[scene.bodies.len() - 1];
    let o = softdem::model::BodyOptions {
        material: wall.material,
        radius: wall.radius,
        node_mass: 1.0,
        frozen: true,
        self_contact: false,
        core: softdem::model::Core::None,
    };
    scene.add_ring([7.0, 7.0], 3.0, 5, o);
    scene
}

/// The deposit bench scene (60 cells) with one-segment box walls, run until the top wall has
/// pressed on the cells for 1,000 steps (friction, undrained cores): the GPU agrees with the CPU
/// (`assert_cpu_agrees`), and a segment grid that starts with room for one item (so the first
/// build overflows, grows and is redone) gives the same run bit for bit.
#[test]
fn long_wall_segments_run_and_agree_with_the_cpu() {
    let scene = softdem::scenes::deposit_bench(60, None);
    let ctx = Arc::new(gpu_for_tests());
    let mut roomy = GpuBackend::new(ctx.clone(), &scene).unwrap();
    let mut tight = GpuBackend::with_all_capacities(ctx, &scene, None, None, Some(1)).unwrap();
    assert!(tight.item_capacity() > 1, "the segment grid did not grow");
    roomy.step(3000).unwrap();
    tight.step(3000).unwrap();
    let nodes = roomy.read_nodes().unwrap();
    assert_eq!(
        nodes,
        tight.read_nodes().unwrap(),
        "the regrown segment grid changed the run"
    );
    // The top wall (bodies: cells, then bottom, top, left, right) presses on the cells.
    let top = (scene.bodies.len() - 3) as u32;
    let c = roomy.read_contacts().unwrap();
    let on_top = (0..scene.nodes.len())
        .flat_map(|x| (c.start[x]..c.start[x + 1]).map(move |e| (x, e as usize)))
        .filter(|&(x, e)| {
            c.slots[e].flags != 0
                && (scene.nodes[x].body == top || scene.nodes[c.entries[e].neighbor as usize].body == top)
        })
        .count();
    assert!(on_top > 0, "no contact with the top wall");
    assert_cpu_agrees(&scene, 3000, &nodes);
}

/// A frozen closed polygon with long sides among the cells (`deposit_with_pentagon`): the GPU's
/// lists equal the CPU's at the start and after 400 steps (cells pressed against the pentagon's
/// sides and corners), and the run agrees with the CPU's (`assert_cpu_agrees`).
#[test]
fn frozen_polygon_corners_list_as_on_the_cpu() {
    let scene = deposit_with_pentagon();
    let ctx = Arc::new(gpu_for_tests());
    let mut gpu = GpuBackend::new(ctx, &scene).unwrap();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    assert_same_lists(
        "pentagon, start",
        &gpu.read_contacts().unwrap(),
        &cpu.read_contacts().unwrap(),
    );
    gpu.step(400).unwrap();
    cpu.step(400).unwrap();
    let c = cpu.read_contacts().unwrap();
    lists_agree_where_positions_do("pentagon, step 400", &mut gpu, &mut cpu);
    // The pentagon's corner nodes (the last five) have free neighbours listed.
    let n = scene.nodes.len();
    for x in n - 5..n {
        assert!(c.start[x + 1] > c.start[x], "corner {x} has no neighbours");
    }
    assert_close(&gpu.read_nodes().unwrap(), &cpu.read_nodes().unwrap());
}

/// After a run, the lists are compared entry for entry only when the two backends' positions
/// are bit-identical (lavapipe, which fuses no products): on a device that fuses, positions
/// differ by rounding and a pair at the cut-off may be listed on one side only, which
/// `assert_cpu_agrees`' tolerance covers.
fn lists_agree_where_positions_do(name: &str, gpu: &mut GpuBackend, cpu: &mut CpuBackend) {
    if gpu.read_nodes().unwrap() == cpu.read_nodes().unwrap() {
        assert_same_lists(name, &gpu.read_contacts().unwrap(), &cpu.read_contacts().unwrap());
    }
}

/// The 400-cell deposit bench scene (one-segment box walls, friction, undrained cores), 300
/// steps: every node within 1e-5 (of R = 1) of the CPU run, and the wall nodes' lists (up to
/// ~50 free neighbours along 40 cells of wall) are the CPU's.
#[test]
fn deposit_bench_400_cells_agrees_with_the_cpu() {
    let scene = softdem::scenes::deposit_bench(400, None);
    let ctx = Arc::new(gpu_for_tests());
    let mut gpu = GpuBackend::new(ctx, &scene).unwrap();
    let mut cpu = CpuBackend::new(&scene).unwrap();
    assert_same_lists(
        "deposit 400, start",
        &gpu.read_contacts().unwrap(),
        &cpu.read_contacts().unwrap(),
    );
    gpu.step(300).unwrap();
    cpu.step(300).unwrap();
    lists_agree_where_positions_do("deposit 400, step 300", &mut gpu, &mut cpu);
    assert_close(&gpu.read_nodes().unwrap(), &cpu.read_nodes().unwrap());
}

/// The two ways of deciding list builds (src/gpu/stepper.rs, `BroadPhase`): host-driven (steps
/// record `rebuild_check` only; a due build stops the batch and is redone with direct
/// dispatches) and GPU-driven (every step records the build as indirect dispatches sized by
/// `rebuild_decide`) give the same run bit for bit, with the same builds, on cells that fall
/// apart and land (many builds); the host-driven steps record fewer dispatches.
#[test]
fn host_and_gpu_driven_rebuilds_give_the_same_run() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let mut host = GpuBackend::new(ctx.clone(), &scene).unwrap();
    let mut gpu = GpuBackend::new(ctx, &scene).unwrap();
    host.set_host_driven_rebuilds(true);
    gpu.set_host_driven_rebuilds(false);
    let (h0, g0) = (host.dispatches_recorded(), gpu.dispatches_recorded());
    host.step(1500).unwrap();
    gpu.step(1500).unwrap();
    assert!(host.rebuilds() > 5, "only {} builds", host.rebuilds());
    assert_eq!(host.rebuilds(), gpu.rebuilds(), "different builds");
    assert_eq!(host.read_nodes().unwrap(), gpu.read_nodes().unwrap());
    let per_step = |d: u64| d as f64 / 1500.0;
    let (h, g) = (
        per_step(host.dispatches_recorded() - h0),
        per_step(gpu.dispatches_recorded() - g0),
    );
    println!("dispatches per step: host-driven {h:.2}, GPU-driven {g:.2}");
    assert!(
        h < 0.6 * g,
        "host-driven {h:.2} vs GPU-driven {g:.2} dispatches per step"
    );
}

/// The modes to compare: `all`, less `subgroup` where the device has no subgroup operations
/// (lavapipe has them); there, `refused` must fail to set it, so the test checks that instead of
/// passing over it silently.
fn modes_on<T: Copy + PartialEq + std::fmt::Debug>(
    ctx: &softdem::gpu::context::GpuContext,
    all: &[T],
    subgroup: T,
    refused: impl FnOnce() -> anyhow::Result<()>,
) -> Vec<T> {
    if ctx.has_subgroups() {
        return all.to_vec();
    }
    let e = refused().expect_err("subgroup mode accepted on a device without subgroup operations");
    assert!(e.to_string().contains("no subgroup operations"), "{e}");
    println!(
        "{:?}: no subgroup operations, the subgroup mode refused and not run",
        ctx.info.name
    );
    all.iter().copied().filter(|m| *m != subgroup).collect()
}

/// The three ways shell_forces_contact_pairs places new contact slots (src/gpu/stepper.rs,
/// `SlotAllocation`): staged per workgroup (one atomicAdd each; GPUs without subgroups), one
/// atomicAdd per slot with no workgroup barrier (CPU adapters) and counted per subgroup (one
/// atomicAdd per subgroup and round of the lists, shaders/contact_pairs_subgroup.wgsl; GPUs with
/// subgroups, forced here: lavapipe's subgroups have 8 invocations) give the same run bit for
/// bit on the pressed compaction packing — node states and the slot of every entry — also when a
/// pool of one slot overflows and is grown (the step redone), and on a beam landed on a floor,
/// where neighbouring invocations get new slots in the same round (the packing rarely has that:
/// a subgroup pass placing a round's slots all at its base passed the packing and failed the
/// beam). Where the slots lie in the pool differs between the modes (and between runs); what
/// they hold does not.
#[test]
fn every_slot_allocation_gives_the_same_run() {
    let (scene, _) = softdem::scenes::compaction_bench(6);
    let ctx = Arc::new(gpu_for_tests());
    let all = [
        SlotAllocation::Workgroup,
        SlotAllocation::Direct,
        SlotAllocation::Subgroup,
    ];
    let modes = modes_on(&ctx, &all, SlotAllocation::Subgroup, || {
        GpuBackend::new(ctx.clone(), &scene)?.set_slot_allocation(SlotAllocation::Subgroup)
    });
    let mut runs = Vec::new();
    for &a in &modes {
        for pool in [None, Some(1)] {
            let mut be = GpuBackend::with_capacities(ctx.clone(), &scene, None, pool).unwrap();
            be.set_slot_allocation(a).unwrap();
            assert_eq!(be.slot_allocation(), a);
            be.step(300).unwrap();
            let c = be.read_contacts().unwrap();
            let slots = c.slots.iter().filter(|s| s.flags != 0).count();
            assert!(slots > 10, "{a:?}: only {slots} contacts at the end");
            if pool.is_some() {
                assert!(be.pool_capacity() >= slots as u32, "{a:?}: the pool did not grow");
            }
            runs.push((a, be.read_nodes().unwrap(), c.slots));
        }
    }
    for (a, nodes, slots) in &runs[1..] {
        assert_eq!(nodes, &runs[0].1, "{a:?}: node states differ from staged allocation");
        assert_eq!(
            slots, &runs[0].2,
            "{a:?}: slots per entry differ from staged allocation"
        );
    }
    // A landed beam: every beam node on a floor segment, so neighbouring invocations get new
    // slots in the same round of their lists (the subgroup mode places several per atomicAdd;
    // the packing above rarely does), and friction histories carried by the slots.
    let scene = beam_on_floor();
    let mut runs = Vec::new();
    for &a in &modes {
        let mut be = GpuBackend::new(ctx.clone(), &scene).unwrap();
        be.set_slot_allocation(a).unwrap();
        be.step(1500).unwrap();
        let c = be.read_contacts().unwrap();
        let slots = c.slots.iter().filter(|s| s.flags != 0).count();
        assert!(slots > 20, "{a:?}: only {slots} contacts of the landed beam");
        runs.push((a, be.read_nodes().unwrap(), c));
    }
    for (a, nodes, contacts) in &runs[1..] {
        assert_eq!(
            nodes, &runs[0].1,
            "{a:?}: beam node states differ from staged allocation"
        );
        assert_eq!(
            contacts, &runs[0].2,
            "{a:?}: beam contacts differ from staged allocation"
        );
    }
}

/// The three ways integrate records the largest displacement since the last list build
/// (src/gpu/stepper.rs, `DisplacementMax`): one atomicMax per node that beats the load (chosen on
/// CPU adapters), a workgroup maximum in workgroup memory with one atomicMax per workgroup
/// (GPUs without subgroups) and a subgroupMax with one atomicMax per subgroup
/// (shaders/integrate_subgroup.wgsl, node_forces_subgroup.wgsl; GPUs with subgroups), the last
/// two forced here, give the same run bit for bit — the same builds at the same steps, the same
/// displacement bits, node states and contacts — on cells that fall apart and land (many builds,
/// decided by that maximum), and the CPU twin agrees within 1e-5 (of R = 1).
#[test]
fn every_displacement_max_gives_the_same_run() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let all = [
        DisplacementMax::Direct,
        DisplacementMax::Staged,
        DisplacementMax::Subgroup,
    ];
    let modes = modes_on(&ctx, &all, DisplacementMax::Subgroup, || {
        GpuBackend::new(ctx.clone(), &scene)?.set_displacement_max(DisplacementMax::Subgroup)
    });
    let mut runs = Vec::new();
    for d in modes {
        let mut be = GpuBackend::new(ctx.clone(), &scene).unwrap();
        be.set_displacement_max(d).unwrap();
        assert_eq!(be.displacement_max(), d);
        be.step(1500).unwrap();
        assert!(be.rebuilds() > 5, "{d:?}: only {} builds", be.rebuilds());
        let saved = be.export_state().unwrap();
        assert!(
            f32::from_bits(saved.max_disp_bits) > 0.0,
            "{d:?}: no displacement recorded"
        );
        runs.push((
            d,
            be.rebuilds(),
            saved.max_disp_bits,
            saved.nodes,
            be.read_contacts().unwrap(),
        ));
    }
    let (_, builds, bits, nodes, contacts) = &runs[0];
    for (d, builds_s, bits_s, nodes_s, contacts_s) in &runs[1..] {
        assert_eq!(builds, builds_s, "{d:?}: different builds");
        assert_eq!(bits, bits_s, "{d:?}: different displacement maximum");
        assert_eq!(nodes, nodes_s, "{d:?}: node states differ from the direct maximum");
        assert_eq!(contacts, contacts_s, "{d:?}: contacts differ from the direct maximum");
    }
    assert_cpu_agrees(&scene, 1500, nodes);
}

/// Both subgroup modes together (the default on a GPU with subgroup operations) on cells that
/// fall apart and land: the same bytes as the CPU-adapter defaults (direct, direct) — node
/// states, contacts with their slots, builds and displacement bits — over 1,500 steps with many
/// builds and a contact at the end (each mode alone is compared on more contacts above).
#[test]
fn the_subgroup_defaults_give_the_cpu_adapter_defaults_run() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let modes = modes_on(&ctx, &[true, false], true, || {
        GpuBackend::new(ctx.clone(), &scene)?.set_slot_allocation(SlotAllocation::Subgroup)
    });
    let mut runs = Vec::new();
    for subgroup in modes {
        let mut be = GpuBackend::new(ctx.clone(), &scene).unwrap();
        if subgroup {
            be.set_slot_allocation(SlotAllocation::Subgroup).unwrap();
            be.set_displacement_max(DisplacementMax::Subgroup).unwrap();
        } else {
            be.set_slot_allocation(SlotAllocation::Direct).unwrap();
            be.set_displacement_max(DisplacementMax::Direct).unwrap();
        }
        be.step(1500).unwrap();
        let saved = be.export_state().unwrap();
        runs.push((
            be.rebuilds(),
            saved.max_disp_bits,
            saved.nodes,
            be.read_contacts().unwrap(),
        ));
    }
    if let [(b0, m0, n0, c0), (b1, m1, n1, c1)] = &runs[..] {
        assert!(*b0 > 5, "only {b0} builds");
        let slots = c0.slots.iter().filter(|s| s.flags != 0).count();
        assert!(slots > 0, "no contact at the end");
        assert_eq!(b0, b1, "different builds");
        assert_eq!(m0, m1, "different displacement maximum");
        assert_eq!(n0, n1, "node states differ");
        assert_eq!(c0, c1, "contacts differ");
    }
}

/// A saved state whose list outgrows the importing backend's (8 entries): the import grows the
/// lists, and with them the list build's scratch in the ShellForce buffer (`Scratch`), and the
/// run resumes bit for bit (800 steps + export + import + 400 = 1,200 steps straight; the cells
/// have landed by step 800, so the saved list is long, and builds follow the import).
#[test]
fn import_into_a_smaller_list_grows_it_and_resumes_bit_for_bit() {
    let scene = small_packing();
    let ctx = Arc::new(gpu_for_tests());
    let mut straight = GpuBackend::new(ctx.clone(), &scene).unwrap();
    straight.step(1200).unwrap();
    let mut first = GpuBackend::new(ctx.clone(), &scene).unwrap();
    first.step(800).unwrap();
    let saved = first.export_state().unwrap();
    assert!(saved.entries.len() > 8, "only {} entries saved", saved.entries.len());
    let mut resumed = GpuBackend::with_list_capacity(ctx, &scene, Some(8)).unwrap();
    let before = resumed.list_capacity();
    assert!(
        (before as usize) < saved.entries.len(),
        "the list already holds the saved one"
    );
    resumed.import_state(&saved).unwrap();
    assert!(resumed.list_capacity() as usize >= saved.entries.len());
    resumed.step(400).unwrap();
    assert_eq!(straight.read_nodes().unwrap(), resumed.read_nodes().unwrap());
    assert_eq!(straight.read_contacts().unwrap(), resumed.read_contacts().unwrap());
}
