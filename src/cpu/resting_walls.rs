//! Wall nodes at rest: the CPU stepper's passes skip them while nothing acts on them, so that a
//! wall drawn with many segments costs what the nodes touching it cost, not a pass over all of
//! its nodes every step (docs/performance.md, *Walls on the CPU*).
//!
//! A node of a frozen body with both velocity components imposed at +0 and no cohesive link is
//! *at rest* when its position is a fixed point of the drift (x + Δt·(+0) = x in double-f32, bit
//! for bit; checked here, not assumed). Every step then writes the same record for it: integrate
//! the same position and v = +0; shell_forces no force and the plastic state it had; node_forces
//! v = +0 and f = +0 (no shell force, no external force on a wall), unless a contact acts on it
//! this step (a gather mark). The state is ping-pong (step n reads one side and writes the
//! other, the side step n − 2 wrote), so a pass may leave a node's record as it is when the
//! record already holds what the pass would write:
//! - integrate and shell_forces: once the node has been through two steps since it came to rest
//!   (both sides and its shell columns then hold the fixed point);
//! - node_forces: in addition, no contact acts on it this step and none did two steps ago, when
//!   its other side was written (its force there is +0). `quiet2` below asks for the last two
//!   steps, which is simpler and covers it. In the coupled stepper a node that a modal body
//!   pushes counts as one a contact acts on.
//!
//! The displacement the rebuild test takes the maximum of is, for a node at rest, the same value
//! every step until the next build (|x − x_ref| with x fixed); `disp` holds their maximum and the
//! stepper folds it into each step's, so the maximum, the build steps and the saved state are
//! those of a run that skips nothing. The stepper classifies the nodes again whenever the
//! boundary conditions or the state are set from outside (a stage, a resume), which also clears
//! `quiet1`/`quiet2`.

use super::integrate::drift;
use super::node_lanes::modal_acts;
use super::CHUNK;
use crate::model::*;
use rayon::prelude::*;

/// The nodes at rest and how long nothing has acted on them.
#[derive(Default)]
pub struct RestingWalls {
    /// Bit x: node x is at rest (see the module doc).
    at_rest: Vec<u32>,
    /// Bit x: no contact acted on node x in the last step; in the last two steps.
    quiet1: Vec<u32>,
    quiet2: Vec<u32>,
    /// `at_rest & quiet2`: the nodes integrate and shell_forces skip this step, and node_forces
    /// skips where no gather mark is set.
    skip: Vec<u32>,
    /// The coupled stepper's step: the nodes a modal body pushes (`modal_acts`), which count as
    /// marked, and `skip` without them (what the node pass skips besides the gather marks).
    modal_acting: Vec<u32>,
    node_skip: Vec<u32>,
    /// The largest build displacement of the nodes at rest (f32::max from 0, as the passes).
    pub disp: f32,
    /// Whether any node is at rest (the bit masks are empty otherwise).
    any: bool,
    /// Off: no node is ever at rest (the reference of the tests).
    off: bool,
}

impl RestingWalls {
    /// Finds the nodes at rest in `state` (step n's side) and clears the counts of quiet steps.
    #[allow(clippy::too_many_arguments)]
    pub fn classify(
        &mut self,
        p: &SimParams,
        nodes: &[NodeRecord],
        bcs: &[NodeBc],
        bodies: &[Body],
        link_start: &[u32],
        link_list: &[u32],
        state: &[NodeState],
        x_ref: &[[f32; 2]],
    ) {
        let n = nodes.len();
        let words = n.div_ceil(32);
        self.at_rest = vec![0; words];
        self.any = false;
        for (x, nd) in nodes.iter().enumerate().filter(|_| !self.off) {
            let frozen = bodies[nd.body as usize].flags & BODY_FROZEN != 0;
            let linked = !link_list.is_empty() && link_start[x] != link_start[x + 1];
            let imposed_zero = nd.bc != NONE && {
                let c = bcs[nd.bc as usize];
                c.mode & (BC_VX | BC_VY) == BC_VX | BC_VY && c.velocity.map(f32::to_bits) == [0, 0]
            };
            if frozen && !linked && imposed_zero && fixed_point(p.dt, &state[x]) {
                self.at_rest[x >> 5] |= 1 << (x & 31);
                self.any = true;
            }
        }
        self.quiet1 = vec![0; words];
        self.quiet2 = vec![0; words];
        self.skip = if self.any { vec![0; words] } else { vec![] };
        self.set_displacement(p, state, x_ref);
    }

