//! `CpuSpheres::steps` evaluates only the active pairs (`spheres::cpu_stepper::active`: in contact, or
//! with a history to clear; near pairs tested, far ones skipped until a sphere has moved) and
//! gathers only their results: the same bits as `step` one by one, which evaluates every
//! candidate. The case: a shaken lattice with one large sphere whose candidates (> 32) exceed
//! the gather's bit mask (its slot path), gravity with a −0 component (the +0 terms the gather
//! skips), contacts closing, opening and sliding, walls, list and near rebuilds; in the user's
//! order and sorted by cell.

use softdem::spheres::bench_scene::{compressed_lattice, shake};
use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::SphereState;

/// The 8³ bench lattice (a = 19.9 mm, r ≈ 10 mm) with the spheres within 2a of the centre site
/// removed and a sphere of radius 2.3a − 10 mm there (overlapping the 24 spheres at √5 a), a
/// skin of 0.2a (its 48 spheres at √5 a and √6 a are candidates), shaken hard (list rebuilds).
fn case(sorted: bool) -> CpuSpheres {
    let (mut p, states, laws, walls) = compressed_lattice(8);
    let a = 0.0199;
    let centre = states[4 * 64 + 4 * 8 + 4].position();
    let mut kept: Vec<SphereState> = states
        .into_iter()
        .filter(|s| {
            let x = s.position();
            let d2: f64 = (0..3).map(|k| (x[k] - centre[k]).powi(2)).sum();
            d2 > (2.05 * a) * (2.05 * a) || d2 < 1e-12
        })
        .collect();
    let big = kept
        .iter()
        .position(|s| {
            let x = s.position();
            (0..3).all(|k| (x[k] - centre[k]).abs() < 1e-9)
        })
        .unwrap();
    kept[big] = SphereState::solid(centre, 2.3 * a - 0.01, 1000.0, 0);
    p.skin = (0.2 * a) as f32;
    shake(&mut p, &mut kept, 0x9e37_79b9_7f4a_7c15, 3.0, 200.0);
    p.gravity = [-0.0, 0.0, -9.81];
    let mut sys = CpuSpheres::new(p, kept, laws, walls);
    // The active pass at every list build (this dense case has more than half its pairs near).
    sys.active_max_near = 1.0;
    if sorted {
        // Sort by cell at every call of 16 steps or more, whatever the size.
        sys.cell_order_min = 0;
        sys.sort_span = 0.0;
    }
    sys
}

fn assert_same(a: &CpuSpheres, b: &CpuSpheres, what: &str) {
    let differing = a.arrays_differing_in_bits(b);
    assert!(differing.is_empty(), "{what}: {differing:?} differ");
}

#[test]
fn active_pairs_give_the_bits_of_every_candidate() {
    let steps = 900;
    let mut one = case(false);
    let degree_max = (0..one.states.len())
        .map(|s| one.incident_start[s + 1] - one.incident_start[s])
        .max()
        .unwrap();
    assert!(
        degree_max > 32,
        "a sphere gathers through the slots ({degree_max} pairs)"
    );
    let (mut opened, mut closed) = (0, 0);
    let mut touching: Vec<bool> = Vec::new();
    for _ in 0..steps {
        one.step();
        // Contacts opening and closing between steps (pairs in list order, rebuilds aside).
        let now: Vec<bool> = one.pair_out.iter().map(|o| o.f_n > 0.0).collect();
        if now.len() == touching.len() {
            opened += now.iter().zip(&touching).filter(|(n, t)| !**n && **t).count();
            closed += now.iter().zip(&touching).filter(|(n, t)| **n && !**t).count();
        }
        touching = now;
    }
    let contacts = touching.iter().filter(|&&t| t).count();
    println!(
        "{} pairs, {contacts} touching at the end; {opened} opened, {closed} closed; {} rebuilds; largest row {degree_max}",
        one.pair_out.len(),
        one.rebuilds
    );
    assert!(contacts > 50 && opened > 20 && closed > 20 && one.rebuilds > 1);
    for sorted in [false, true] {
        let mut runs = case(sorted);
        for k in [1, 16, 300, 17, 566] {
            runs.steps(k);
        }
        assert_eq!((runs.steps, runs.rebuilds), (one.steps, one.rebuilds));
        assert_same(&one, &runs, if sorted { "cell order" } else { "user order" });
    }
}

/// The sweep's tail on lanes (`cpu_stepper::kick_lanes`: damping, kicks, drift, the rebuild and
/// near checks, eight spheres at a time) against `step`'s scalar passes: the 6³ bench lattice
/// from rest (velocity components exactly zero, `damp`'s v = 0 case) with global and local
/// damping, 216 spheres (27 groups of eight), a call of 40 steps.
#[test]
fn the_lanes_tail_gives_the_bits_of_step_with_damping_from_rest() {
    let make = || {
        let (mut p, states, laws, walls) = compressed_lattice(6);
        p.global_damping = 3.0;
        p.local_damping = 0.3;
        let mut sys = CpuSpheres::new(p, states, laws, walls);
        sys.active_max_near = 1.0;
        sys
    };
    let mut one = make();
    one.step();
    let resting = one.states.iter().filter(|s| s.vel[0] == 0.0 && s.vel[1] == 0.0).count();
    assert!(resting > 20, "{resting} spheres with v_x = v_y = 0 after a step");
    for _ in 1..40 {
        one.step();
    }
    let mut fused = make();
    fused.steps(40);
    assert_eq!(fused.steps, one.steps);
    assert_same(&one, &fused, "steps(40) vs step() 40 times, damped");
}
