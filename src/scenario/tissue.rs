//! Cohesive cellular tissues (§7, Fig. 31): a Laguerre–Voronoi (power) tessellation of a
//! polydisperse disk packing in a rectangle, each cell turned into a closed shell, facing vertices
//! of adjacent cells joined by cohesive links (eq 41, `cpu::cohesive_link`).
//!
//! Geometry, in order:
//! 1. **Sites** (`tissue` only): a hexagonal lattice of pitch a = 2R(1 + ΔR/R) + 2j stretched to fit
//!    the box, every site moved uniformly inside a disk of radius j = `jitter`·R, radii
//!    R(1 + ΔR/R·u), u uniform in [−1, 1] — disks never overlap and lie inside the box. All draws
//!    come from SplitMix64 seeded with `seed`, in site order.
//! 2. **Power cells**: cell i is the rectangle clipped (Sutherland–Hodgman) by the half-planes
//!    2x·(p_j − p_i) ≤ |p_j|² − |p_i|² + R_i² − R_j² of the sites j found through a grid within a
//!    radius ρ; ρ grows until it exceeds m + √(m² + R_max² − R_i²) (m: farthest cell vertex from
//!    p_i), beyond which no site can cut the cell, so the cell is exact without any all-pairs
//!    search. Every edge remembers the neighbour (or box side) that made it: the interfaces.
//! 3. **Shells**: each cell is offset inward by d = r/2·(1 + `GAP_FRACTION`) (clipping by the
//!    shifted edge lines, so vanishing edges vanish cleanly). Shells of half-thickness r/2 on both
//!    sides of an interface are then 2d ≥ r apart: they touch without overlapping (the tiny gap
//!    keeps f32 rounding from creating a contact). An offset edge shorter than `min_edge_length`
//!    is collapsed to its midpoint (the polygon shrinks, never grows), dropping that interface on
//!    that side. Edges are subdivided into ⌈L/ℓ⌉ segments; across an interface both sides use
//!    the same count, computed from the longer of the two facing edges, so node k of one side faces
//!    node n − k of the other.
//! 4. **Links**: one per facing node pair of each interface (end vertices included, so ≥ 2 per
//!    interface), created at the current distance (stress-free), `interface_length` = interface
//!    length / links on it. With `bond_walls`, the cells' nodes along the bottom and top box sides
//!    are linked the same way to nodes of the frozen wall lines placed 2d below/above them.
//! 5. **Self-contact at rest**: at a sharp corner nodes two or three segments apart can be closer
//!    than r; the generator raises `Scene::self_exclusion` to what the shells need (at most
//!    `MAX_SELF_EXCLUSION`) and switches self-contact off for a cell that would need more.
//!
//! Bodies are added cells first (in site order, degenerate cells dropped), then the bottom, top
//! and (optionally) left and right walls; links interfaces first (in cell order), then walls.
//!
//! ```
//! use softdem::model::*;
//! use softdem::tissue::{tissue, TissueSpec};
//! let mut scene = Scene::default();
//! let mat = scene.add_material(Material {
//!     k_s: 1e3, f_s_yield: f32::INFINITY, k_b: 1.0, m_b_yield: f32::INFINITY,
//!     k_core: 100.0, depth: 1.0, ..Default::default()
//! });
//! // The paper's law: k_t = 0.1 k_n, α = 2 (eq 41).
//! let law = scene.add_link_law(LinkLaw {
//!     k_n: 1e3, k_t: 1e2, f_n0: -1.0, f_t0: 1.0, alpha: 2.0, ..Default::default()
//! });
//! let t = tissue(&mut scene, &TissueSpec::new(10.0, 11.0, 1.0, mat, law)).unwrap();
//! // Fig. 31: bottom wall fixed (frozen), top wall pulled up.
//! scene.impose_velocity(&NodeSet::Body(t.walls.top), Some(0.0), Some(0.02));
//! assert!(t.cells.len() > 10 && t.interfaces.iter().all(|i| i.links.len() >= 2));
//! ```

use crate::model::*;
use crate::scenes::SplitMix;
use anyhow::{bail, Result};
use std::collections::HashMap;

/// Relative extra gap between facing shells: they are placed r·(1 + GAP_FRACTION) apart, so the
/// initial contact overlap is negative even after f32 rounding.
pub const GAP_FRACTION: f64 = 1e-3;

/// Mass of the shell nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeMass {
    /// Every node gets this mass.
    PerNode(f64),
    /// Mass per unit shell length: a node gets λ·(half its two segments).
    PerLength(f64),
}

/// Parameters of a generated tissue (see the module documentation for the construction).
#[derive(Clone, Debug, PartialEq)]
pub struct TissueSpec {
    /// Box [0, width] × [0, height]; the cells' outer surfaces fill it exactly.
    pub width: f64,
    pub height: f64,
    /// Mean disk radius R of the packing (cells are somewhat larger: the lattice pitch is
    /// 2R(1 + ΔR/R) + 2·jitter·R).
    pub mean_radius: f64,
    /// Relative radius spread ΔR/R: radii uniform in R(1 ± ΔR/R).
    pub radius_spread: f64,
    /// Positional disorder j/R: sites move uniformly inside a disk of radius j.
    pub jitter: f64,
    /// Minkowski radius r: shells have half-thickness r/2 so facing shells touch at distance r.
    pub minkowski_radius: f64,
    /// Target segment length ℓ (segments are ≤ ℓ, and ≥ min(ℓ/2, `min_edge_length`)).
    pub segment_length: f64,
    /// Offset edges shorter than this are collapsed; 0 picks min(ℓ/2, R/4): ℓ/2 for ℓ ≤ R/2, R/4
    /// for a long ℓ (e.g. longer than every edge: nodes at the polygon vertices only, the paper's
    /// sphero-polygons), so that a long ℓ does not collapse the cells' ordinary edges.
    pub min_edge_length: f64,
    pub seed: u64,
    pub material: u32,
    pub node_mass: NodeMass,
    pub core: Core,
    /// Index of the link law (`Scene::add_link_law`) of every link.
    pub link_law: u32,
    /// Link the cells along the bottom and top sides to the bottom and top walls.
    pub bond_walls: bool,
    /// Link law of the cell–wall links; `None` uses `link_law`.
    pub wall_link_law: Option<u32>,
    /// Also add (unbonded) left and right walls.
    pub side_walls: bool,
    /// `cells_from_polygons`: vertices closer than this are the same point (shared edges are
    /// detected with it); 0 picks 1e-6 × the diagonal of the polygons' bounding box.
    pub polygon_tolerance: f64,
}

