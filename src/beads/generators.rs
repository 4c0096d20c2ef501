//! Bead bodies: positions, bonds and bond laws from plain parameters (`BodySpec` → `build_body`),
//! the library API the scenario layer wires later. Shapes:
//!
//! - `CubicSphere`: the points of a simple cubic lattice (spacing l) with |x| ≤ R, bonded to their
//!   nearest neighbours (l) and along face diagonals (√2 l) — the paper's §2.2.2 lattice;
//!   R = 32 l gives 137,065 beads (the paper: 137,059; its cut is not stated).
//! - `CubicBlock`: nx × ny × nz points of the same lattice and bonds (moduli, eq 5).
//! - `Disordered`: a Poisson-disk sample of the sphere (random sequential addition with a minimum
//!   distance 0.8 l, about one bead per l³), bonded to every bead within 1.45 l (no Delaunay
//!   crate is available offline; a cut-off gives ~12 bonds per bead, above the 6 a central-force
//!   network needs to be rigid). Not isotropic-exact: its moduli are measured, not predicted.
//! - From a file (`parse_body_file`).
//!
//! Every bond's rest length is its initial length (the body starts unstressed). A core–shell body
//! (`Shell`) gives the bonds whose middle lies at more than R − h from the centre the shell's
//! k and b. Beads have mass `bead_mass` and a contact radius (`BodySpec::contact_radius`).

use super::bonds::{Bond, BondList};
use crate::scenes::SplitMix;
use crate::spheres::SphereState;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyShape {
    /// Lattice points within `radius` of the centre.
    CubicSphere { radius: f64 },
    /// n[0] × n[1] × n[2] lattice points from the centre's corner.
    CubicBlock { n: [usize; 3] },
    /// Poisson-disk beads within `radius`, from `seed`.
    Disordered { radius: f64, seed: u64 },
}

/// A shell of thickness h = `h_over_r` · R with its own bond law (core: the body's k, b).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shell {
    pub h_over_r: f64,
    pub k: f64,
    pub b: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodySpec {
    pub shape: BodyShape,
    /// Lattice spacing l (m); the mean spacing for `Disordered`.
    pub spacing: f64,
    /// Spring k (N/m) and dashpot b (N s/m) of every bond (of the core, with a shell).
    pub k: f64,
    pub b: f64,
    pub shell: Option<Shell>,
    pub bead_mass: f64,
    /// Contact radius of the beads (m): l/2 makes neighbours touch at rest; the planes of eq 6
    /// act on centre + this radius, and it sets the stepper's contact candidates (the beads of a
    /// body do not touch each other, `no_contact_table`). A small value (l/100) is the paper's
    /// law on the bead centres and leaves the contact list empty (fastest).
    pub contact_radius: f64,
    /// Material index of the beads in the stepper's law table.
    pub material: u32,
    pub center: [f64; 3],
}

/// A built body: the beads as sphere states, the bonds, and what the measurements need.
#[derive(Clone, Debug)]
pub struct BeadBody {
    pub states: Vec<SphereState>,
    pub bonds: BondList,
    /// Outer radius (largest centre distance + contact radius) for spheres; 0 for a block.
    pub outer_radius: f64,
    /// Volume each bead stands for (l³ on the lattice; body volume / beads when disordered).
    pub bead_volume: f64,
}

