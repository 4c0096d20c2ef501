//! The membrane's topology (Götz & Pöschel §2.2, Fig. 1): vertex particles, triangular patches
//! numbered counter-clockwise seen from outside (outward normal (b − a) × (c − a)), the edges
//! (one stretching spring each, eq 6) and the hinges (two patches sharing an edge, eq 8–16).
//! Built from plain parameters: a cylinder (radius, height, spacing), a flat sheet, or a file.

use anyhow::{bail, Context as _};
use std::collections::BTreeMap;

/// A triangulated surface: vertex positions and patches (vertex indices).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MembraneMesh {
    pub vertices: Vec<[f64; 3]>,
    pub triangles: Vec<[u32; 3]>,
}

/// Two patches sharing the edge (v[2], v[3]); v[0], v[1] are their tips, numbered so that
/// (v0, v2, v3) and (v1, v3, v2) have the patches' orientation (eq 8–9: n1, n2 outward).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hinge {
    pub v: [u32; 4],
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl MembraneMesh {
    /// A cylinder around the z axis through `base` (the centre of its lower rim), radius R, height
    /// H, open at both ends: rings of n = round(2πR/s) vertices, every other ring turned by half a
    /// step, rings √3/2 s apart (stretched to fit H) — nearly equilateral patches of side ≈ s.
    pub fn cylinder(base: [f64; 3], radius: f64, height: f64, spacing: f64) -> MembraneMesh {
        let n = ((2.0 * std::f64::consts::PI * radius / spacing).round() as usize).max(3);
        let rings = ((height / (0.5 * 3f64.sqrt() * spacing)).round() as usize).max(1) + 1;
        let dz = height / (rings - 1) as f64;
        let mut vertices = Vec::with_capacity(n * rings);
        for j in 0..rings {
            for i in 0..n {
                let phi = 2.0 * std::f64::consts::PI * (i as f64 + 0.5 * (j % 2) as f64) / n as f64;
                vertices.push([
                    base[0] + radius * phi.cos(),
                    base[1] + radius * phi.sin(),
                    base[2] + j as f64 * dz,
                ]);
            }
        }
        let id = |j: usize, i: usize| (j * n + i % n) as u32;
        let mut triangles = Vec::with_capacity(2 * n * (rings - 1));
        for j in 0..rings - 1 {
            for i in 0..n {
                if j % 2 == 0 {
                    triangles.push([id(j, i), id(j, i + 1), id(j + 1, i)]);
                    triangles.push([id(j + 1, i), id(j, i + 1), id(j + 1, i + 1)]);
                } else {
                    triangles.push([id(j, i), id(j + 1, i + 1), id(j + 1, i)]);
                    triangles.push([id(j, i), id(j, i + 1), id(j + 1, i + 1)]);
                }
            }
        }
        let mut m = MembraneMesh { vertices, triangles };
        m.orient_outward(|c| [c[0] - base[0], c[1] - base[1], 0.0]);
        m
    }

    /// A flat sheet in the plane z = origin.z: nx × ny vertices, rows √3/2 s apart along y, every
    /// other row shifted by s/2 along x; outward normal +z.
    pub fn sheet(origin: [f64; 3], nx: usize, ny: usize, spacing: f64) -> MembraneMesh {
        let dy = 0.5 * 3f64.sqrt() * spacing;
        let mut vertices = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                let x = (i as f64 + 0.5 * (j % 2) as f64) * spacing;
                vertices.push([origin[0] + x, origin[1] + j as f64 * dy, origin[2]]);
            }
        }
        let id = |j: usize, i: usize| (j * nx + i) as u32;
        let mut triangles = Vec::new();
        for j in 0..ny - 1 {
            for i in 0..nx - 1 {
                if j % 2 == 0 {
                    triangles.push([id(j, i), id(j, i + 1), id(j + 1, i)]);
                    triangles.push([id(j + 1, i), id(j, i + 1), id(j + 1, i + 1)]);
                } else {
                    triangles.push([id(j, i), id(j + 1, i + 1), id(j + 1, i)]);
                    triangles.push([id(j, i), id(j, i + 1), id(j + 1, i + 1)]);
                }
            }
        }
        let mut m = MembraneMesh { vertices, triangles };
        m.orient_outward(|_| [0.0, 0.0, 1.0]);
        m
    }

    /// A mesh from a text file (the OBJ subset `v x y z` and `f a b c`, 1-based, `#` comments),
    /// patches counter-clockwise seen from outside. Errors name the file and line.
    pub fn from_file(path: &std::path::Path) -> anyhow::Result<MembraneMesh> {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// `from_file` on text; `name` is used in error messages.
    pub fn parse(text: &str, name: &str) -> anyhow::Result<MembraneMesh> {
        let mut m = MembraneMesh::default();
        for (k, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut it = line.split_whitespace();
            let at = || format!("{name}:{}", k + 1);
            match it.next() {
                None => {}
                Some("v") => {
                    let xs: Vec<f64> = it
                        .map(|t| t.parse::<f64>())
                        .collect::<Result<_, _>>()
                        .with_context(|| format!("{}: vertex coordinates must be numbers", at()))?;
                    if xs.len() != 3 {
                        bail!("{}: a vertex needs 3 coordinates, found {}", at(), xs.len());
                    }
                    m.vertices.push([xs[0], xs[1], xs[2]]);
                }
                Some("f") => {
                    // `f 1/1/1 2/2/2 3/3/3` is accepted: the index before the first '/'.
                    let ids: Vec<u32> = it
                        .map(|t| t.split('/').next().unwrap_or("").parse::<u32>())
                        .collect::<Result<_, _>>()
                        .with_context(|| format!("{}: face indices must be positive integers", at()))?;
                    if ids.len() != 3 {
                        bail!(
                            "{}: a face needs 3 vertices (triangles only), found {}",
                            at(),
                            ids.len()
                        );
                    }
                    for &i in &ids {
                        if i == 0 || i as usize > m.vertices.len() {
                            bail!(
                                "{}: face index {i} is not a vertex defined above (1..={})",
                                at(),
                                m.vertices.len()
                            );
                        }
                    }
                    m.triangles.push([ids[0] - 1, ids[1] - 1, ids[2] - 1]);
                }
                Some(other) => bail!("{}: unknown record '{other}' (expected v or f)", at()),
            }
        }
        if m.triangles.is_empty() {
            bail!("{name}: no faces");
        }
        Ok(m)
    }

    /// Flips every patch whose normal points against `outward(centroid)`.
    fn orient_outward(&mut self, outward: impl Fn([f64; 3]) -> [f64; 3]) {
        for t in &mut self.triangles {
            let [a, b, c] = t.map(|i| self.vertices[i as usize]);
            let n = cross(sub(b, a), sub(c, a));
            let centroid = [
                (a[0] + b[0] + c[0]) / 3.0,
                (a[1] + b[1] + c[1]) / 3.0,
                (a[2] + b[2] + c[2]) / 3.0,
            ];
            if dot(n, outward(centroid)) < 0.0 {
                t.swap(1, 2);
            }
        }
    }

    /// Unique edges (i < j), sorted.
    pub fn edges(&self) -> Vec<[u32; 2]> {
        let mut e: Vec<[u32; 2]> = self
            .triangles
            .iter()
            .flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]])
            .map(|[a, b]| [a.min(b), a.max(b)])
            .collect();
        e.sort_unstable();
        e.dedup();
        e
    }

    /// One hinge per edge shared by two patches, in edge order (eq 8–9 orientation, see `Hinge`).
    pub fn hinges(&self) -> Vec<Hinge> {
        // Directed edge (a → b) of each patch → the patch's third vertex.
        let mut tip: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                tip.insert((t[k], t[(k + 1) % 3]), t[(k + 2) % 3]);
            }
        }
        let mut out = Vec::new();
        for [a, b] in self.edges() {
            // Patch 1 runs a → b (tip v1), patch 2 runs b → a (tip v2): (v1, a, b), (v2, b, a).
            if let (Some(&v1), Some(&v2)) = (tip.get(&(a, b)), tip.get(&(b, a))) {
                out.push(Hinge { v: [v1, v2, a, b] });
            }
        }
        out
    }

    /// Volume between the patches and the z axis through `axis` (m³): ½ Σ A x_⊥·n̂ over the
    /// patches, x_⊥ the offset from the axis (div x_⊥ = 2; exact for flat patches, centroid rule).
    /// For a cylinder closed by two platens normal to z this is the enclosed volume.
    pub fn volume_about_z(positions: &[[f64; 3]], triangles: &[[u32; 3]], axis: [f64; 2]) -> f64 {
        triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| positions[i as usize]);
                let n = cross(sub(b, a), sub(c, a)); // 2 A n̂
                let cx = (a[0] + b[0] + c[0]) / 3.0 - axis[0];
                let cy = (a[1] + b[1] + c[1]) / 3.0 - axis[1];
                0.25 * (cx * n[0] + cy * n[1])
            })
            .sum()
    }
}
