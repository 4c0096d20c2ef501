//! The 3D cell list (`spheres::cell_list`) against all pairs (the oracle, used only here) on
//! random polydisperse sets, with a fitted grid and with a grid too small for the spheres
//! (clamped border cells), and friction history carried across a rebuild by the key (i, j).

use softdem::spheres::cell_list::{build_neighbor_list, carry_history, fit_grid, is_candidate, NeighborList};
use softdem::spheres::{ContactHistory, SphereParams, SphereState};

/// Deterministic pseudo-random numbers in [0, 1) (splitmix64).
pub struct Rng(pub u64);
impl Rng {
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// n spheres of radius 5–15 mm uniformly in a box of side `side` (overlaps allowed).
pub fn random_spheres(seed: u64, n: usize, side: f64) -> Vec<SphereState> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let p = [rng.uniform() * side, rng.uniform() * side, rng.uniform() * side];
            SphereState::solid(p, 0.005 + 0.01 * rng.uniform(), 1000.0, 0)
        })
        .collect()
}

fn all_pairs(p: &SphereParams, s: &[SphereState]) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for i in 0..s.len() {
        for j in i + 1..s.len() {
            if is_candidate(p, &s[i], &s[j]) {
                v.push((i as u32, j as u32));
            }
        }
    }
    v
}

#[test]
fn cell_list_equals_all_pairs_on_random_polydisperse_sets() {
    for (seed, n, side, skin) in [
        (1u64, 300usize, 0.1, 0.0),
        (2, 2000, 0.3, 0.002),
        (3, 1500, 0.15, 0.005),
    ] {
        let s = random_spheres(seed, n, side);
        let mut p = SphereParams {
            skin,
            ..Default::default()
        };
        fit_grid(&mut p, &s);
        let list = build_neighbor_list(&p, &s);
        let expect = all_pairs(&p, &s);
        assert!(
            expect.len() > n / 2,
            "seed {seed}: too few pairs ({}) to test anything",
            expect.len()
        );
        assert_eq!(list.pairs(), expect, "seed {seed}: cell list differs from all pairs");
        assert_eq!(list.start.len(), n + 1);

        // A grid covering only part of the box: outside spheres are clamped into border cells.
        let mut small = p;
        small.grid_origin = [0.3 * side as f32; 3];
        small.grid_dims = [3, 2, 4];
        small.n_cells = 24;
        assert_eq!(
            build_neighbor_list(&small, &s).pairs(),
            expect,
            "seed {seed}: clamped grid"
        );
    }
}

#[test]
fn history_is_carried_across_a_rebuild_by_key() {
    let mut s = random_spheres(9, 800, 0.15);
    let mut p = SphereParams {
        skin: 0.002,
        ..Default::default()
    };
    fit_grid(&mut p, &s);
    let old = build_neighbor_list(&p, &s);
    let tag = |i: u32, j: u32| ContactHistory {
        tangential: [i as f32, j as f32, 1.0],
        ..Default::default()
    };
    let old_history: Vec<ContactHistory> = old.pairs().iter().map(|&(i, j)| tag(i, j)).collect();
    // Move every sphere by up to 3 mm: some pairs break, some form.
    let mut rng = Rng(5);
    for x in &mut s {
        for k in 0..3 {
            x.pos_hi[k] += (0.006 * (rng.uniform() - 0.5)) as f32;
        }
    }
    fit_grid(&mut p, &s);
    let new = build_neighbor_list(&p, &s);
    let carried = carry_history(&old, &old_history, &new);
    let old_pairs: std::collections::HashSet<(u32, u32)> = old.pairs().into_iter().collect();
    let (mut kept, mut fresh) = (0, 0);
    for (k, &(i, j)) in new.pairs().iter().enumerate() {
        if old_pairs.contains(&(i, j)) {
            assert_eq!(carried[k], tag(i, j), "pair ({i}, {j}) lost its history");
            kept += 1;
        } else {
            assert_eq!(carried[k], ContactHistory::default(), "new pair ({i}, {j}) has history");
            fresh += 1;
        }
    }
    assert!(
        kept > 100 && fresh > 10,
        "kept {kept}, fresh {fresh}: the case tests too little"
    );
    // From an empty list everything starts at zero.
    let c = carry_history(&NeighborList::default(), &[], &new);
    assert!(c.iter().all(|h| *h == ContactHistory::default()));
}