const NEAREST: [[i64; 3]; 3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const FACE_DIAGONALS: [[i64; 3]; 6] = [[1, 1, 0], [1, -1, 0], [1, 0, 1], [1, 0, -1], [0, 1, 1], [0, 1, -1]];

fn bead(pos: [f64; 3], spec: &BodySpec) -> SphereState {
    let r = spec.contact_radius;
    let (hi, lo) = crate::spheres::precision::df3_split(pos);
    SphereState {
        pos_hi: hi,
        radius: r as f32,
        pos_lo: lo,
        mass: spec.bead_mass as f32,
        vel: [0.0; 3],
        inertia: (0.4 * spec.bead_mass * r * r) as f32,
        omega: [0.0; 3],
        material: spec.material,
    }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The bond law (k, b) of a bond between points a and b of a body of radius R about c.
fn bond_law(spec: &BodySpec, radius: f64, a: [f64; 3], b: [f64; 3]) -> (f64, f64) {
    match spec.shell {
        Some(sh) => {
            let mid = [0, 1, 2].map(|d| 0.5 * (a[d] + b[d]));
            if dist(mid, spec.center) > radius * (1.0 - sh.h_over_r) {
                (sh.k, sh.b)
            } else {
                (spec.k, spec.b)
            }
        }
        None => (spec.k, spec.b),
    }
}

fn make_bond(i: usize, j: usize, pos: &[[f64; 3]], k: f64, b: f64) -> Bond {
    Bond {
        i: i as u32,
        j: j as u32,
        rest: dist(pos[i], pos[j]) as f32,
        k: k as f32,
        b: b as f32,
        ..Default::default()
    }
}

/// Builds the body of `spec`.
pub fn build_body(spec: &BodySpec) -> BeadBody {
    let l = spec.spacing;
    let (pos, bond_pairs, radius, bead_volume) = match spec.shape {
        BodyShape::CubicSphere { radius } => {
            let m = (radius / l).floor() as i64;
            let pts: Vec<[i64; 3]> = cube(-m, m + 1)
                .filter(|p| {
                    ((p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) as f64) * l * l <= radius * radius * (1.0 + 1e-12)
                })
                .collect();
            let (pos, pairs) = lattice_bonds(&pts, spec);
            (pos, pairs, radius, l * l * l)
        }
        BodyShape::CubicBlock { n } => {
            let pts: Vec<[i64; 3]> = (0..n[2] as i64)
                .flat_map(|z| (0..n[1] as i64).flat_map(move |y| (0..n[0] as i64).map(move |x| [x, y, z])))
                .collect();
            let (pos, pairs) = lattice_bonds(&pts, spec);
            (pos, pairs, 0.0, l * l * l)
        }
        BodyShape::Disordered { radius, seed } => {
            let pos = poisson_disk_sphere(radius, l, spec.center, seed);
            let pairs = pairs_within(&pos, 1.45 * l);
            let vol = 4.0 / 3.0 * std::f64::consts::PI * (radius + 0.5 * l).powi(3) / pos.len() as f64;
            (pos, pairs, radius, vol)
        }
    };
    let bonds: Vec<Bond> = bond_pairs
        .iter()
        .map(|&(i, j)| {
            let (k, b) = bond_law(spec, radius, pos[i], pos[j]);
            make_bond(i, j, &pos, k, b)
        })
        .collect();
    let outer = if radius > 0.0 {
        pos.iter().map(|p| dist(*p, spec.center)).fold(0.0, f64::max) + spec.contact_radius
    } else {
        0.0
    };
    BeadBody {
        states: pos.iter().map(|&p| bead(p, spec)).collect(),
        bonds: BondList::new(pos.len(), bonds),
        outer_radius: outer,
        bead_volume,
    }
}

fn cube(lo: i64, hi: i64) -> impl Iterator<Item = [i64; 3]> {
    (lo..hi).flat_map(move |z| (lo..hi).flat_map(move |y| (lo..hi).map(move |x| [x, y, z])))
}

/// Positions of lattice points and their nearest-neighbour + face-diagonal bonds (each once,
/// in point order, then direction order).
fn lattice_bonds(pts: &[[i64; 3]], spec: &BodySpec) -> (Vec<[f64; 3]>, Vec<(usize, usize)>) {
    let index: HashMap<[i64; 3], usize> = pts.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let pos: Vec<[f64; 3]> = pts
        .iter()
        .map(|p| [0, 1, 2].map(|d| spec.center[d] + p[d] as f64 * spec.spacing))
        .collect();
    let mut pairs = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        for dir in NEAREST.iter().chain(FACE_DIAGONALS.iter()) {
            let q = [p[0] + dir[0], p[1] + dir[1], p[2] + dir[2]];
            if let Some(&j) = index.get(&q) {
                pairs.push((i, j));
            }
        }
    }
    (pos, pairs)
}

/// Random sequential addition in the ball of `radius` about `c`: candidates uniform in the ball,
/// kept when at least 0.8 l from every kept point, until (R/l)³ 4π/3 points or 200 misses in a row
/// per point wanted. Deterministic from `seed`.
pub fn poisson_disk_sphere(radius: f64, l: f64, c: [f64; 3], seed: u64) -> Vec<[f64; 3]> {
    let target = (4.0 / 3.0 * std::f64::consts::PI * (radius / l).powi(3)).round() as usize;
    let dmin = 0.8 * l;
    let mut rng = SplitMix(seed);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    let key = |p: [f64; 3]| p.map(|x| (x / dmin).floor() as i64);
    let mut pts: Vec<[f64; 3]> = Vec::new();
    let mut misses = 0usize;
    while pts.len() < target && misses < 200 * target.max(1) {
        let p = [0; 3].map(|_| (2.0 * rng.next_f64() - 1.0) * radius);
        if p[0] * p[0] + p[1] * p[1] + p[2] * p[2] > radius * radius {
            continue;
        }
        let p = [p[0] + c[0], p[1] + c[1], p[2] + c[2]];
        let k = key(p);
        let free = cube(-1, 2).all(|o| {
            grid.get(&[k[0] + o[0], k[1] + o[1], k[2] + o[2]])
                .is_none_or(|v| v.iter().all(|&q| dist(pts[q], p) >= dmin))
        });
        if free {
            grid.entry(k).or_default().push(pts.len());
            pts.push(p);
            misses = 0;
        } else {
            misses += 1;
        }
    }
    pts
}

/// Every pair (i < j) closer than `cutoff`, ordered by i then j.
pub fn pairs_within(pos: &[[f64; 3]], cutoff: f64) -> Vec<(usize, usize)> {
    let key = |p: [f64; 3]| p.map(|x| (x / cutoff).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, p) in pos.iter().enumerate() {
        grid.entry(key(*p)).or_default().push(i);
    }
    let mut pairs = Vec::new();
    for (i, p) in pos.iter().enumerate() {
        let k = key(*p);
        let mut near: Vec<usize> = cube(-1, 2)
            .filter_map(|o| grid.get(&[k[0] + o[0], k[1] + o[1], k[2] + o[2]]))
            .flatten()
            .copied()
            .filter(|&j| j > i && dist(pos[j], *p) < cutoff)
            .collect();
        near.sort_unstable();
        pairs.extend(near.into_iter().map(|j| (i, j)));
    }
    pairs
}

/// A body from a text file: `bead x y z` lines (metres), then `bond i j k b` lines (0-based
/// bead indices, rest length = initial distance); `#` starts a comment. Errors name the file
/// and line.
pub fn parse_body_file(path: &std::path::Path, bead_mass: f64, radius: f64, material: u32) -> Result<BeadBody, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_body(&text, &path.display().to_string(), bead_mass, radius, material)
}