impl TissueSpec {
    /// A tissue of cells of mean radius `mean_radius` filling `width` × `height`, with the paper's
    /// small polydispersity (ΔR/R = 0.1), jitter 0.1 R, r = 0.05 R, ℓ = 0.3 R, unit mass per
    /// length, an undrained core at p0 = 0, bonded bottom and top walls.
    pub fn new(width: f64, height: f64, mean_radius: f64, material: u32, link_law: u32) -> Self {
        TissueSpec {
            width,
            height,
            mean_radius,
            radius_spread: 0.1,
            jitter: 0.1,
            minkowski_radius: 0.05 * mean_radius,
            segment_length: 0.3 * mean_radius,
            min_edge_length: 0.0,
            seed: 1,
            material,
            node_mass: NodeMass::PerLength(1.0),
            core: Core::Undrained { p0: 0.0 },
            link_law,
            bond_walls: true,
            wall_link_law: None,
            side_walls: false,
            polygon_tolerance: 0.0,
        }
    }

    fn min_edge(&self) -> f64 {
        if self.min_edge_length > 0.0 {
            self.min_edge_length
        } else {
            (0.5 * self.segment_length).min(0.25 * self.mean_radius)
        }
    }
}

/// Body ids of the frozen wall lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TissueWalls {
    pub bottom: u32,
    pub top: u32,
    pub left: Option<u32>,
    pub right: Option<u32>,
}

/// A bonded interface: between two cells, or between a cell and a wall (`body_b` is then the wall).
#[derive(Clone, Debug, PartialEq)]
pub struct Interface {
    pub body_a: u32,
    pub body_b: u32,
    /// Length of the interface in the tessellation (before the offset).
    pub length: f64,
    /// Link ids (indices into `Scene::links`), in order along the interface.
    pub links: Vec<u32>,
}

/// What `tissue` / `cells_from_polygons` added to the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Tissue {
    /// Body id of each cell.
    pub cells: Vec<u32>,
    /// The tessellation polygon of each cell (before the offset), counter-clockwise.
    pub polygons: Vec<Vec<[f64; 2]>>,
    pub walls: TissueWalls,
    pub interfaces: Vec<Interface>,
    /// The box the cells fill (the polygons' bounding box for `cells_from_polygons`).
    pub box_min: [f64; 2],
    pub box_max: [f64; 2],
    /// Cells that vanished (empty tessellation cell, or nothing left after the offset).
    pub dropped_cells: usize,
    /// Cell–cell adjacencies of the tessellation left without links (an edge collapsed on at
    /// least one side because it was shorter than `min_edge_length` after the offset).
    pub unbonded_interfaces: usize,
    /// Self-contact exclusion (ring distance) these shells need to start contact-free: at a sharp
    /// corner, nodes two segments apart can be closer than r. When it exceeds the scene's
    /// (`Scene::self_exclusion`, or the automatic value), the generator raises
    /// `Scene::self_exclusion` to it; keep it at least this if you set it afterwards.
    pub self_exclusion: u32,
    /// Cells whose shell would touch itself at rest farther than `MAX_SELF_EXCLUSION` nodes apart
    /// (a sliver thinner than r): self-contact is switched off for them instead.
    pub cells_without_self_contact: usize,
}

/// Largest self-contact exclusion the generator raises the scene to (see `Tissue::self_exclusion`).
pub const MAX_SELF_EXCLUSION: u32 = 3;

impl Tissue {
    /// Link ids of all cell–cell interfaces.
    pub fn cell_links(&self) -> Vec<u32> {
        let walls = self.wall_ids();
        self.interfaces
            .iter()
            .filter(|i| !walls.contains(&i.body_b))
            .flat_map(|i| i.links.iter().copied())
            .collect()
    }

    /// Link ids between cells and walls.
    pub fn wall_links(&self) -> Vec<u32> {
        let walls = self.wall_ids();
        self.interfaces
            .iter()
            .filter(|i| walls.contains(&i.body_b))
            .flat_map(|i| i.links.iter().copied())
            .collect()
    }

