//! The CPU stepper's cell order (`spheres::cell_order`): inside `CpuSpheres::steps` the arrays
//! are sorted by cell, between calls they are in the user's order. The sort changes the speed,
//! not the bits (pairs oriented and gathered by user index), with every law path (plain
//! Hertz–Mindlin on lanes, MC-stress, MC-strain), walls, rebuilds and re-sorts; a checkpoint
//! taken and resumed in the middle of a sorted run continues bit for bit; the same packing
//! numbered in another order gives the same physics to rounding; everything read between
//! calls is in the user's order.

use softdem::spheres::backend::{CpuSphereBackend, SphereBackend};
use softdem::spheres::bench_scene::{random_dense, shake};
use softdem::spheres::cell_list::build_neighbor_list;
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::LawTable;
use softdem::spheres::state::{SphereParams, SphereState};
use softdem::spheres::wall::PlaneWall;

/// Which laws a case runs.
#[derive(Clone, Copy, Debug)]
enum Laws {
    HertzMindlin,
    McStress,
    McStrain,
}

type Scene = (SphereParams, Vec<SphereState>, LawTable, Vec<PlaneWall>);

/// The dense random bench packing (spheres in random order, floor and a lid coming down) of
/// about `count` spheres, shaken: pseudo-random velocities of ±1 m/s and spins, so that contacts
/// open, close and slide and the list is rebuilt every ~100 steps.
fn shaken(count: usize, laws: Laws) -> Scene {
    let (mut p, mut states, table, walls) = random_dense(count);
    shake(&mut p, &mut states, 0x9e37_79b9_7f4a_7c15, 2.0, 100.0);
    let table = match laws {
        Laws::HertzMindlin => table,
        Laws::McStress => table.with_mc_stress(1.71, 0),
        Laws::McStrain => table.with_mc_strain(0.55, 0),
    };
    (p, states, table, walls)
}

