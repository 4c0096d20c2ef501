//! The one slot pool of the 2D body contacts: every owner's contact slots (an owner is a surface
//! node; a slot holds one listed pair's force and friction history) in one array, owner o's at
//! `slots[start[o]..start[o + 1]]` (CSR offsets, as the SPD lists' `start`). An owner has
//! `fixed` slots of its own first (the modal walls), then one slot per entry of its group's list
//! (its body's neighbours, in list order), so a slot costs memory only where a partner is listed
//! (the fixed-width arrays it replaced kept MAX_NB slots per node, most of them empty).
//! The kernels address a slot as `start[o] + fixed + t` (t: the partner's place in the list); the
//! history remap between lists is `history::carry_pool`.

use super::fixed_lists::FixedLists;

/// Owners per task of `par_for_each_owner`.
const OWNERS_PER_TASK: usize = 256;

/// Slots of every owner, addressed through CSR offsets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotPool<S> {
    /// Owner o's slots are `slots[start[o]..start[o + 1]]`; `start.len()` = owners + 1.
    pub start: Vec<u32>,
    pub slots: Vec<S>,
}

impl<S: Copy + Default> SlotPool<S> {
    /// Empty slots, `count` of them for each owner in order.
    pub fn with_counts(counts: impl IntoIterator<Item = usize>) -> SlotPool<S> {
        let mut start = vec![0u32];
        for c in counts {
            start.push(start[start.len() - 1] + c as u32);
        }
        let n = start[start.len() - 1] as usize;
        SlotPool {
            start,
            slots: vec![S::default(); n],
        }
    }

    /// The layout of owners `(k, g)` (every owner, in order): `fixed` slots, then one per listed
    /// partner of group g (`lists.count(g)`); every slot empty.
    pub fn for_lists(owners: impl IntoIterator<Item = (usize, usize)>, fixed: usize, lists: &impl FixedLists) -> Self {
        SlotPool::with_counts(owners.into_iter().map(|(_, g)| fixed + lists.count(g)))
    }

    pub fn owners(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Owner o's slots.
    pub fn of(&self, o: usize) -> &[S] {
        &self.slots[self.start[o] as usize..self.start[o + 1] as usize]
    }

    /// `f(owner, its first slot's pool index, its slots)` for every owner, in parallel over runs
    /// of `OWNERS_PER_TASK` owners (each run's slots one slice of the pool, split per owner
    /// inside the run), so a step's pass costs no per-owner bookkeeping on one thread: the
    /// coupled stepper calls it on every SPD node each step, most of them owning no slot.
    pub fn par_for_each_owner(&mut self, f: impl Fn(usize, usize, &mut [S]) + Sync)
    where
        S: Send,
    {
        use rayon::prelude::*;
        let owners = self.owners();
        let mut runs = Vec::with_capacity(owners.div_ceil(OWNERS_PER_TASK));
        let mut rest = self.slots.as_mut_slice();
        for o0 in (0..owners).step_by(OWNERS_PER_TASK) {
            let o1 = (o0 + OWNERS_PER_TASK).min(owners);
            let (run, b) = rest.split_at_mut((self.start[o1] - self.start[o0]) as usize);
            runs.push((o0, o1, run));
            rest = b;
        }
        let start = &self.start;
        runs.into_par_iter().for_each(|(o0, o1, mut run)| {
            for o in o0..o1 {
                let (own, after) = run.split_at_mut((start[o + 1] - start[o]) as usize);
                f(o, start[o] as usize, own);
                run = after;
            }
        });
    }

    /// Bytes held: the slots and the offsets.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<S>() + self.start.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixed_lists::Plain;
    use super::*;
    use crate::model::NONE;

    #[test]
    fn owners_get_their_walls_and_one_slot_per_listed_partner() {
        // Group 0 lists 2 partners, group 1 none; owners 0, 1 in group 0, owner 2 in group 1.
        let lists = [4, 7, NONE, NONE, NONE, NONE];
        let mut p: SlotPool<u32> = SlotPool::for_lists([(0, 0), (1, 0), (2, 1)], 1, &Plain(&lists, 3));
        assert_eq!(p.start, vec![0, 3, 6, 7]);
        assert_eq!(p.owners(), 3);
        p.par_for_each_owner(|o, first, s| s.iter_mut().for_each(|v| *v = 10 * o as u32 + first as u32));
        assert_eq!(p.slots, vec![0, 0, 0, 13, 13, 13, 26]);
        assert_eq!(p.bytes(), 7 * 4 + 4 * 4);
    }

    /// Every owner once, with its own slots and first index, across the runs of
    /// `OWNERS_PER_TASK` owners (owners without slots among them).
    #[test]
    fn par_for_each_owner_visits_every_owner_once() {
        let counts: Vec<usize> = (0..1000).map(|o| (o * 7) % 5).collect();
        let mut p: SlotPool<u32> = SlotPool::with_counts(counts.iter().copied());
        p.par_for_each_owner(|o, first, s| {
            assert_eq!(first, p_start(&counts, o));
            s.iter_mut().for_each(|v| *v += o as u32 + 1);
        });
        for o in 0..1000 {
            assert!(p.of(o).iter().all(|&v| v == o as u32 + 1), "owner {o}");
        }
    }

    fn p_start(counts: &[usize], o: usize) -> usize {
        counts[..o].iter().sum()
    }
}
