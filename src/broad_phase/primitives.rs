//! The second level of the 2D body broad phase: within the body pairs that the bounding circles
//! list (`circles`), the candidates of each contact primitive — a point (a modal surface node,
//! an SPD node) against a level-set body, a point against a sphero-segment
//! (`coupled::broad_phase::couple_candidates`) — so that a contact pass visits the primitives
//! near each other, not every primitive of every listed body. A candidate is a pair within its
//! contact reach + skin at the build; with every point and centre within skin/2 of where it was
//! (`schedule::check_moved`), every contact until the next build is among the candidates.
//!
//! The lists go to the kernels as CSR lists in one `u32` array ([`pack_sections`]): the offsets
//! of every section first (absolute indices into the same array), then the entries, so one
//! storage binding holds several lists (`fixed_lists::Csr` reads one).

use super::fixed_lists::FixedLists;

/// Per point k, the partners of its group's list (`lists`, group `group_of(k)`; `None`: no
/// candidates) within reach: |p_k − X_j| ≤ `reach(k, j)` + skin (f64 of the f32 positions).
pub fn points_near_bodies(
    points: &[[f32; 2]],
    group_of: impl Fn(usize) -> Option<usize>,
    lists: &impl FixedLists,
    centres: &[[f32; 2]],
    reach: impl Fn(usize, u32) -> f64,
    skin: f64,
) -> Vec<Vec<u32>> {
    points
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let Some(g) = group_of(k) else {
                return vec![];
            };
            (0..lists.count(g))
                .map(|t| lists.partner(g, t))
                .filter(|&j| distance(*p, centres[j as usize]) <= reach(k, j) + skin)
                .collect()
        })
        .collect()
}

/// Per partner, the pool slots that point to it, in slot order, for a pool laid out by `lists`:
/// owner k's slots are `fixed` of its own, then one per entry of `lists[k]`, owners in order.
pub fn slots_per_partner(lists: &[Vec<u32>], fixed: usize, n_partners: usize) -> Vec<Vec<u32>> {
    let mut out = vec![vec![]; n_partners];
    let mut slot = 0u32;
    for list in lists {
        slot += fixed as u32;
        for &j in list {
            out[j as usize].push(slot);
            slot += 1;
        }
    }
    out
}

/// CSR sections in one array: every section's offsets (groups + 1 each, absolute indices into
/// the returned array) in order, then every section's entries in order. Section i's offsets
/// start at Σ_{i' < i} (groups_{i'} + 1).
pub fn pack_sections(sections: &[&[Vec<u32>]]) -> Vec<u32> {
    let heads: usize = sections.iter().map(|s| s.len() + 1).sum();
    let entries: usize = sections.iter().flat_map(|s| s.iter().map(Vec::len)).sum();
    let mut out = vec![0u32; heads];
    out.reserve(entries);
    let mut head = 0;
    for lists in sections {
        for (g, list) in lists.iter().enumerate() {
            out[head + g] = out.len() as u32;
            out.extend_from_slice(list);
        }
        out[head + lists.len()] = out.len() as u32;
        head += lists.len() + 1;
    }
    out
}

/// Whether `v` is laid out as [`pack_sections`] lays out sections of `(groups, bound)`: every
/// section's offsets rising within the array, every entry below its section's bound (for
/// arrays read from a checkpoint; the error names what does not fit).
pub fn check_sections(v: &[u32], sections: &[(usize, usize)]) -> Result<(), &'static str> {
    let mut head = 0;
    for &(groups, bound) in sections {
        let offsets = v.get(head..head + groups + 1).ok_or("too short")?;
        if offsets.windows(2).any(|w| w[0] > w[1]) || offsets[groups] as usize > v.len() {
            return Err("offsets");
        }
        if v[offsets[0] as usize..offsets[groups] as usize]
            .iter()
            .any(|&e| e as usize >= bound)
        {
            return Err("entries");
        }
        head += groups + 1;
    }
    Ok(())
}

/// Distance between two f32 points, in f64.
pub fn distance(a: [f32; 2], b: [f32; 2]) -> f64 {
    (a[0] as f64 - b[0] as f64).hypot(a[1] as f64 - b[1] as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broad_phase::fixed_lists::{Csr, Plain};
    use crate::model::NONE;

    /// Two groups; group 0 lists bodies 1 and 2, group 1 body 0. Point 0 (group 0) is in reach of
    /// body 2 only, point 1 (group 0) of both, point 2 (group 1) of body 0, point 3 has no group.
    #[test]
    fn points_list_the_bodies_in_reach_and_the_pool_slots_point_back() {
        let lists = [1, 2, 0, NONE];
        let centres = [[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]];
        let points = [[0.0, 8.5], [5.0, 5.0], [1.0, 0.0], [0.0, 0.0]];
        let near = points_near_bodies(
            &points,
            |k| [Some(0), Some(0), Some(1), None][k],
            &Plain(&lists, 2),
            &centres,
            |_, _| 7.0,
            0.5,
        );
        assert_eq!(near, vec![vec![2], vec![1, 2], vec![0], vec![]]);
        // Pool with one fixed slot per owner: 0: [f, 2], 1: [f, 1, 2], 2: [f, 0], 3: [f].
        let rx = slots_per_partner(&near, 1, 3);
        assert_eq!(rx, vec![vec![6], vec![3], vec![1, 4]]);
        let packed = pack_sections(&[&near, &rx]);
        let (a, b) = (Csr(&packed, 0), Csr(&packed, near.len() + 1));
        for (k, list) in near.iter().enumerate() {
            assert_eq!((0..a.count(k)).map(|t| a.partner(k, t)).collect::<Vec<_>>(), *list);
        }
        for (j, list) in rx.iter().enumerate() {
            assert_eq!((0..b.count(j)).map(|t| b.partner(j, t)).collect::<Vec<_>>(), *list);
        }
    }
}