/// `parse_body_file` on a string (`name` in the errors).
pub fn parse_body(text: &str, name: &str, bead_mass: f64, radius: f64, material: u32) -> Result<BeadBody, String> {
    let mut pos: Vec<[f64; 3]> = Vec::new();
    let mut raw: Vec<(usize, usize, usize, f64, f64)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let words: Vec<&str> = line.split('#').next().unwrap_or("").split_whitespace().collect();
        let err = |what: &str| format!("{name}:{line_no}: {what}");
        let num = |w: &str| w.parse::<f64>().map_err(|_| err(&format!("`{w}` is not a number")));
        match words.first() {
            None => continue,
            Some(&"bead") => {
                if words.len() != 4 {
                    return Err(err("expected `bead x y z`"));
                }
                let p = [num(words[1])?, num(words[2])?, num(words[3])?];
                if p.iter().any(|x| !x.is_finite()) {
                    return Err(err("bead position is not finite"));
                }
                pos.push(p);
            }
            Some(&"bond") => {
                if words.len() != 5 {
                    return Err(err("expected `bond i j k b`"));
                }
                let idx = |w: &str| {
                    w.parse::<usize>()
                        .map_err(|_| err(&format!("`{w}` is not a bead index")))
                };
                let (i, j) = (idx(words[1])?, idx(words[2])?);
                let (k, b) = (num(words[3])?, num(words[4])?);
                if !(k >= 0.0 && b >= 0.0) {
                    return Err(err("k and b must be ≥ 0"));
                }
                if i == j {
                    return Err(err("a bond joins two different beads"));
                }
                raw.push((line_no, i, j, k, b));
            }
            Some(w) => return Err(err(&format!("unknown record `{w}` (expected `bead` or `bond`)"))),
        }
    }
    let mut bonds = Vec::with_capacity(raw.len());
    for &(line_no, i, j, k, b) in &raw {
        if i.max(j) >= pos.len() {
            return Err(format!(
                "{name}:{line_no}: bead index {} past the {} beads of the file",
                i.max(j),
                pos.len()
            ));
        }
        if dist(pos[i], pos[j]) <= 0.0 {
            return Err(format!("{name}:{line_no}: beads {i} and {j} are at the same place"));
        }
        bonds.push(make_bond(i, j, &pos, k, b));
    }
    let spec = BodySpec {
        shape: BodyShape::CubicBlock { n: [0; 3] },
        spacing: 2.0 * radius,
        k: 0.0,
        b: 0.0,
        shell: None,
        bead_mass,
        contact_radius: radius,
        material,
        center: [0.0; 3],
    };
    Ok(BeadBody {
        states: pos.iter().map(|&p| bead(p, &spec)).collect(),
        bonds: BondList::new(pos.len(), bonds),
        outer_radius: 0.0,
        bead_volume: (2.0 * radius).powi(3),
    })
}
