//! The shell forces of a step in structure-of-arrays form, the CPU stepper's form of the
//! `ShellForce` records: `shell_lanes` writes eight nodes' values of a field with one vector
//! store, `node_lanes` reads them with one vector load, and the scalar `node_forces` reads whole
//! records through `ShellRecords`.
//!
//! Layout: chunk-major, so that each of the stepper's chunks of `CHUNK` nodes owns one
//! contiguous slice (the parallel loops hand each chunk its own `&mut`). Inside a chunk, one row
//! per field, padded by `LANES` so that a group of eight may run past the chunk's last node.

use super::node_forces::ShellRecords;
use super::CHUNK;
use crate::model::lanes::{Lanes, LANES};
use crate::model::{NodeState, ShellForce};

/// The fields, in `ShellForce` order.
pub const STRETCH_X: usize = 0;
pub const STRETCH_Y: usize = 1;
pub const PRESSURE_X: usize = 2;
pub const PRESSURE_Y: usize = 3;
pub const BEND_A_X: usize = 4;
pub const BEND_A_Y: usize = 5;
pub const BEND_C_X: usize = 6;
pub const BEND_C_Y: usize = 7;
pub const SEG_REST: usize = 8;
pub const THETA_P: usize = 9;
pub const FIELDS: usize = 10;

/// Shell forces of all nodes.
pub struct ShellColumns {
    data: Vec<f32>,
}

/// Floats per row (one field of one chunk).
const ROW: usize = CHUNK + LANES;

impl ShellColumns {
    pub fn new(n: usize) -> Self {
        ShellColumns {
            data: vec![0.0; n.div_ceil(CHUNK) * FIELDS * ROW],
        }
    }

    /// One `&mut` per chunk, in chunk order, for a parallel loop over the chunks.
    pub fn par_chunks_mut(&mut self) -> rayon::slice::ChunksMut<'_, f32> {
        use rayon::prelude::*;
        self.data.par_chunks_mut(FIELDS * ROW)
    }

    /// Where node x's first field is; field f is `ROW` floats further per field.
    #[inline(always)]
    pub fn node(x: usize) -> usize {
        (x / CHUNK) * FIELDS * ROW + x % CHUNK
    }

    /// Field `field` of the node at `node` (from `node`).
    #[inline(always)]
    pub fn get(&self, node: usize, field: usize) -> f32 {
        self.data[node + field * ROW]
    }

    /// Field `field` of the node at `node` and the seven after it in its chunk (lanes past the
    /// chunk's nodes read the padding).
    #[inline(always)]
    pub fn load<L: Lanes>(&self, node: usize, field: usize) -> L {
        L::load(&self.data[node + field * ROW..])
    }
}

impl ShellRecords for ShellColumns {
    #[inline(always)]
    fn record(&self, x: usize) -> ShellForce {
        // One bounds check for the node's whole column set, so that the fields a caller does not
        // use are not loaded (node_forces reads one field of each neighbour's record).
        let at = ShellColumns::node(x);
        let col = &self.data[at..at + (FIELDS - 1) * ROW + 1];
        let f = |field: usize| col[field * ROW];
        ShellForce {
            stretch: [f(STRETCH_X), f(STRETCH_Y)],
            pressure: [f(PRESSURE_X), f(PRESSURE_Y)],
            bend_a: [f(BEND_A_X), f(BEND_A_Y)],
            bend_c: [f(BEND_C_X), f(BEND_C_Y)],
            seg_rest: f(SEG_REST),
            theta_p: f(THETA_P),
        }
    }
}

/// Writes node j's record (j counted from the chunk's first node) into a chunk's slice.
#[inline(always)]
pub fn put(chunk_data: &mut [f32], j: usize, r: &ShellForce) {
    let row = chunk_data.len() / FIELDS;
    let v = [
        r.stretch[0],
        r.stretch[1],
        r.pressure[0],
        r.pressure[1],
        r.bend_a[0],
        r.bend_a[1],
        r.bend_c[0],
        r.bend_c[1],
        r.seg_rest,
        r.theta_p,
    ];
    for (f, v) in v.into_iter().enumerate() {
        chunk_data[f * row + j] = v;
    }
}

/// Writes the records of wall nodes j … j + old.len() − 1 of a chunk's slice: what
/// `shell_forces` returns for a frozen body (no force; ℓ_p and θ_p of step n kept), field by
/// field.
pub fn put_wall(chunk_data: &mut [f32], j: usize, old: &[NodeState]) {
    let row = chunk_data.len() / FIELDS;
    let n = old.len();
    for f in STRETCH_X..SEG_REST {
        chunk_data[f * row + j..][..n].fill(0.0);
    }
    for (k, s) in old.iter().enumerate() {
        chunk_data[SEG_REST * row + j + k] = s.seg_rest;
        chunk_data[THETA_P * row + j + k] = s.theta_p;
    }
}

/// Writes the lanes of field `field` for nodes j … j + 7 of a chunk's slice (the lanes past the
/// chunk's nodes go to the padding).
#[inline(always)]
pub fn put_lanes<L: Lanes>(chunk_data: &mut [f32], field: usize, j: usize, v: L) {
    let row = chunk_data.len() / FIELDS;
    v.store(&mut chunk_data[field * row + j..]);
}