    fn wall_ids(&self) -> Vec<u32> {
        let w = self.walls;
        [Some(w.bottom), Some(w.top), w.left, w.right]
            .into_iter()
            .flatten()
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Labelled convex polygons
// ---------------------------------------------------------------------------------------------

/// What made an edge of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Label {
    Cell(usize),
    Bottom,
    Right,
    Top,
    Left,
    Free,
}

/// Polygon (counter-clockwise) whose edge k, from v[k] to v[k+1], carries lab[k].
#[derive(Clone, Debug)]
struct Poly<L> {
    v: Vec<[f64; 2]>,
    lab: Vec<L>,
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn dot2(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn cross2(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}

fn lerp(a: [f64; 2], b: [f64; 2], t: f64) -> [f64; 2] {
    [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    let d = sub(a, b);
    d[0].hypot(d[1])
}

/// Signed area (positive counter-clockwise).
pub fn polygon_area(v: &[[f64; 2]]) -> f64 {
    let n = v.len();
    0.5 * (0..n).map(|k| cross2(v[k], v[(k + 1) % n])).sum::<f64>()
}

/// Perimeter of a closed polygon.
pub fn polygon_perimeter(v: &[[f64; 2]]) -> f64 {
    let n = v.len();
    (0..n).map(|k| dist(v[k], v[(k + 1) % n])).sum()
}

impl<L: Copy> Poly<L> {
    /// Sutherland–Hodgman clip by the half-plane n·x ≤ c; the new edge along the line gets
    /// `label`. `eps` is the length below which a point counts as on the line / two vertices as one.
    fn clip(&self, n: [f64; 2], c: f64, label: L, eps: f64) -> Poly<L> {
        let m = self.v.len();
        let mut out = Poly { v: vec![], lab: vec![] };
        if m == 0 {
            return out;
        }
        let s: Vec<f64> = self.v.iter().map(|&p| dot2(n, p) - c).collect();
        for k in 0..m {
            let k1 = (k + 1) % m;
            let (cur_in, nxt_in) = (s[k] <= eps, s[k1] <= eps);
            if cur_in {
                out.v.push(self.v[k]);
                out.lab.push(self.lab[k]);
            }
            if cur_in != nxt_in {
                let t = (s[k] / (s[k] - s[k1])).clamp(0.0, 1.0);
                let p = lerp(self.v[k], self.v[k1], t);
                out.v.push(p);
                // Leaving: the boundary continues along the clip line; entering: along edge k.
                out.lab.push(if cur_in { label } else { self.lab[k] });
            }
        }
        out.dedup(eps);
        out
    }

    /// Removes zero-length edges (a vertex equal to the next one drops with its edge).
    fn dedup(&mut self, eps: f64) {
        let mut k = 0;
        while self.v.len() >= 2 && k < self.v.len() {
            let k1 = (k + 1) % self.v.len();
            if dist(self.v[k], self.v[k1]) <= eps {
                self.v.remove(k);
                self.lab.remove(k);
            } else {
                k += 1;
            }
        }
        if self.v.len() < 3 || polygon_area(&self.v) <= eps * eps {
            self.v.clear();
            self.lab.clear();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sites and power cells
// ---------------------------------------------------------------------------------------------

/// Sites and radii of the disk packing of `spec` (step 1 of the module documentation).
pub fn packing_sites(spec: &TissueSpec) -> (Vec<[f64; 2]>, Vec<f64>) {
    let r = spec.mean_radius;
    let s = spec.radius_spread;
    let j = spec.jitter * r;
    let a = 2.0 * r * (1.0 + s) + 2.0 * j;
    let nx = ((spec.width / a).floor() as usize).max(1);
    let ny = ((spec.height / (a * 0.75f64.sqrt())).floor() as usize).max(1);
    let (ax, ay) = (spec.width / nx as f64, spec.height / ny as f64);
    let mut rng = SplitMix(spec.seed);
    let mut sites = vec![];
    let mut radii = vec![];
    for row in 0..ny {
        let y = ay * (row as f64 + 0.5);
        let xs: Vec<f64> = if row % 2 == 0 || nx == 1 {
            (0..nx).map(|i| ax * (i as f64 + 0.5)).collect()
        } else {
            (0..nx - 1).map(|i| ax * (i as f64 + 1.0)).collect()
        };
        for x in xs {
            let th = 2.0 * std::f64::consts::PI * rng.next_f64();
            let rho = j * rng.next_f64().sqrt();
            sites.push([x + rho * th.cos(), y + rho * th.sin()]);
            radii.push(r * (1.0 + s * (2.0 * rng.next_f64() - 1.0)));
        }
    }
    (sites, radii)
}

/// Power (Laguerre–Voronoi) cells of the disks, clipped to [0, w] × [0, h]; `None` for empty ones.
fn power_cells(sites: &[[f64; 2]], radii: &[f64], w: f64, h: f64) -> Vec<Option<Poly<Label>>> {
    let n = sites.len();
    let scale = w.max(h);
    let eps = 1e-12 * scale;
    // Grid of the sites with cells of the mean spacing.
    let g = (w * h / n.max(1) as f64).sqrt().max(eps);
    let (gx, gy) = ((w / g).ceil().max(1.0) as usize, (h / g).ceil().max(1.0) as usize);
    let cell_of = |p: [f64; 2]| {
        let i = ((p[0] / g).floor().max(0.0) as usize).min(gx - 1);
        let j = ((p[1] / g).floor().max(0.0) as usize).min(gy - 1);
        (i, j)
    };
    let mut grid: Vec<Vec<usize>> = vec![vec![]; gx * gy];
    for (k, &p) in sites.iter().enumerate() {
        let (i, j) = cell_of(p);
        grid[j * gx + i].push(k);
    }
    let r_max = radii.iter().cloned().fold(0.0, f64::max);
    let square = Poly {
        v: vec![[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]],
        lab: vec![Label::Bottom, Label::Right, Label::Top, Label::Left],
    };
    (0..n)
        .map(|i| {
            let p = sites[i];
            let mut rho = 2.5 * g;
            loop {
                let reach = (rho / g).ceil() as isize;
                let (ci, cj) = cell_of(p);
                let mut near = vec![];
                for dj in -reach..=reach {
                    for di in -reach..=reach {
                        let (ii, jj) = (ci as isize + di, cj as isize + dj);
                        if ii < 0 || jj < 0 || ii >= gx as isize || jj >= gy as isize {
                            continue;
                        }
                        for &k in &grid[jj as usize * gx + ii as usize] {
                            let d = dist(sites[k], p);
                            if k != i && d < rho {
                                near.push((d, k));
                            }
                        }
                    }
                }
                // Nearest first (fewer vertices to carry), ties by index: a fixed order.
                near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let mut poly = square.clone();
                for &(d, k) in &near {
                    if poly.v.is_empty() {
                        break;
                    }
                    if d <= eps {
                        continue; // coincident sites: no bisector
                    }
                    let q = sites[k];
                    let nrm = [(q[0] - p[0]) / d, (q[1] - p[1]) / d];
                    let c = (dot2(q, q) - dot2(p, p) + radii[i] * radii[i] - radii[k] * radii[k]) / (2.0 * d);
                    poly = poly.clip(nrm, c, Label::Cell(k), eps);
                }
                if poly.v.is_empty() {
                    return None;
                }
                let m = poly.v.iter().map(|&v| dist(v, p)).fold(0.0, f64::max);
                let need = m + (m * m + r_max * r_max - radii[i] * radii[i]).max(0.0).sqrt();
                let covers_all = reach as usize >= gx.max(gy);
                if need < rho || covers_all {
                    return Some(poly);
                }
                rho = need * 1.01;
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Offset, subdivision and links
// ---------------------------------------------------------------------------------------------

/// An edge of an offset cell: from `a` to `b`, made by `label`, standing for `orig_len` of the
/// tessellation boundary.
#[derive(Clone, Copy, Debug)]
struct OEdge {
    a: [f64; 2],
    b: [f64; 2],
    label: Label,
    orig_len: f64,
}

/// A straight side of a cell: a run of collinear edges (pieces with their own labels).
struct Side {
    origin: [f64; 2],
    dir: [f64; 2],
    normal: [f64; 2],
    /// (t0, t1, label, original length) along `dir` from `origin`.
    pieces: Vec<(f64, f64, Label)>,
}

/// Inward offset of a convex cell by `d`, short edges collapsed, sides split back into their
/// labelled pieces. Empty when nothing is left.
fn offset_cell(poly: &Poly<Label>, d: f64, min_edge: f64, eps: f64) -> Vec<OEdge> {
    let m = poly.v.len();
    let unit = |k: usize| {
        let e = sub(poly.v[(k + 1) % m], poly.v[k]);
        let l = e[0].hypot(e[1]);
        [e[0] / l, e[1] / l]
    };
    let collinear = |k: usize, k1: usize| {
        let (u, w) = (unit(k), unit(k1));
        cross2(u, w).abs() < 1e-9 && dot2(u, w) > 0.0
    };
    // Group collinear runs, starting at an edge that begins a run.
    let start = (0..m).find(|&k| !collinear((k + m - 1) % m, k)).unwrap_or(0);
    let mut sides: Vec<Side> = vec![];
    for s in 0..m {
        let k = (start + s) % m;
        if s == 0 || !collinear((k + m - 1) % m, k) {
            let u = unit(k);
            sides.push(Side {
                origin: poly.v[k],
                dir: u,
                normal: [u[1], -u[0]],
                pieces: vec![],
            });
        }
        let side = sides.last_mut().unwrap();
        let t0 = dot2(sub(poly.v[k], side.origin), side.dir);
        let t1 = dot2(sub(poly.v[(k + 1) % m], side.origin), side.dir);
        match side.pieces.last_mut() {
            // Consecutive collinear edges made by the same neighbour are one piece.
            Some(last) if last.2 == poly.lab[k] => last.1 = t1,
            _ => side.pieces.push((t0, t1, poly.lab[k])),
        }
    }
    // Clip the corner polygon by the shifted side lines.
    let mut q = Poly {
        v: sides.iter().map(|s| s.origin).collect(),
        lab: (0..sides.len()).collect::<Vec<usize>>(),
    };
    for (k, s) in sides.iter().enumerate() {
        q = q.clip(s.normal, dot2(s.normal, s.origin) - d, k, eps);
        if q.v.is_empty() {
            return vec![];
        }
    }
    // Collapse short edges to their midpoints (the polygon only shrinks) while more than 3 remain.
    while q.v.len() > 3 {
        let n = q.v.len();
        let (k, len) = (0..n)
            .map(|k| (k, dist(q.v[k], q.v[(k + 1) % n])))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
            .unwrap();
        if len >= min_edge {
            break;
        }
        let k1 = (k + 1) % n;
        q.v[k1] = lerp(q.v[k], q.v[k1], 0.5);
        q.v.remove(k);
        q.lab.remove(k);
    }
    // Split each edge into the pieces of its side, merging pieces shorter than min_edge.
    let n = q.v.len();
    let mut out = vec![];
    for k in 0..n {
        let (a, b) = (q.v[k], q.v[(k + 1) % n]);
        let side = &sides[q.lab[k]];
        let (ta, tb) = (dot2(sub(a, side.origin), side.dir), dot2(sub(b, side.origin), side.dir));
        let np = side.pieces.len();
        let mut subs: Vec<(f64, f64, Label, f64)> = vec![]; // (u0, u1) in [0, 1] along a → b
        for (p, &(t0, t1, label)) in side.pieces.iter().enumerate() {
            let lo = if p == 0 { f64::NEG_INFINITY } else { t0 };
            let hi = if p + 1 == np { f64::INFINITY } else { t1 };
            let (u0, u1) = if tb - ta > eps {
                (((lo - ta) / (tb - ta)).max(0.0), ((hi - ta) / (tb - ta)).min(1.0))
            } else if p == 0 {
                (0.0, 1.0)
            } else {
                (1.0, 1.0)
            };
            if u1 > u0 {
                subs.push((u0, u1, label, t1 - t0));
            }
        }
        let elen = dist(a, b);
        while subs.len() > 1 {
            let (i, l) = subs
                .iter()
                .enumerate()
                .map(|(i, s)| (i, (s.1 - s.0) * elen))
                .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)))
                .unwrap();
            if l >= min_edge {
                break;
            }
            // Merge into the longer neighbour, which keeps its label.
            let j = if i == 0 {
                1
            } else if i + 1 == subs.len() || subs[i - 1].1 - subs[i - 1].0 >= subs[i + 1].1 - subs[i + 1].0 {
                i - 1
            } else {
                i + 1
            };
            let (lo, hi) = (subs[i].0.min(subs[j].0), subs[i].1.max(subs[j].1));
            subs[j].0 = lo;
            subs[j].1 = hi;
            subs.remove(i);
        }
        for (u0, u1, label, orig_len) in subs {
            out.push(OEdge {
                a: lerp(a, b, u0),
                b: lerp(a, b, u1),
                label,
                orig_len,
            });
        }
    }
    out
}

/// Distance from p to the segment a–b.
fn segment_distance(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    let (ab, ap) = (sub(b, a), sub(p, a));
    let l2 = dot2(ab, ab);
    let t = if l2 > 0.0 {
        (dot2(ap, ab) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    dist(p, lerp(a, b, t))
}

/// Smallest ring distance k such that no node of the closed shell `pts` is within `reach` of a
/// node or segment (D → D+1) of the same shell more than k nodes away (the self-contact pairing
/// rule of `cpu::broad_phase::is_neighbor`), at least 1.
fn rest_exclusion(pts: &[[f64; 2]], reach: f64) -> u32 {
    let n = pts.len();
    let mut need = 1;
    for c in 0..n {
        for d in 0..n {
            let gap = c.abs_diff(d);
            let ring = gap.min(n - gap);
            if ring > need && segment_distance(pts[c], pts[d], pts[(d + 1) % n]) < reach {
                need = ring;
            }
        }
    }
    need as u32
}

/// Shells, links and walls from labelled cells (`Label::Cell` indices into `cells`).
fn build(
    scene: &mut Scene,
    cells: Vec<Poly<Label>>,
    box_min: [f64; 2],
    box_max: [f64; 2],
    spec: &TissueSpec,
    dropped_before: usize,
) -> Result<Tissue> {
    let r = spec.minkowski_radius;
    let ell = spec.segment_length;
    if !(r > 0.0 && ell > 0.0 && r.is_finite() && ell.is_finite()) {
        bail!("tissue: minkowski_radius ({r}) and segment_length ({ell}) must be > 0");
    }
    let wall_law = spec.wall_link_law.unwrap_or(spec.link_law);
    for law in [spec.link_law, wall_law] {
        if law as usize >= scene.link_laws.len() {
            bail!("tissue: no link law {law} in the scene");
        }
    }
    if spec.material as usize >= scene.materials.len() {
        bail!("tissue: no material {} in the scene", spec.material);
    }
    let d = 0.5 * r * (1.0 + GAP_FRACTION);
    let scale = (box_max[0] - box_min[0]).max(box_max[1] - box_min[1]);
    let eps = 1e-12 * scale;
    let min_edge = spec.min_edge();
    let offset: Vec<Vec<OEdge>> = cells.iter().map(|c| offset_cell(c, d, min_edge, eps)).collect();
    // Keep cells with a proper polygon; renumber.
    let kept: Vec<usize> = (0..cells.len()).filter(|&i| offset[i].len() >= 3).collect();
    let dropped_cells = dropped_before + cells.len() - kept.len();
    if kept.is_empty() {
        bail!("tissue: no cell left (the Minkowski radius is too large for the cells?)");
    }
    // Edge lookup (cell, label) → edge index, and subdivision counts.
    let mut edge_of: HashMap<(usize, Label), usize> = HashMap::new();
    for &i in &kept {
        for (e, oe) in offset[i].iter().enumerate() {
            edge_of.insert((i, oe.label), e);
        }
    }
    let len = |i: usize, e: usize| dist(offset[i][e].a, offset[i][e].b);
    let segs = |l: f64| ((l / ell).ceil() as usize).max(1);
    let mut nseg: Vec<Vec<usize>> = offset
        .iter()
        .map(|c| c.iter().map(|oe| segs(dist(oe.a, oe.b))).collect())
        .collect();
    // Interfaces: (i, e, j, f, n, length); adjacencies of the tessellation counted for the report.
    let mut pairs = vec![];
    let mut adjacencies = std::collections::BTreeSet::new();
    for (i, c) in cells.iter().enumerate() {
        for l in &c.lab {
            if let Label::Cell(j) = *l {
                adjacencies.insert((i.min(j), i.max(j)));
            }
        }
    }
    for &i in &kept {
        for e in 0..offset[i].len() {
            if let Label::Cell(j) = offset[i][e].label {
                if j <= i {
                    continue;
                }
                if let Some(&f) = edge_of.get(&(j, Label::Cell(i))) {
                    let n = segs(len(i, e).max(len(j, f)));
                    nseg[i][e] = n;
                    nseg[j][f] = n;
                    let length = 0.5 * (offset[i][e].orig_len + offset[j][f].orig_len);
                    pairs.push((i, e, j, f, n, length));
                }
            }
        }
    }
    let unbonded_interfaces = adjacencies.len() - pairs.len();
    // Shell nodes: per edge, its start then the n − 1 subdivision nodes.
    let mut body_of = vec![u32::MAX; cells.len()];
    let mut span = vec![(0u32, 0u32); cells.len()]; // (first node, count) of each cell's shell
    let mut edge_start: Vec<Vec<usize>> = vec![vec![]; cells.len()];
    let mut mass_sum = 0.0;
    let mut mass_count = 0usize;
    let opts = BodyOptions {
        material: spec.material,
        radius: (0.5 * r) as f32,
        node_mass: 1.0,
        frozen: false,
        self_contact: true,
        core: spec.core,
    };
    for &i in &kept {
        let mut pts = vec![];
        for (e, oe) in offset[i].iter().enumerate() {
            edge_start[i].push(pts.len());
            let n = nseg[i][e];
            for k in 0..n {
                pts.push(lerp(oe.a, oe.b, k as f64 / n as f64));
            }
        }
        let body = scene.add_body(&pts, true, opts);
        body_of[i] = body;
        span[i] = (scene.bodies[body as usize].first, pts.len() as u32);
        let first = span[i].0 as usize;
        let np = pts.len();
        for k in 0..np {
            let m = match spec.node_mass {
                NodeMass::PerNode(m) => m,
                NodeMass::PerLength(lambda) => {
                    0.5 * lambda * (dist(pts[k], pts[(k + 1) % np]) + dist(pts[k], pts[(k + np - 1) % np]))
                }
            };
            scene.nodes[first + k].mass = m as f32;
            mass_sum += m;
            mass_count += 1;
        }
    }
    // Self-contact at rest: raise the exclusion for sharp corners, switch it off for slivers.
    let mut self_exclusion = 1;
    let mut cells_without_self_contact = 0;
    for &i in &kept {
        let (first, count) = span[i];
        let pts: Vec<[f64; 2]> = (first..first + count).map(|k| scene.init[k as usize].pos()).collect();
        let need = rest_exclusion(&pts, r * (1.0 + 1e-4));
        if need <= MAX_SELF_EXCLUSION {
            self_exclusion = self_exclusion.max(need);
        } else {
            scene.bodies[body_of[i] as usize].flags &= !BODY_SELF_CONTACT;
            cells_without_self_contact += 1;
        }
    }
    if self_exclusion > scene.self_exclusion.unwrap_or_else(|| scene.auto_self_exclusion()) {
        scene.self_exclusion = Some(self_exclusion);
    }
    let node = |i: usize, e: usize, k: usize| -> u32 {
        let (first, count) = span[i];
        first + ((edge_start[i][e] + k) % count as usize) as u32
    };
    let mut interfaces = vec![];
    let mut new_links = vec![];
    for &(i, e, j, f, n, length) in &pairs {
        let il = (length / (n + 1) as f64) as f32;
        let ids: Vec<(u32, u32)> = (0..=n).map(|k| (node(i, e, k), node(j, f, n - k))).collect();
        new_links.push((body_of[i], body_of[j], length, il, ids));
    }
    for (ba, bb, length, il, ids) in new_links {
        let links = ids
            .into_iter()
            .map(|(a, b)| scene.add_link(a, b, spec.link_law, il))
            .collect();
        interfaces.push(Interface {
            body_a: ba,
            body_b: bb,
            length,
            links,
        });
    }
    // Walls: lines of half-thickness r/2 whose axis is d outside the box, so 2d from the shells.
    let wall_mass = (mass_sum / mass_count.max(1) as f64) as f32;
    let wall_opts = BodyOptions {
        material: spec.material,
        radius: (0.5 * r) as f32,
        node_mass: wall_mass,
        frozen: true,
        self_contact: false,
        core: Core::None,
    };
    // Cell nodes along a box side: (coordinate along the side, node, cell, edge, k).
    let along_side = |label: Label, axis: usize| {
        let mut v = vec![];
        for &i in &kept {
            for (e, oe) in offset[i].iter().enumerate() {
                if oe.label == label {
                    for k in 0..=nseg[i][e] {
                        let p = lerp(oe.a, oe.b, k as f64 / nseg[i][e] as f64);
                        v.push((p[axis], i, e, k));
                    }
                }
            }
        }
        v
    };
    let wall_line = |scene: &mut Scene,
                     label: Label,
                     axis: usize,
                     level: f64,
                     lo: f64,
                     hi: f64,
                     bonded: bool|
     -> (u32, Vec<Interface>) {
        let at = |t: f64| {
            if axis == 0 {
                [t, level]
            } else {
                [level, t]
            }
        };
        let cell_nodes = if bonded { along_side(label, axis) } else { vec![] };
        let mut ts: Vec<f64> = cell_nodes.iter().map(|c| c.0).collect();
        ts.push(lo);
        ts.push(hi);
        ts.sort_by(f64::total_cmp);
        ts.dedup_by(|a, b| (*a - *b).abs() <= eps);
        // Fill gaps longer than ℓ so the wall's segments stay local.
        let mut pts_t = vec![ts[0]];
        for w in ts.windows(2) {
            let n = segs(w[1] - w[0]);
            for k in 1..=n {
                pts_t.push(w[0] + (w[1] - w[0]) * k as f64 / n as f64);
            }
        }
        let pts: Vec<[f64; 2]> = pts_t.iter().map(|&t| at(t)).collect();
        let body = scene.add_body(&pts, false, wall_opts);
        let first = scene.bodies[body as usize].first;
        let wall_node = |t: f64| {
            let k = pts_t.partition_point(|&x| x < t - eps);
            first + k.min(pts_t.len() - 1) as u32
        };
        // One interface per cell edge on this side.
        type EdgeNodes = ((usize, usize), Vec<(usize, u32)>); // (cell, edge), [(k, wall node)]
        let mut per_edge: Vec<EdgeNodes> = vec![];
        for &(t, i, e, k) in &cell_nodes {
            let w = wall_node(t);
            match per_edge.last_mut() {
                Some((key, v)) if *key == (i, e) => v.push((k, w)),
                _ => per_edge.push(((i, e), vec![(k, w)])),
            }
        }
        per_edge.sort_by_key(|x| x.0);
        let mut out = vec![];
        for ((i, e), mut v) in per_edge {
            v.sort();
            let length = offset[i][e].orig_len;
            let il = (length / v.len() as f64) as f32;
            let links = v
                .into_iter()
                .map(|(k, w)| scene.add_link(node(i, e, k), w, wall_law, il))
                .collect();
            out.push(Interface {
                body_a: body_of[i],
                body_b: body,
                length,
                links,
            });
        }
        (body, out)
    };
    let half = 0.5 * r;
    let (bottom, bi) = wall_line(
        scene,
        Label::Bottom,
        0,
        box_min[1] - d,
        box_min[0] - half,
        box_max[0] + half,
        spec.bond_walls,
    );
    let (top, ti) = wall_line(
        scene,
        Label::Top,
        0,
        box_max[1] + d,
        box_min[0] - half,
        box_max[0] + half,
        spec.bond_walls,
    );
    interfaces.extend(bi);
    interfaces.extend(ti);
    let (mut left, mut right) = (None, None);
    if spec.side_walls && box_max[1] - box_min[1] > 2.0 * r + eps {
        // Shorter than the box by r at each end: never touching the bottom and top walls.
        let (lo, hi) = (box_min[1] + r, box_max[1] - r);
        left = Some(wall_line(scene, Label::Left, 1, box_min[0] - d, lo, hi, false).0);
        right = Some(wall_line(scene, Label::Right, 1, box_max[0] + d, lo, hi, false).0);
    }
    Ok(Tissue {
        cells: kept.iter().map(|&i| body_of[i]).collect(),
        polygons: kept.iter().map(|&i| cells[i].v.clone()).collect(),
        walls: TissueWalls {
            bottom,
            top,
            left,
            right,
        },
        interfaces,
        box_min,
        box_max,
        dropped_cells,
        unbonded_interfaces,
        self_exclusion,
        cells_without_self_contact,
    })
}

/// Adds a Laguerre–Voronoi tissue filling [0, width] × [0, height] to `scene` (cells, walls,
/// links), deterministic from `spec.seed`. The material and link law must already be in the scene.
pub fn tissue(scene: &mut Scene, spec: &TissueSpec) -> Result<Tissue> {
    let (w, h) = (spec.width, spec.height);
    if !(w > 0.0 && h > 0.0 && spec.mean_radius > 0.0 && w.is_finite() && h.is_finite()) {
        bail!("tissue: width ({w}), height ({h}) and mean_radius must be > 0");
    }
    if !(0.0..1.0).contains(&spec.radius_spread) || spec.jitter < 0.0 {
        bail!(
            "tissue: radius_spread ({}) must be in [0, 1) and jitter ({}) ≥ 0",
            spec.radius_spread,
            spec.jitter
        );
    }
    let (sites, radii) = packing_sites(spec);
    let raw = power_cells(&sites, &radii, w, h);
    // Renumber past empty cells.
    let mut index = vec![usize::MAX; raw.len()];
    let mut cells = vec![];
    for (k, c) in raw.iter().enumerate() {
        if c.is_some() {
            index[k] = cells.len();
            cells.push(());
        }
    }
    let dropped = raw.len() - cells.len();
    let cells: Vec<Poly<Label>> = raw
        .into_iter()
        .flatten()
        .map(|mut p| {
            for l in &mut p.lab {
                if let Label::Cell(j) = *l {
                    *l = if index[j] == usize::MAX {
                        Label::Free
                    } else {
                        Label::Cell(index[j])
                    };
                }
            }
            p
        })
        .collect();
    build(scene, cells, [0.0, 0.0], [w, h], spec, dropped)
}

/// Adds cells given as polygons (convex; either orientation) to `scene`, like `tissue` does with
/// its tessellation: shells, links across shared edges, walls along the bottom and top of the
/// polygons' bounding box (which plays the role of the box: `width`, `height`, `mean_radius`,
/// `radius_spread`, `jitter` and `seed` of the spec are not used). Two polygons share an edge where
/// their boundaries run along each other: vertices within `polygon_tolerance` are merged and a
/// vertex lying on another polygon's edge splits that edge (T-junctions), so the interfaces are
/// exactly the common boundary pieces.
pub fn cells_from_polygons(scene: &mut Scene, polygons: &[Vec<[f64; 2]>], spec: &TissueSpec) -> Result<Tissue> {
    if polygons.is_empty() {
        bail!("cells_from_polygons: no polygon");
    }
    let mut bmin = [f64::INFINITY; 2];
    let mut bmax = [f64::NEG_INFINITY; 2];
    for (c, p) in polygons.iter().enumerate() {
        if p.len() < 3 {
            bail!("polygon {c}: {} vertices, need at least 3", p.len());
        }
        for v in p {
            if !(v[0].is_finite() && v[1].is_finite()) {
                bail!("polygon {c}: vertex {v:?} is not finite");
            }
            for a in 0..2 {
                bmin[a] = bmin[a].min(v[a]);
                bmax[a] = bmax[a].max(v[a]);
            }
        }
    }
    let diag = dist(bmin, bmax);
    let tol = if spec.polygon_tolerance > 0.0 {
        spec.polygon_tolerance
    } else {
        1e-6 * diag
    };
    // 1. Merge vertices closer than tol (grid of side tol, first come first served).
    let mut reps: Vec<[f64; 2]> = vec![];
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    let key = |p: [f64; 2]| {
        (
            ((p[0] - bmin[0]) / tol).floor() as i64,
            ((p[1] - bmin[1]) / tol).floor() as i64,
        )
    };
    let mut ids: Vec<Vec<usize>> = vec![];
    for p in polygons {
        let mut v = vec![];
        for &q in p {
            let (kx, ky) = key(q);
            let mut found = None;
            'search: for dy in -1..=1 {
                for dx in -1..=1 {
                    if let Some(list) = grid.get(&(kx + dx, ky + dy)) {
                        for &id in list {
                            if dist(reps[id], q) <= tol {
                                found = Some(id);
                                break 'search;
                            }
                        }
                    }
                }
            }
            let id = found.unwrap_or_else(|| {
                reps.push(q);
                grid.entry((kx, ky)).or_default().push(reps.len() - 1);
                reps.len() - 1
            });
            if v.last() != Some(&id) {
                v.push(id);
            }
        }
        while v.len() > 1 && v.first() == v.last() {
            v.pop();
        }
        ids.push(v);
    }
    // 2. Orient counter-clockwise, check convexity.
    for (c, v) in ids.iter_mut().enumerate() {
        let pts: Vec<[f64; 2]> = v.iter().map(|&i| reps[i]).collect();
        let area = polygon_area(&pts);
        if v.len() < 3 || area.abs() <= tol * tol {
            bail!("polygon {c}: degenerate (area {area:e})");
        }
        if area < 0.0 {
            v.reverse();
        }
        let n = v.len();
        for k in 0..n {
            let (a, b, q) = (reps[v[k]], reps[v[(k + 1) % n]], reps[v[(k + 2) % n]]);
            let (e1, e2) = (sub(b, a), sub(q, b));
            if cross2(e1, e2) < -tol * (e1[0].hypot(e1[1]) + e2[0].hypot(e2[1])) {
                bail!("polygon {c}: not convex at vertex {:?}", reps[v[(k + 1) % n]]);
            }
        }
    }
    // 3. Split edges at other polygons' vertices lying on them (grid of the merged vertices).
    let cell = (diag / (reps.len() as f64).sqrt().max(1.0)).max(4.0 * tol);
    let gkey = |p: [f64; 2]| {
        (
            ((p[0] - bmin[0]) / cell).floor() as i64,
            ((p[1] - bmin[1]) / cell).floor() as i64,
        )
    };
    let mut vgrid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, &p) in reps.iter().enumerate() {
        vgrid.entry(gkey(p)).or_default().push(i);
    }
    for v in ids.iter_mut() {
        let n = v.len();
        let mut out = vec![];
        for k in 0..n {
            let (ia, ib) = (v[k], v[(k + 1) % n]);
            let (a, b) = (reps[ia], reps[ib]);
            out.push(ia);
            let e = sub(b, a);
            let l = e[0].hypot(e[1]);
            let u = [e[0] / l, e[1] / l];
            let (k0, k1) = (
                gkey([a[0].min(b[0]) - tol, a[1].min(b[1]) - tol]),
                gkey([a[0].max(b[0]) + tol, a[1].max(b[1]) + tol]),
            );
            let mut on = vec![];
            for gy in k0.1..=k1.1 {
                for gx in k0.0..=k1.0 {
                    for &id in vgrid.get(&(gx, gy)).map(|x| x.as_slice()).unwrap_or(&[]) {
                        if id == ia || id == ib {
                            continue;
                        }
                        let w = sub(reps[id], a);
                        let t = dot2(w, u);
                        if t > tol && t < l - tol && cross2(u, w).abs() <= tol {
                            on.push((t, id));
                        }
                    }
                }
            }
            on.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            out.extend(on.into_iter().map(|x| x.1));
        }
        *v = out;
    }
    // 4. Labels: the polygon owning the reversed edge, else a side of the box, else free.
    let mut owner: HashMap<(usize, usize), usize> = HashMap::new();
    for (c, v) in ids.iter().enumerate() {
        for k in 0..v.len() {
            owner.insert((v[k], v[(k + 1) % v.len()]), c);
        }
    }
    let on_box = |a: [f64; 2], b: [f64; 2]| {
        let near = |x: f64, y: f64| (x - y).abs() <= tol;
        if near(a[1], bmin[1]) && near(b[1], bmin[1]) {
            Label::Bottom
        } else if near(a[1], bmax[1]) && near(b[1], bmax[1]) {
            Label::Top
        } else if near(a[0], bmin[0]) && near(b[0], bmin[0]) {
            Label::Left
        } else if near(a[0], bmax[0]) && near(b[0], bmax[0]) {
            Label::Right
        } else {
            Label::Free
        }
    };
    let cells: Vec<Poly<Label>> = ids
        .iter()
        .enumerate()
        .map(|(c, v)| {
            let n = v.len();
            Poly {
                v: v.iter().map(|&i| reps[i]).collect(),
                lab: (0..n)
                    .map(|k| {
                        let (a, b) = (v[k], v[(k + 1) % n]);
                        match owner.get(&(b, a)) {
                            Some(&o) if o != c => Label::Cell(o),
                            _ => on_box(reps[a], reps[b]),
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    build(scene, cells, bmin, bmax, spec, 0)
}