fn stepper(scene: &Scene, sort: bool, resort_growth: Option<f64>) -> CpuSpheres {
    let (p, states, laws, walls) = scene.clone();
    let mut sys = CpuSpheres::new(p, states, laws, walls);
    sys.cell_order_min = if sort { 0 } else { usize::MAX };
    sys.sort_span = 0.0;
    if let Some(g) = resort_growth {
        sys.resort_growth = g;
    }
    sys
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn assert_same(a: &CpuSpheres, b: &CpuSpheres, what: &str) {
    let differing = a.arrays_differing_in_bits(b);
    assert!(differing.is_empty(), "{what}: {differing:?} differ");
    assert_eq!(a.list, b.list, "{what}: candidate lists differ");
    assert_eq!(a.owner, b.owner, "{what}: pair owners differ");
    assert_eq!(a.incident, b.incident, "{what}: incident lists differ");
    assert!(
        bits(&a.wall_history) == bits(&b.wall_history),
        "{what}: wall histories differ"
    );
    assert!(
        bits(&a.stress_trace) == bits(&b.stress_trace),
        "{what}: stress traces differ"
    );
    assert!(
        bits(&a.pair_strain) == bits(&b.pair_strain),
        "{what}: MC-strain sums differ"
    );
    assert_eq!(a.wall_slots, b.wall_slots, "{what}: wall candidates differ");
    assert_eq!(a.wall_spheres, b.wall_spheres, "{what}: wall candidates differ");
    assert_eq!(a.rebuilds, b.rebuilds, "{what}: rebuild counts differ");
    assert_eq!(a.steps, b.steps);
}

/// Runs of `steps(k)` for k in `runs`.
fn run(sys: &mut CpuSpheres, runs: &[u64]) {
    for &k in runs {
        sys.steps(k);
    }
}

#[test]
fn cell_order_changes_the_speed_not_the_bits() {
    // Runs of several lengths: each call sorts on entry and restores the user's order on exit.
    let runs = [1, 7, 180, 2, 410];
    for (laws, count) in [
        (Laws::HertzMindlin, 2000),
        (Laws::McStress, 1000),
        (Laws::McStrain, 500),
    ] {
        let scene = shaken(count, laws);
        let mut plain = stepper(&scene, false, None);
        let mut sorted = stepper(&scene, true, None);
        // Re-sorted at every rebuild (the path a flowing packing takes).
        let mut resorted = stepper(&scene, true, Some(0.0));
        run(&mut plain, &runs);
        run(&mut sorted, &runs);
        run(&mut resorted, &runs);
        let touching = plain.pair_out.iter().filter(|o| o.f_n > 0.0).count();
        let walls = plain.wall_out.iter().filter(|o| o.f_n > 0.0).count();
        println!(
            "{laws:?}: {} spheres, {} pairs ({touching} touching), {walls} wall contacts, {} rebuilds",
            plain.states.len(),
            plain.list.len(),
            plain.rebuilds
        );
        // The case has contacts, wall contacts and rebuilds inside the sorted calls.
        assert!(touching > plain.states.len() / 4 && walls > 10 && plain.rebuilds >= 4);
        assert_same(&plain, &sorted, &format!("{laws:?}: sorted vs user order"));
        assert_same(
            &plain,
            &resorted,
            &format!("{laws:?}: re-sorted at every rebuild vs user order"),
        );
        // One step at a time (no sort: k = 1) equals the sorted runs too.
        let mut single = stepper(&scene, true, None);
        for _ in 0..runs.iter().sum::<u64>() {
            single.step();
        }
        assert_same(&plain, &single, &format!("{laws:?}: step() vs sorted steps(k)"));
    }
}

#[test]
fn a_checkpoint_inside_a_sorted_run_resumes_bit_for_bit() {
    let scene = shaken(2000, Laws::HertzMindlin);
    let mut whole = CpuSphereBackend(stepper(&scene, true, None));
    whole.step(600).unwrap();
    // Stopped at a step that is no rebuild of the whole run's; the resumed stepper rebuilds and
    // sorts there, the whole run did elsewhere.
    let mut first = CpuSphereBackend(stepper(&scene, true, None));
    first.step(237).unwrap();
    let saved = first.export().unwrap();
    let mut resumed = CpuSphereBackend(stepper(&scene, true, None));
    resumed.import(&saved).unwrap();
    resumed.step(363).unwrap();
    let (a, b) = (whole.read().unwrap(), resumed.read().unwrap());
    assert!(bits(&a.states) == bits(&b.states), "resumed states differ");
    assert!(bits(&a.forces) == bits(&b.forces), "resumed forces differ");
    assert_eq!(a.contacts, b.contacts, "resumed contacts differ");
    assert_eq!(a.wall_contacts, b.wall_contacts, "resumed wall contacts differ");
    assert_eq!(whole.export().unwrap().history, resumed.export().unwrap().history);
    assert!(a.contacts.len() > 500);
}

#[test]
fn a_packing_numbered_in_another_order_gives_the_same_physics() {
    let scene = shaken(2000, Laws::HertzMindlin);
    let n = scene.1.len();
    // The same spheres numbered by a pseudo-random permutation: sphere q of the renumbered
    // packing is sphere perm[q] of the first.
    let mut perm: Vec<usize> = (0..n).collect();
    let mut seed = 0x1234_5678_9abc_def1u64;
    for i in (1..n).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        perm.swap(i, (seed % (i as u64 + 1)) as usize);
    }
    let mut renumbered = scene.clone();
    renumbered.1 = perm.iter().map(|&u| scene.1[u]).collect();
    let mut a = stepper(&scene, true, None);
    let mut b = stepper(&renumbered, true, None);
    let steps = 300;
    a.steps(steps);
    b.steps(steps);
    // The pair forces are the same up to the orientation of each pair (the i of a pair is its
    // sphere of lower index) and each sphere sums them in its partners' index order: the two
    // runs differ by rounding, which the contacts amplify over the run. Tolerances, stated:
    // positions within 1e-7 r, velocities within 1e-5 of the largest, forces within 1e-4 of
    // the largest (seen 5.7e-9 r, 1.2e-7, 8.4e-7 after 300 steps).
    let r = scene.1.iter().map(|s| s.radius).fold(0.0f32, f32::max) as f64;
    let v_max = a.states.iter().flat_map(|s| s.vel).map(f32::abs).fold(0.0f32, f32::max) as f64;
    let f_max = a
        .forces
        .iter()
        .flat_map(|f| f.force)
        .map(f32::abs)
        .fold(0.0f32, f32::max) as f64;
    let (mut dx, mut dv, mut df) = (0.0f64, 0.0f64, 0.0f64);
    for (q, &u) in perm.iter().enumerate() {
        let (sa, sb) = (&a.states[u], &b.states[q]);
        assert_eq!(sa.radius, sb.radius, "sphere {u} is renumbered {q}");
        let (pa, pb) = (sa.position(), sb.position());
        for k in 0..3 {
            dx = dx.max((pa[k] - pb[k]).abs());
            dv = dv.max((sa.vel[k] - sb.vel[k]).abs() as f64);
            df = df.max((a.forces[u].force[k] - b.forces[q].force[k]).abs() as f64);
        }
    }
    println!(
        "renumbered: positions {:.2e} r, velocities {:.2e} v_max, forces {:.2e} f_max",
        dx / r,
        dv / v_max,
        df / f_max
    );
    assert!(a
        .states
        .iter()
        .zip(&scene.1)
        .any(|(s, s0)| s.position() != s0.position()));
    assert!(dx < 1e-7 * r, "positions differ by {dx:.3e} m");
    assert!(dv < 1e-5 * v_max, "velocities differ by {dv:.3e} m/s");
    assert!(df < 1e-4 * f_max, "forces differ by {df:.3e} N");
    assert_eq!(a.list.len(), b.list.len(), "the same candidate pairs");
}

