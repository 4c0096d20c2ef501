//! The fixed-order parallel reduction of a wall's or plane's total force: the CPU twin of
//! `shaders/fixed_reduce.wgsl` (one workgroup of [`REDUCE_LANES`] invocations per wall). Each lane
//! brings one partial; [`reduce_tree`] adds them by a fixed binary tree. The order depends only on
//! the item count, never on the device or on how many workgroups run at once, so the CPU and GPU
//! twins give the same bits; it is not the serial order, so the bits differ from a serial sum in
//! the last places (bounded in tests/fixed_reduce.rs against f64 sums).
//!
//! Two ways to give the lanes their items, both with this tree:
//! - [`strided_reduce`]: lane t takes items t, t + L, t + 2L, … (L = 256) in increasing order —
//!   the plane force of bonded beads (`plane_gather`, src/beads/forces.rs) and the modal wall force
//!   (`modal_wall_force`, src/modal/cpu.rs). Their items are every bead / surface node, a fixed
//!   list, so a resumed run sums in the uninterrupted run's order. Adjacent lanes read adjacent
//!   records (coalesced on a GPU).
//! - rank blocks over the candidates that carry a force: the sphere walls (src/spheres/wall_reduce.rs),
//!   whose candidate list depends on when it was built.

use rayon::prelude::*;

/// Lanes per reduction: the workgroup size of the kernels that use `fixed_reduce.wgsl`.
pub const REDUCE_LANES: usize = 256;

/// Items from which the lanes of [`strided_reduce`] run on rayon (same bits either way).
const PAR_ITEMS: usize = 1 << 14;

/// The lanes' partials added by the fixed binary tree: stride 128, 64, …, 1,
/// p[i] = p[i] + p[i + stride]; returns p[0]. Twin of `reduce_tree1` / `reduce_tree2`.
pub fn reduce_tree<T: Copy>(p: &mut [T; REDUCE_LANES], add: impl Fn(T, T) -> T) -> T {
    let mut stride = REDUCE_LANES / 2;
    while stride > 0 {
        for i in 0..stride {
            p[i] = add(p[i], p[i + stride]);
        }
        stride /= 2;
    }
    p[0]
}

/// Lane t's partial: `fold` over items t, t + L, t + 2L, … < n in increasing order from `zero`.
pub fn strided_lane<T: Copy>(t: usize, n: usize, zero: T, fold: impl Fn(T, usize) -> T) -> T {
    (t..n).step_by(REDUCE_LANES).fold(zero, fold)
}

/// The strided reduction of n items: [`strided_lane`] for each lane, then [`reduce_tree`].
/// `fold(acc, i)` adds item i's term to a lane's partial (or returns it unchanged for an item
/// that carries nothing), `add` adds two partials.
pub fn strided_reduce<T: Copy + Send + Sync>(
    n: usize,
    zero: T,
    fold: impl Fn(T, usize) -> T + Sync,
    add: impl Fn(T, T) -> T,
) -> T {
    let mut p = [zero; REDUCE_LANES];
    if n >= PAR_ITEMS {
        p.par_iter_mut()
            .enumerate()
            .for_each(|(t, x)| *x = strided_lane(t, n, zero, &fold));
    } else {
        for (t, x) in p.iter_mut().enumerate() {
            *x = strided_lane(t, n, zero, &fold);
        }
    }
    reduce_tree(&mut p, add)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integer-valued terms (sums below 2²⁴) add exactly in any order: every item is taken once,
    /// for counts below, at and above the lanes and across the parallel threshold.
    #[test]
    fn strided_reduce_takes_every_item_once() {
        for n in [0usize, 1, 5, 255, 256, 257, 1000, PAR_ITEMS - 1, PAR_ITEMS + 3] {
            let got = strided_reduce(
                n,
                [0.0f32; 2],
                |a, i| [a[0] + (i % 97) as f32, a[1] - 1.0],
                |a, b| [a[0] + b[0], a[1] + b[1]],
            );
            let s: u64 = (0..n as u64).map(|i| i % 97).sum();
            assert_eq!(got, [s as f32, -(n as f32)], "n = {n}");
        }
    }

    /// The order is the stated one: lane partials in increasing item order, then the tree. Built
    /// here by hand for 600 items of non-exact terms and compared bit for bit, with the serial
    /// and the parallel path (the threshold crossed by repeating the terms).
    #[test]
    fn strided_reduce_follows_the_stated_order() {
        let term = |i: usize| ((i as f32 * 0.618_034).fract() - 0.5) * (1.0 + (i % 13) as f32 * 1e3);
        for n in [600usize, PAR_ITEMS + 77] {
            let mut lanes = [0.0f32; REDUCE_LANES];
            for (t, l) in lanes.iter_mut().enumerate() {
                let mut i = t;
                while i < n {
                    *l -= term(i);
                    i += REDUCE_LANES;
                }
            }
            let mut stride = REDUCE_LANES / 2;
            while stride > 0 {
                for i in 0..stride {
                    lanes[i] += lanes[i + stride];
                }
                stride /= 2;
            }
            let got = strided_reduce(n, 0.0f32, |a, i| a - term(i), |a, b| a + b);
            assert_eq!(got.to_bits(), lanes[0].to_bits(), "n = {n}");
        }
    }
}
