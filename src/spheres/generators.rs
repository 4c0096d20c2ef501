//! Sphere packings for 3D scenes: lattices (simple cubic, FCC, HCP), random polydisperse packings
//! without overlap in a box, a cylinder or a ball, and spheres read from a CSV file (x, y, z, r).
//!
//! Every generator keeps each sphere wholly inside its region and is deterministic (SplitMix64
//! from the given seed). Random packings are made by random sequential addition, largest radius
//! first, with a uniform grid for the overlap test (no all-pairs stage): they are loose (RSA of
//! equal spheres jams near φ ≈ 0.38) and meant to be settled or compressed by the run.

use crate::scenes::SplitMix;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::path::Path;

/// A sphere of a generated packing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    pub center: [f64; 3],
    pub radius: f64,
}

impl Sphere {
    pub fn volume(&self) -> f64 {
        4.0 / 3.0 * PI * self.radius.powi(3)
    }
}

/// Where spheres are placed. A cylinder's axis is z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    Box { min: [f64; 3], max: [f64; 3] },
    Cylinder { axis: [f64; 2], radius: f64, z: [f64; 2] },
    Ball { center: [f64; 3], radius: f64 },
}

impl Region {
    /// Whether a sphere of radius `r` at `c` lies wholly inside.
    pub fn contains(&self, c: [f64; 3], r: f64) -> bool {
        match *self {
            Region::Box { min, max } => (0..3).all(|d| c[d] - r >= min[d] && c[d] + r <= max[d]),
            Region::Cylinder { axis, radius, z } => {
                let (dx, dy) = (c[0] - axis[0], c[1] - axis[1]);
                (dx * dx + dy * dy).sqrt() + r <= radius && c[2] - r >= z[0] && c[2] + r <= z[1]
            }
            Region::Ball { center, radius } => dist(c, center) + r <= radius,
        }
    }

    /// Axis-aligned bounds (min, max).
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        match *self {
            Region::Box { min, max } => (min, max),
            Region::Cylinder { axis, radius, z } => (
                [axis[0] - radius, axis[1] - radius, z[0]],
                [axis[0] + radius, axis[1] + radius, z[1]],
            ),
            Region::Ball { center, radius } => (center.map(|x| x - radius), center.map(|x| x + radius)),
        }
    }

    pub fn volume(&self) -> f64 {
        match *self {
            Region::Box { min, max } => (0..3).map(|d| max[d] - min[d]).product(),
            Region::Cylinder { radius, z, .. } => PI * radius * radius * (z[1] - z[0]),
            Region::Ball { radius, .. } => 4.0 / 3.0 * PI * radius.powi(3),
        }
    }
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Packed volume fraction of `spheres` in `region`.
pub fn volume_fraction(spheres: &[Sphere], region: &Region) -> f64 {
    spheres.iter().map(Sphere::volume).sum::<f64>() / region.volume()
}

/// Lattice kinds, by nearest-neighbour distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lattice {
    /// Coordination 6; touching spheres fill π/6 ≈ 0.524.
    SimpleCubic,
    /// Face-centred cubic: coordination 12; touching spheres fill π/(3√2) ≈ 0.740.
    Fcc,
    /// Hexagonal close packing (ABAB layers normal to z): coordination 12, the same fraction.
    Hcp,
}

/// Spheres of radius `radius` on a lattice of nearest-neighbour distance `spacing`, the lattice's
/// origin at the region's lower corner plus `radius`, keeping the spheres wholly inside `region`.
pub fn lattice(kind: Lattice, radius: f64, spacing: f64, region: &Region) -> Vec<Sphere> {
    assert!(radius > 0.0 && spacing > 0.0);
    let (lo, hi) = region.bounds();
    let o = lo.map(|x| x + radius);
    let mut out = vec![];
    let mut keep = |c: [f64; 3]| {
        if region.contains(c, radius) {
            out.push(Sphere { center: c, radius });
        }
    };
    let count = |d: usize, step: f64| ((hi[d] - o[d]) / step).floor().max(-1.0) as i64 + 1;
    match kind {
        Lattice::SimpleCubic => {
            for k in 0..count(2, spacing) {
                for j in 0..count(1, spacing) {
                    for i in 0..count(0, spacing) {
                        keep([
                            o[0] + i as f64 * spacing,
                            o[1] + j as f64 * spacing,
                            o[2] + k as f64 * spacing,
                        ]);
                    }
                }
            }
        }
        Lattice::Fcc => {
            // Cubic cell of side a = √2 d, basis (0,0,0), (½,½,0), (½,0,½), (0,½,½).
            let a = spacing * 2f64.sqrt();
            let basis = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]];
            for k in 0..count(2, a) + 1 {
                for j in 0..count(1, a) + 1 {
                    for i in 0..count(0, a) + 1 {
                        for b in basis {
                            keep([
                                o[0] + (i as f64 + b[0]) * a,
                                o[1] + (j as f64 + b[1]) * a,
                                o[2] + (k as f64 + b[2]) * a,
                            ]);
                        }
                    }
                }
            }
        }
        Lattice::Hcp => {
            // Layers of triangular lattices d·√(2/3) apart; B layers shifted by (d/2, d/(2√3)).
            let (dy, dz) = (spacing * 3f64.sqrt() / 2.0, spacing * (2.0 / 3.0f64).sqrt());
            for k in 0..count(2, dz) {
                let shift = if k % 2 == 1 {
                    [0.5 * spacing, spacing / (2.0 * 3f64.sqrt())]
                } else {
                    [0.0, 0.0]
                };
                for j in 0..count(1, dy) {
                    let row = if j % 2 == 1 { 0.5 * spacing } else { 0.0 };
                    // From i = −1: rows shifted by a whole spacing start one site earlier.
                    for i in -1..count(0, spacing) {
                        keep([
                            o[0] + i as f64 * spacing + row + shift[0],
                            o[1] + j as f64 * dy + shift[1],
                            o[2] + k as f64 * dz,
                        ]);
                    }
                }
            }
        }
    }
    out
}

