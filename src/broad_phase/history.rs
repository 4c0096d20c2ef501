//! The one history remap: when a contact list is rebuilt, each pair still listed takes over the
//! slot (friction history) it had in the previous list, found by its partner's index in the
//! previous sorted list; a pair no longer listed is dropped, a new pair starts empty.
//!
//! Lists of every kind are sorted by partner index (NONE-padded at the end for fixed widths, and
//! NONE = u32::MAX sorts last), so one binary search ([`find_sorted`]) serves all of them:
//! - the CSR lists of SPD nodes ([`carry_slot_index`]; the slot is an index into the pool, WGSL
//!   twin: `neighbor_fill` in shaders/broad_phase.wgsl), and the mirror entries of SPD node pairs
//!   (`cpu::node_forces::mirror_entries`, WGSL `mirror_entries` in node_forces.wgsl);
//! - the fixed-width lists of modal bodies and of the coupled pairs, whose slots are one pool per
//!   kind of slot with CSR offsets per owner node ([`carry_pool`]; laid out and remapped on the
//!   host between batches for both backends).

use super::fixed_lists::FixedLists;
/// The list views, re-exported where the remap's callers have always found them.
pub use super::fixed_lists::{Csr, Plain};
use super::pool::SlotPool;
use crate::model::{Entry, NONE, NO_SLOT};

/// Index of `target` among the sorted keys `key(lo..hi)`, or `NONE` (binary search; twin of WGSL
/// `find_sorted` in shaders/history.wgsl, which reads the key of entry i from its importer's
/// `sorted_key(i)`).
#[inline]
pub fn find_sorted(lo: u32, hi: u32, target: u32, key: impl Fn(usize) -> u32) -> u32 {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let v = key(mid as usize);
        if v == target {
            return mid;
        }
        if v < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    NONE
}

/// Contact slot (in the pool of the previous step, which holds the friction history) of SPD node
/// x's new entries (`neighbors`, sorted), carried over from the previous CSR list (`old_start`,
/// `old_entries`, `old_index`); `NO_SLOT` for a new pair. The second half of WGSL `neighbor_fill`.
#[inline]
pub fn carry_slot_index(
    x: usize,
    old_start: &[u32],
    old_entries: &[Entry],
    old_index: &[u32],
    neighbors: &[u32],
    out_index: &mut [u32],
) {
    for (i, &d) in out_index.iter_mut().zip(neighbors) {
        let old = find_sorted(old_start[x], old_start[x + 1], d, |k| old_entries[k].neighbor);
        *i = if old != NONE { old_index[old as usize] } else { NO_SLOT };
    }
}

/// The pool after a rebuild (`super::pool`): owner k of group g (`owners`: every owner, in
/// order) gets its `fixed` slots, kept, then one slot per entry of g's new list, which takes the
/// slot of the same partner in the old list (history included; found by [`find_sorted`]) or
/// starts empty.
pub fn carry_pool<S: Copy + Default>(
    old: &SlotPool<S>,
    owners: impl IntoIterator<Item = (usize, usize)>,
    fixed: usize,
    old_l: &impl FixedLists,
    new_l: &impl FixedLists,
) -> SlotPool<S> {
    let owners: Vec<(usize, usize)> = owners.into_iter().collect();
    let mut out = SlotPool::for_lists(owners.iter().copied(), fixed, new_l);
    for &(k, g) in &owners {
        let (from, to) = (old.start[k] as usize, out.start[k] as usize);
        out.slots[to..to + fixed].copy_from_slice(&old.slots[from..from + fixed]);
        let n_old = old_l.count(g) as u32;
        for t in 0..new_l.count(g) {
            let u = find_sorted(0, n_old, new_l.partner(g, t), |u| old_l.partner(g, u));
            if u != NONE {
                out.slots[to + fixed + t] = old.slots[from + fixed + u as usize];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wall slot is kept, a partner's slot follows it to its new place,
    /// a partner that left is dropped and a new one starts empty; owners of a group with a
    /// longer list get more slots, the pool shrinks where lists shrink.
    #[test]
    fn pool_carries_history_with_the_partner() {
        // Group 0 listed [1, 2] before, [0, 1] now; group 1 listed [3] before, nothing now.
        let old_l = [1, 2, NONE, 3, NONE, NONE];
        let new_l = [0, 1, NONE, NONE, NONE, NONE];
        let owners = [(0, 0), (1, 0), (2, 1)];
        let mut old: SlotPool<(u32, f32)> = SlotPool::for_lists(owners, 1, &Plain(&old_l, 3));
        assert_eq!(old.start, vec![0, 3, 6, 8]);
        old.slots = vec![
            (9, 0.5),
            (1, 10.0),
            (2, 20.0),
            (9, 1.5),
            (1, 11.0),
            (2, 21.0),
            (9, 2.5),
            (3, 30.0),
        ];
        let new = carry_pool(&old, owners, 1, &Plain(&old_l, 3), &Plain(&new_l, 3));
        assert_eq!(new.start, vec![0, 3, 6, 7]);
        assert_eq!(
            new.slots,
            vec![(9, 0.5), (0, 0.0), (1, 10.0), (9, 1.5), (0, 0.0), (1, 11.0), (9, 2.5)]
        );
    }

    #[test]
    fn find_sorted_finds_every_key_and_only_those() {
        let keys = [2u32, 3, 7, 11, NONE, NONE];
        for (i, &k) in keys[..4].iter().enumerate() {
            assert_eq!(find_sorted(0, 6, k, |u| keys[u]), i as u32);
        }
        for k in [0, 4, 12] {
            assert_eq!(find_sorted(0, 6, k, |u| keys[u]), NONE);
        }
    }
}
