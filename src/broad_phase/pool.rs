//! The one slot pool of the 2D body contacts: every owner's contact slots (an owner is a surface
//! node; a slot holds one listed pair's force and friction history) in one array, owner o's at
//! `slots[start[o]..start[o + 1]]` (CSR offsets, as the SPD lists' `start`). An owner has
//! `fixed` slots of its own first (the modal walls), then one slot per entry of its group's list
//! (its body's neighbours, in list order), so a slot costs memory only where a partner is listed
//! (the fixed-width arrays it replaced kept MAX_NB slots per node, most of them empty).
//! The kernels address a slot as `start[o] + fixed + t` (t: the partner's place in the list); the
//! history remap between lists is `history::carry_pool`.

use super::fixed_lists::FixedLists;

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

    /// Every owner's slots, mutable, in owner order (for a parallel pass over the owners), each
    /// with the pool index of its first slot.
    pub fn per_owner_mut(&mut self) -> Vec<(usize, &mut [S])> {
        let mut out = Vec::with_capacity(self.owners());
        let mut rest = self.slots.as_mut_slice();
        for w in self.start.windows(2) {
            let (a, b) = rest.split_at_mut((w[1] - w[0]) as usize);
            out.push((w[0] as usize, a));
            rest = b;
        }
        out
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
        for (o, (_, s)) in p.per_owner_mut().into_iter().enumerate() {
            s.iter_mut().for_each(|v| *v = o as u32 + 1);
        }
        assert_eq!(p.of(1), &[2, 2, 2]);
        assert_eq!(p.of(2), &[3]);
        assert_eq!(p.bytes(), 7 * 4 + 4 * 4);
    }
}