/// A random polydisperse packing: `count` spheres with radii uniform in [r_min, r_max].
#[derive(Clone, Copy, Debug)]
pub struct RandomPacking {
    pub region: Region,
    pub count: usize,
    pub r_min: f64,
    pub r_max: f64,
    pub seed: u64,
    /// Random positions tried per sphere before giving up.
    pub attempts: usize,
}

/// Places the spheres of `spec` by random sequential addition, largest first; errors (naming how
/// many were placed and the fraction reached) when a sphere finds no free place.
pub fn random_packing(spec: &RandomPacking) -> Result<Vec<Sphere>, String> {
    if !(spec.r_min > 0.0 && spec.r_max >= spec.r_min) {
        return Err(format!(
            "radii must satisfy 0 < r_min <= r_max (r_min = {}, r_max = {})",
            spec.r_min, spec.r_max
        ));
    }
    let mut rng = SplitMix(spec.seed);
    let mut radii: Vec<f64> = (0..spec.count)
        .map(|_| spec.r_min + (spec.r_max - spec.r_min) * rng.next_f64())
        .collect();
    radii.sort_by(|a, b| b.total_cmp(a));
    let (lo, hi) = spec.region.bounds();
    // Grid of cell 2 r_max: an overlapping sphere lies in one of the 27 cells around.
    let cell = 2.0 * spec.r_max;
    let key = |c: [f64; 3]| [0, 1, 2].map(|d| ((c[d] - lo[d]) / cell).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    let mut placed: Vec<Sphere> = Vec::with_capacity(spec.count);
    for &r in &radii {
        let mut found = None;
        for _ in 0..spec.attempts.max(1) {
            let c = [0, 1, 2].map(|d| lo[d] + r + (hi[d] - lo[d] - 2.0 * r).max(0.0) * rng.next_f64());
            if !spec.region.contains(c, r) {
                continue;
            }
            let k = key(c);
            let free = (-1..=1).all(|dz| {
                (-1..=1).all(|dy| {
                    (-1..=1).all(|dx| {
                        grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz])
                            .is_none_or(|list| list.iter().all(|&i| dist(placed[i].center, c) >= placed[i].radius + r))
                    })
                })
            });
            if free {
                found = Some(c);
                break;
            }
        }
        let Some(c) = found else {
            return Err(format!(
                "random packing: placed {} of {} spheres (volume fraction {:.3}) before one of radius {r} found \
                 no free place in {} attempts; use a larger region or fewer spheres, and compress in the run",
                placed.len(),
                spec.count,
                volume_fraction(&placed, &spec.region),
                spec.attempts
            ));
        };
        grid.entry(key(c)).or_default().push(placed.len());
        placed.push(Sphere { center: c, radius: r });
    }
    Ok(placed)
}

/// Reads spheres from a CSV file with a header naming the columns `x`, `y`, `z`, `r` (in any
/// order; other columns are ignored; `#` lines and blank lines skipped). Errors read
/// `FILE:LINE: ...` and name the column.
pub fn read_spheres_csv(path: &Path) -> Result<Vec<Sphere>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_spheres_csv(&text).map_err(|e| format!("{}:{e}", path.display()))
}

/// [`read_spheres_csv`] on the file's text; errors start with `LINE: `.
pub fn parse_spheres_csv(text: &str) -> Result<Vec<Sphere>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (hl, header) = lines.next().ok_or("1: empty file: expected a header `x,y,z,r`")?;
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let column = |want: &str| {
        names
            .iter()
            .position(|n| *n == want)
            .ok_or_else(|| format!("{hl}: the header `{header}` has no column `{want}` (needs x, y, z, r)"))
    };
    let cols = [column("x")?, column("y")?, column("z")?, column("r")?];
    let mut out = vec![];
    for (ln, line) in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != names.len() {
            return Err(format!("{ln}: {} fields, the header has {}", fields.len(), names.len()));
        }
        let mut v = [0.0; 4];
        for (k, &c) in cols.iter().enumerate() {
            v[k] = fields[c]
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("{ln}: column `{}`: `{}` is not a finite number", names[c], fields[c]))?;
        }
        if v[3] <= 0.0 {
            return Err(format!("{ln}: column `r`: radius {} must be > 0", v[3]));
        }
        out.push(Sphere {
            center: [v[0], v[1], v[2]],
            radius: v[3],
        });
    }
    Ok(out)
}