#[test]
fn between_calls_every_array_is_in_the_users_order() {
    let scene = shaken(2000, Laws::HertzMindlin);
    let mut sys = stepper(&scene, true, None);
    sys.steps(250);
    // Sphere i is still the user's sphere i (radii and masses are per sphere and distinct).
    for (s, s0) in sys.states.iter().zip(&scene.1) {
        assert_eq!((s.radius, s.mass, s.material), (s0.radius, s0.mass, s0.material));
    }
    // The list is the user's: rows i of partners j > i, increasing, the pairs a fresh build at
    // the last rebuild's positions would give, each pair's record oriented i → j.
    let pairs = sys.list.pairs();
    assert!(pairs.iter().all(|&(i, j)| i < j));
    assert!(pairs.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(sys.owner, pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    assert_eq!(sys.pair_i, sys.owner);
    assert_eq!(sys.pair_j, sys.list.partner);
    let mut at_build = sys.states.clone();
    for (s, x) in at_build.iter_mut().zip(&sys.x_ref) {
        s.pos_hi = *x;
        s.pos_lo = [0.0; 3];
    }
    assert_eq!(build_neighbor_list(&sys.params, &at_build).len(), sys.list.len());
    // A touching pair's force points from j to i (the record is on i).
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let o = &sys.pair_out[k];
        if o.f_n > 0.0 {
            let (xi, xj) = (sys.states[i as usize].position(), sys.states[j as usize].position());
            let along: f64 = (0..3).map(|d| (xi[d] - xj[d]) * o.force[d] as f64).sum();
            assert!(along > 0.0, "pair ({i}, {j}) pushes i away from j");
        }
    }
    // Wall records: sphere s's at s · n_walls + w, touching only spheres near that wall.
    let nw = sys.walls.len();
    for (k, o) in sys.wall_out.iter().enumerate() {
        if o.f_n > 0.0 {
            let (s, w) = (k / nw, k % nw);
            let st = &sys.states[s];
            let wall = &sys.walls[w];
            let x = st.position();
            let gap: f64 = (0..3)
                .map(|d| (x[d] - (wall.point_hi[d] + wall.point_lo[d]) as f64) * wall.normal[d] as f64)
                .sum::<f64>()
                - st.radius as f64;
            assert!(gap < 0.0, "sphere {s} touches wall {w} (gap {gap:.3e})");
        }
    }
}

#[test]
fn bead_bonds_see_the_users_order_through_the_seam() {
    use softdem::beads::{build_body, no_contact_table, BeadForces, BodyShape, BodySpec, Bond, BondList};
    use softdem::spheres::precision::df3_split;
    // A 12³ block of bonded beads squeezed to 95 % and let go: only its bonds (an attached
    // `ExtraForces` source, which indexes beads by the user's index) act on it.
    let l = 12.5e-6;
    let spec = BodySpec {
        shape: BodyShape::CubicBlock { n: [12, 12, 12] },
        spacing: l,
        k: 200.0,
        b: 1e-6,
        shell: None,
        bead_mass: 2e-12,
        contact_radius: 0.5 * l,
        material: 0,
        center: [0.0; 3],
    };
    let body = build_body(&spec);
    let mut states = body.states.clone();
    // In reverse order, so the cell order is a real permutation.
    states.reverse();
    let n = states.len() as u32;
    let bonds = BondList::new(
        n as usize,
        body.bonds
            .bonds
            .iter()
            .map(|b| Bond {
                i: n - 1 - b.i,
                j: n - 1 - b.j,
                ..*b
            })
            .collect(),
    );
    for s in &mut states {
        let p = s.position();
        (s.pos_hi, s.pos_lo) = df3_split(p.map(|x| 0.95 * x));
    }
    let params = SphereParams {
        dt: 1e-8,
        skin: (0.05 * l) as f32,
        ..Default::default()
    };
    let make = |sort: bool| {
        let mut sys = CpuSpheres::new(params, states.clone(), no_contact_table(1), Vec::new());
        sys.cell_order_min = if sort { 0 } else { usize::MAX };
        sys.sort_span = 0.0;
        sys.add_extra(Box::new(BeadForces::new(
            bonds.clone(),
            Vec::new(),
            Vec::new(),
            f32::INFINITY,
        )));
        sys
    };
    let (mut plain, mut sorted) = (make(false), make(true));
    for k in [40, 1, 159] {
        plain.steps(k);
        sorted.steps(k);
    }
    let moved = plain
        .states
        .iter()
        .zip(&states)
        .filter(|(s, s0)| s.position() != s0.position())
        .count();
    println!("{n} beads, {} bonds, {moved} moved", bonds.bonds.len());
    assert!(moved > n as usize / 2, "the squeezed block expands");
    assert!(bits(&plain.states) == bits(&sorted.states), "states differ");
    assert!(bits(&plain.forces) == bits(&sorted.forces), "forces differ");
    assert!(
        bits(&plain.extra_force) == bits(&sorted.extra_force),
        "bond forces differ"
    );
    let (a, b) = (
        plain.extra[0].as_any().downcast_ref::<BeadForces>().unwrap(),
        sorted.extra[0].as_any().downcast_ref::<BeadForces>().unwrap(),
    );
    assert!(
        bits(&a.bond_force) == bits(&b.bond_force),
        "the source's records differ"
    );
}

#[test]
fn the_order_kept_between_calls_gives_the_same_bits() {
    // The driver's pattern: many sorted calls in a row. A call without a list build since the
    // last one reuses its permutation and labellings (`sort_cache`); a list built inside a
    // call, or between calls by `step()`, makes the next entry sort afresh. Every path gives
    // the bits of the user order.
    let runs = [40u64, 40, 40, 40];
    // A quiet packing (no shake): no list build in these calls, every entry after the first
    // reuses the order.
    let (p, states, laws, walls) = random_dense(2000);
    let scene = (p, states, laws, walls);
    let mut plain = stepper(&scene, false, None);
    let mut sorted = stepper(&scene, true, None);
    run(&mut plain, &runs);
    run(&mut sorted, &runs);
    assert_same(&plain, &sorted, "quiet packing: kept order vs user order");
    assert_eq!(plain.rebuilds, 1, "the quiet case builds no list inside the calls");
    assert_eq!(sorted.sorts, 1, "one sort, then the kept order");
    // A shaken packing: lists built inside the calls, and between calls by `step()`.
    let scene = shaken(2000, Laws::HertzMindlin);
    let mut plain = stepper(&scene, false, None);
    let mut sorted = stepper(&scene, true, None);
    for sys in [&mut plain, &mut sorted] {
        for q in 0..12 {
            sys.steps(30);
            if q % 4 == 3 {
                for _ in 0..60 {
                    sys.step();
                }
            }
        }
    }
    assert!(plain.rebuilds >= 5, "the shaken case rebuilds ({})", plain.rebuilds);
    assert!(
        sorted.sorts >= 2 && sorted.sorts < 12,
        "some entries sort, some reuse ({} sorts in 12 calls)",
        sorted.sorts
    );
    assert_same(&plain, &sorted, "shaken packing: kept order vs user order");
}
