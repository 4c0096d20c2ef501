//! The fixed-width partner lists of the body broad phase (modal neighbour lists, the coupled
//! lists), seen through one trait so the slot pool (`pool`) and the history remap
//! (`history::carry_pool`) read every layout the same way.

use crate::model::NONE;

/// A fixed-width partner list per group (a body or a cell): `partner(g, t)` for t < `width`,
/// sorted by partner index, NONE-padded.
pub trait FixedLists {
    fn width(&self) -> usize;
    fn partner(&self, group: usize, t: usize) -> u32;
    /// Partners listed for `group` (the entries before the NONE padding).
    fn count(&self, group: usize) -> usize {
        (0..self.width())
            .take_while(|&t| self.partner(group, t) != NONE)
            .count()
    }
}

/// Plain lists: `partner(g, t) = v[g · width + t]` (modal neighbour lists).
pub struct Plain<'a>(pub &'a [u32], pub usize);

impl FixedLists for Plain<'_> {
    fn width(&self) -> usize {
        self.1
    }
    fn partner(&self, g: usize, t: usize) -> u32 {
        self.0[g * self.1 + t]
    }
}

/// Interleaved lists (partner, index in the partner's list): `partner(g, t) = v[2 (g · width + t)]`
/// (the coupled lists).
pub struct Interleaved<'a>(pub &'a [u32], pub usize);

impl FixedLists for Interleaved<'_> {
    fn width(&self) -> usize {
        self.1
    }
    fn partner(&self, g: usize, t: usize) -> u32 {
        self.0[2 * (g * self.1 + t)]
    }
}
