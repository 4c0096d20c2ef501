//! Issue 25: no grain is pushed through the patch membrane. The reproducer is the hydrostatic
//! cell with Table 2's membrane friction (μ = 1.2, `cases::hydrostatic_cell`) to 3 ms after
//! the 5 ms ramp: before the fix of Table 1 (a contact is never dropped for a farther one) grain
//! 18 of this packing sank into a pocket of the membrane with only a shallow edge contact of a
//! lower-indexed patch selected (its deep edge contacts dropped by the lower index), reached
//! δ ≈ r at 5.05 ms with 11.8 N on one face, passed the patch plane, and the flipped normal
//! pushed it out (docs/membrane.md, "Grains pushed through the membrane").

use softdem::membrane::cases::{hydrostatic_cell, max_patch_overlap};
use softdem::spheres::precision::df3_split;

#[test]
fn no_grain_passes_the_patch_membrane_under_the_ramp() {
    let (mut cell, _) = hydrostatic_cell(1e5, 1.2, 3.0);
    let n = cell.n_grains;
    let ratio = max_patch_overlap(&cell.sys, n);
    let escaped = cell.escaped();
    println!("{n} grains, {} vertices: escaped {escaped}, largest δ/r {ratio:.3}", cell.n_vertices());
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