    /// `disp` for the build positions `x_ref` (after a build, and at `classify`).
    pub fn set_displacement(&mut self, p: &SimParams, state: &[NodeState], x_ref: &[[f32; 2]]) {
        self.disp = 0.0;
        if !self.any {
            return;
        }
        for (w, &bits) in self.at_rest.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                let x = w * 32 + b.trailing_zeros() as usize;
                let s = &state[x];
                let (_, _, d) = drift(p.dt, s.pos_hi, s.pos_lo, [0.0, 0.0], x_ref[x]);
                self.disp = self.disp.max(d);
                b &= b - 1;
            }
        }
    }

    /// What the node pass may skip besides the gather marks: `skip`, less (in the coupled
    /// stepper) the nodes a modal body pushes this step, which `after_node_pass` then counts as
    /// marked (their record's force is not +0).
    /// (`prepare_node_pass` sets it up for the step.)
    pub fn node_pass_skip(&self) -> &[u32] {
        if self.modal_acting.is_empty() {
            &self.skip
        } else {
            &self.node_skip
        }
    }

    /// Before a step's node pass, with the coupled stepper's modal forces (`None` without).
    pub fn prepare_node_pass(&mut self, modal: Option<&[[f32; 2]]>) {
        self.modal_acting.clear();
        let Some(m) = modal.filter(|_| self.any) else {
            return;
        };
        self.modal_acting.resize(self.skip.len(), 0);
        self.node_skip.resize(self.skip.len(), 0);
        // One word per 32 nodes, the stepper's chunks in parallel.
        m.par_chunks(CHUNK)
            .zip(self.modal_acting.par_chunks_mut(CHUNK / 32))
            .zip(self.node_skip.par_chunks_mut(CHUNK / 32))
            .zip(self.skip.par_chunks(CHUNK / 32))
            .for_each(|(((forces, acting), node_skip), skip)| {
                for (w, f32s) in forces.chunks(32).enumerate() {
                    let a = f32s
                        .iter()
                        .enumerate()
                        .fold(0u32, |a, (l, &f)| a | (modal_acts(f) as u32) << l);
                    acting[w] = a;
                    node_skip[w] = skip[w] & !a;
                }
            });
    }

    /// After a step's node pass, whose gather marks are `gather_marks`.
    pub fn after_node_pass(&mut self, gather_marks: &[u32]) {
        if !self.any {
            return;
        }
        for (w, &g) in gather_marks.iter().enumerate() {
            let m = g | self.modal_acting.get(w).copied().unwrap_or(0);
            self.quiet2[w] = self.quiet1[w] & !m;
            self.quiet1[w] = !m;
            self.skip[w] = self.at_rest[w] & self.quiet2[w];
        }
    }

    /// The nodes the passes may skip this step, one bit per node (empty: none).
    pub fn skip(&self) -> &[u32] {
        &self.skip
    }

    /// Never finds a node at rest (from the next `classify` on): every pass runs on every node.
    pub fn turn_off(&mut self) {
        self.off = true;
    }
}

/// Whether node state `s` stays where it is, bit for bit, under integrate's drift at v = +0.
fn fixed_point(dt: f32, s: &NodeState) -> bool {
    let (hi, lo, _) = drift(dt, s.pos_hi, s.pos_lo, [0.0, 0.0], [0.0, 0.0]);
    hi.map(f32::to_bits) == s.pos_hi.map(f32::to_bits) && lo.map(f32::to_bits) == s.pos_lo.map(f32::to_bits)
}

/// Bit x of a node mask (false past its end, so an empty mask skips nothing).
#[inline(always)]
pub fn bit(mask: &[u32], x: usize) -> bool {
    mask.get(x >> 5).is_some_and(|w| w >> (x & 31) & 1 != 0)
}

/// Whether the eight bits x … x + 7 of a node mask are all set.
#[inline(always)]
pub fn eight_set(mask: &[u32], x: usize) -> bool {
    let w = x >> 5;
    let Some(&lo) = mask.get(w) else {
        return false;
    };
    let hi = mask.get(w + 1).copied().unwrap_or(0);
    ((lo as u64 | (hi as u64) << 32) >> (x & 31)) as u8 == 0xff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_bits_read_across_words() {
        let mask = [0xff00_0000u32, 0x0000_00ff, 0xffff_ffff];
        assert!(eight_set(&mask, 24) && eight_set(&mask, 28) && eight_set(&mask, 32));
        assert!(!eight_set(&mask, 23) && !eight_set(&mask, 33));
        assert!(eight_set(&mask, 64) && eight_set(&mask, 88) && !eight_set(&mask, 89));
        assert!(bit(&mask, 24) && !bit(&mask, 23) && bit(&mask, 95) && !bit(&mask, 96));
        assert!(!bit(&[], 0) && !eight_set(&[], 0));
    }
}
