//! Bonds between beads: the bond list, each bead's incident bonds as CSR (so a bead gathers its
//! bonds in one fixed order: no float atomics, bit-identical reruns), the bond pass (one
//! Kelvin–Voigt force per bond, `laws::kelvin_voigt`, eq 3) and breakage.
//!
//! **Breakage (stated law).** A bond breaks, for good, at the first force evaluation where its
//! stretch X/l₀ exceeds `break_stretch` (tension only; `f32::INFINITY` = unbreakable). From that
//! evaluation on it carries no force. The break is recorded in the bond (`broken_step`, 1-based
//! evaluation count, and the stretch seen), so the log — the 3D twin of the 2D `breaks.csv` —
//! is the list of broken bonds ordered by (evaluation, bond index), identical on CPU and GPU.

use crate::laws::kelvin_voigt::kelvin_voigt_force;
use crate::laws::vec3::V3;
use crate::spheres::precision::df3_sub;
use crate::spheres::SphereState;
use bytemuck::{Pod, Zeroable};

/// One bond (32 bytes, `Bond` in `shaders/beads.wgsl`): beads i < j, rest length l₀, spring k,
/// dashpot b (0: elastic), and its break record.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Bond {
    pub i: u32,
    pub j: u32,
    pub rest: f32,
    pub k: f32,
    pub b: f32,
    /// 0 while intact; else the force evaluation (1-based) at which it broke.
    pub broken_step: u32,
    /// Stretch X/l₀ at the break (0 while intact).
    pub break_stretch: f32,
    pub _pad: u32,
}

/// One line of the break log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreakEvent {
    /// Force evaluation, 1-based: evaluation 1 is the initial one (time 0), evaluation e is at
    /// time (e − 1) Δt (`BeadForces::evaluations`).
    pub evaluation: u32,
    pub bond: u32,
    pub i: u32,
    pub j: u32,
    pub stretch: f32,
}

impl BreakEvent {
    pub const CSV_HEADER: &'static str = "evaluation,time,bond,i,j,stretch";

    /// One CSV row (time = evaluation index × Δt, the time of that force evaluation).
    pub fn csv_row(&self, dt: f64) -> String {
        format!(
            "{},{:.9e},{},{},{},{:.6e}",
            self.evaluation,
            (self.evaluation - 1) as f64 * dt,
            self.bond,
            self.i,
            self.j,
            self.stretch
        )
    }
}

/// The bonds of a body and each bead's incident bonds (CSR, bond order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BondList {
    pub bonds: Vec<Bond>,
    /// Per bead b, its bonds are `incident[start[b]..start[b + 1]]`, entries bond << 1 | 1 when
    /// the bead is the bond's j, in bond order.
    pub start: Vec<u32>,
    pub incident: Vec<u32>,
}

impl BondList {
    /// Bonds (i ≠ j, any order; stored with i < j) among `n_beads` beads, CSR built by
    /// count → scan → fill.
    pub fn new(n_beads: usize, mut bonds: Vec<Bond>) -> BondList {
        for b in &mut bonds {
            assert!(b.i != b.j, "bond of a bead to itself ({})", b.i);
            assert!(
                (b.i.max(b.j) as usize) < n_beads,
                "bond {}–{} past {n_beads} beads",
                b.i,
                b.j
            );
            if b.i > b.j {
                std::mem::swap(&mut b.i, &mut b.j);
            }
        }
        let mut count = vec![0u32; n_beads + 1];
        for b in &bonds {
            count[b.i as usize] += 1;
            count[b.j as usize] += 1;
        }
        let total = crate::cpu::scan::prefix_scan(&mut count[..n_beads]);
        count[n_beads] = total;
        let mut cursor = count.clone();
        let mut incident = vec![0u32; total as usize];
        for (k, b) in bonds.iter().enumerate() {
            incident[cursor[b.i as usize] as usize] = (k as u32) << 1;
            cursor[b.i as usize] += 1;
            incident[cursor[b.j as usize] as usize] = ((k as u32) << 1) | 1;
            cursor[b.j as usize] += 1;
        }
        BondList {
            bonds,
            start: count,
            incident,
        }
    }

    pub fn len(&self) -> usize {
        self.bonds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bonds.is_empty()
    }

    pub fn n_beads(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Whether beads a and b share a bond (binary search is not possible in CSR bond order, so a
    /// scan of a's few bonds).
    pub fn bonded(&self, a: u32, b: u32) -> bool {
        let s = self.start[a as usize] as usize..self.start[a as usize + 1] as usize;
        self.incident[s].iter().any(|&e| {
            let bond = &self.bonds[(e >> 1) as usize];
            bond.i == b || bond.j == b
        })
    }

    /// The break log: broken bonds ordered by (evaluation, bond index).
    pub fn break_log(&self) -> Vec<BreakEvent> {
        let mut log: Vec<BreakEvent> = self
            .bonds
            .iter()
            .enumerate()
            .filter(|(_, b)| b.broken_step != 0)
            .map(|(k, b)| BreakEvent {
                evaluation: b.broken_step,
                bond: k as u32,
                i: b.i,
                j: b.j,
                stretch: b.break_stretch,
            })
            .collect();
        log.sort_by_key(|e| (e.evaluation, e.bond));
        log
    }

    /// Number of intact bonds.
    pub fn intact(&self) -> usize {
        self.bonds.iter().filter(|b| b.broken_step == 0).count()
    }
}

/// The bond pass of one bond: its force on i (zero once broken) and, when it breaks at this
/// evaluation, the updated record. Twin of `bond_pass` in `shaders/beads.wgsl`.
#[inline]
pub fn bond_force(bond: &mut Bond, a: &SphereState, b: &SphereState, break_stretch: f32, evaluation: u32) -> V3 {
    if bond.broken_step != 0 {
        return [0.0; 3];
    }
    let d = df3_sub(a.pos_hi, a.pos_lo, b.pos_hi, b.pos_lo);
    let w = crate::laws::vec3::sub(a.vel, b.vel);
    let (f, x, _) = kelvin_voigt_force(bond.k, bond.b, bond.rest, d, w);
    let stretch = x / bond.rest;
    if stretch > break_stretch {
        bond.broken_step = evaluation;
        bond.break_stretch = stretch;
        return [0.0; 3];
    }
    f
}
