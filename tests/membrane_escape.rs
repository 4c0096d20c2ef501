//! Issue 25: no grain is pushed through the patch membrane. The reproducer is the hydrostatic
//! cell with Table 2's membrane friction (μ = 1.2, `cases::hydrostatic_cell`) to 3 ms after
//! the 5 ms ramp: before the fix of Table 1 (a contact is never dropped for a farther one) grain
//! 18 of this packing sank into a pocket of the membrane with only a shallow edge contact of a
//! lower-indexed patch selected (its deep edge contacts dropped by the lower index), reached
//! δ ≈ r at 5.05 ms with 11.8 N on one face, passed the patch plane, and the flipped normal
//! pushed it out (docs/membrane.md, "Grains pushed through the membrane").

use softdem::membrane::cases::{max_patch_overlap, pocket_system};
use softdem::membrane::hydrostatic::hydrostatic_cell;
use softdem::spheres::precision::df3_split;

/// The escape's configuration in one force evaluation (`cases::pocket_system`): a grain
/// (r = 2.5 mm) with two edge contacts on patches sharing only a vertex, the lower-indexed one
/// shallow (δ = 0.1 r, as patch 67's 0.15 mm) and the other deep (δ = 0.7 r, as patch 68's
/// ~1 mm). Neither point lies on the other patch: Table 1 keeps both, each with its Hertz
/// force; the lower-index reading of Table 1 kept only the shallow one (≈ 0.26 N), and the
/// grain sank.
#[test]
fn table_1_keeps_both_points_of_a_pocket() {
    let r: f64 = 2.5e-3;
    let sys = pocket_system();
    let m = &sys.membrane;
    let row: Vec<(u32, u32, f32, [f32; 3])> = (m.list.start[0] as usize..m.list.start[1] as usize)
        .map(|c| {
            (
                m.list.patch[c],
                m.patch_out[c].active,
                m.patch_out[c].f_n,
                m.patch_out[c].force,
            )
        })
        .collect();
    println!("(patch, active, f_n, force): {row:?}");
    assert_eq!(row.len(), 2, "both patches are candidates");
    let deep = row.iter().find(|c| c.0 == 1).unwrap();
    let shallow = row.iter().find(|c| c.0 == 0).unwrap();
    assert_eq!((deep.1, shallow.1), (1, 1), "two separate points: both selected");
    // Hertz of each overlap (r* = r, at rest: no dashpot, no friction), pushing the grain away
    // from its point: (4/3) E* sqrt(r) δ^1.5, 1/E* = Σ (1 − ν²)/E (grain, membrane). The deep
    // one (δ = 0.7 r, along −y) is the one the lower-index reading dropped.
    let e_star = 1.0 / ((1.0 - 0.245f64.powi(2)) / 4.6e10 + (1.0 - 1.0 / 9.0) / 1.25e6);
    let hertz = |d: f64| 4.0 / 3.0 * e_star * r.sqrt() * (d * r).powf(1.5);
    for (c, d, axis) in [(deep, 0.7, 1), (shallow, 0.1, 0)] {
        let h = hertz(d);
        assert!(((c.2 as f64) / h - 1.0).abs() < 1e-3, "f_n {} vs Hertz {h}", c.2);
        assert!((c.3[axis] as f64 + h).abs() < 1e-3 * h, "force {:?}", c.3);
    }
}

#[test]
fn no_grain_passes_the_patch_membrane_under_the_ramp() {
    let (mut cell, _) = hydrostatic_cell(1e5, 1.2, 3.0);
    let n = cell.n_grains;
    let ratio = max_patch_overlap(&cell.sys, n);
    let escaped = cell.escaped();
    println!(
        "{n} grains, {} vertices: escaped {escaped}, largest δ/r {ratio:.3}",
        cell.n_vertices()
    );
    assert_eq!(escaped, 0, "a grain passed the membrane");
    // The zero-thickness patch is passed at δ = r; the selected contacts stay far from it.
    assert!(ratio < 0.6, "largest patch overlap δ/r = {ratio:.3}");
    // The count can fail: a grain put 2 mm outside the membrane at its height is counted.
    let x = cell.sys.spheres.states[0].position();
    let r_out = cell
        .sys
        .vertex_positions()
        .iter()
        .map(|v| v[0].hypot(v[1]))
        .fold(0.0, f64::max);
    let k = (r_out + 2e-3) / x[0].hypot(x[1]);
    (cell.sys.spheres.states[0].pos_hi, cell.sys.spheres.states[0].pos_lo) = df3_split([x[0] * k, x[1] * k, x[2]]);
    assert_eq!(cell.escaped(), 1);
}
