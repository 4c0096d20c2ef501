//! The partner lists of the body broad phase (fixed-width modal neighbour lists and coupled
//! cell ↔ body lists; CSR lists of the candidates over primitives), seen through one
//! trait so the slot pool (`pool`) and the history remap (`history::carry_pool`) read every
//! layout the same way.

use crate::model::NONE;

/// A partner list per group (a body, a cell or a node): `partner(g, t)` for t < `count(g)`,
/// sorted by partner index.
pub trait FixedLists {
    fn partner(&self, group: usize, t: usize) -> u32;
    /// Partners listed for `group`.
    fn count(&self, group: usize) -> usize;
}

/// Entries before the NONE padding of a fixed-width list.
fn padded_count(width: usize, partner: impl Fn(usize) -> u32) -> usize {
    (0..width).take_while(|&t| partner(t) != NONE).count()
}

/// Plain lists: `partner(g, t) = v[g · width + t]` (modal neighbour lists, coupled lists).
pub struct Plain<'a>(pub &'a [u32], pub usize);

impl FixedLists for Plain<'_> {
    fn partner(&self, g: usize, t: usize) -> u32 {
        self.0[g * self.1 + t]
    }
    fn count(&self, g: usize) -> usize {
        padded_count(self.1, |t| self.partner(g, t))
    }
}

/// CSR lists inside one array whose offsets are absolute indices into it: group g's partners are
/// `v[v[at + g]..v[at + g + 1]]` (the coupled candidates, `coupled::broad_phase::CoupleLists::cand`).
pub struct Csr<'a>(pub &'a [u32], pub usize);

impl FixedLists for Csr<'_> {
    fn partner(&self, g: usize, t: usize) -> u32 {
        self.0[self.0[self.1 + g] as usize + t]
    }
    fn count(&self, g: usize) -> usize {
        (self.0[self.1 + g + 1] - self.0[self.1 + g]) as usize
    }
}
