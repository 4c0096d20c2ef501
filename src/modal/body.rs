//! A modal body (§2–3): reference level set + surface nodes + modes, rigid inertia, modal mass,
//! internal force law and damping; and its initial state. Builders for a disk and a beam.

use super::layout::ModalState;
use super::level_set::{Grid, LevelSet};
use super::modes::Mode;
use super::quadrature::{modal_matrices, Elastic};
use super::stiffness::ModalStiffness;
use super::MAX_MODES;

#[derive(Clone, Debug)]
pub struct ModalBody {
    pub level_set: LevelSet,
    /// Surface nodes, reference coordinates in the body frame (centre of mass at the origin).
    pub nodes: Vec<[f32; 2]>,
    pub modes: Vec<Mode>,
    pub mass: f32,
    pub inertia: f32,
    /// M_αβ (eq 8), row-major n×n.
    pub modal_mass: Vec<f32>,
    pub stiffness: ModalStiffness,
    /// Modal damping C_αβ (force −C ε̇ added to eq 44), row-major n×n.
    pub modal_damping: Vec<f32>,
    /// Rigid-motion damping rate γ: force −γ M V, torque −γ I ω.
    pub rigid_damping: f32,
    pub position: [f64; 2],
    pub theta: f32,
    /// How partners query this body's deformed level set (§3.1.3 or §3.1.4).
    pub query: LevelSetQuery,
    /// Contact material (`ModalScene::contact_materials`; 0: the scene's `contact`).
    pub contact_material: u32,
}

/// The level-set query of a body (contact of other bodies' nodes against it).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LevelSetQuery {
    /// Semi-Lagrangian pullback on demand at the cell corners (§3.1.3, eq 47–48).
    #[default]
    Pullback,
    /// Interpolation along level sets precomputed at the sample amplitudes `samples` (increasing,
    /// at least two, the same for every mode; amplitudes outside are clamped to the ends), §3.1.4,
    /// eq 49–50 (`precomputed.rs`).
    Precomputed { samples: Vec<f32> },
}

impl ModalBody {
    pub fn n_modes(&self) -> usize {
        self.modes.len()
    }

    /// Radius of a circle around the reference centre containing every surface node.
    pub fn reference_radius(&self) -> f32 {
        self.nodes
            .iter()
            .map(|p| (p[0] * p[0] + p[1] * p[1]).sqrt())
            .fold(0.0, f32::max)
    }

    pub fn initial_state(&self) -> ModalState {
        let (x_hi, x_lo) = crate::model::df32::df_split(self.position);
        ModalState {
            x_hi,
            x_lo,
            v: [0.0; 2],
            theta: self.theta,
            omega: 0.0,
            eps: [0.0; 4],
            eps_dot: [0.0; 4],
        }
    }

    /// Checks the sizes of the matrices against the mode count.
    pub fn validate(&self) -> anyhow::Result<()> {
        let n = self.n_modes();
        anyhow::ensure!(
            (1..=MAX_MODES).contains(&n),
            "modal body: {n} modes (1..={MAX_MODES} supported)"
        );
        anyhow::ensure!(self.modal_mass.len() == n * n, "modal body: modal_mass is not {n}×{n}");
        anyhow::ensure!(
            self.modal_damping.len() == n * n,
            "modal body: modal_damping is not {n}×{n}"
        );
        match &self.stiffness {
            ModalStiffness::Linear(k) => anyhow::ensure!(k.len() == n * n, "modal body: K is not {n}×{n}"),
            ModalStiffness::Table(t) => {
                anyhow::ensure!(n == 1, "modal body: a force table needs exactly one mode");
                anyhow::ensure!(
                    t.len() >= 2 && t[0] == [0.0, 0.0],
                    "modal body: table must start at (0, 0)"
                );
            }
        }
        for m in &self.modes {
            if let Mode::Grid { ux, uy } = m {
                anyhow::ensure!(
                    ux.len() == self.level_set.grid.len() && uy.len() == ux.len(),
                    "modal body: tabulated mode is not on the level-set grid"
                );
            }
        }
        if let LevelSetQuery::Precomputed { samples } = &self.query {
            anyhow::ensure!(
                samples.len() >= 2 && samples.windows(2).all(|w| w[0] < w[1]),
                "modal body: precomputed level sets need at least two increasing sample amplitudes"
            );
        }
        Ok(())
    }
}

/// Surface nodes of a circle of radius r, node k at angle (k + phase)·2π/n.
pub fn circle_nodes(r: f64, n: usize, phase: f64) -> Vec<[f64; 2]> {
    (0..n)
        .map(|k| {
            let a = 2.0 * std::f64::consts::PI * (k as f64 + phase) / n as f64;
            [r * a.cos(), r * a.sin()]
        })
        .collect()
}

/// Surface nodes of the rectangle [−a, a] × [−b, b] at spacing ≤ `ds`, corners included.
pub fn rectangle_nodes(a: f64, b: f64, ds: f64) -> Vec<[f64; 2]> {
    let corners = [[-a, -b], [a, -b], [a, b], [-a, b]];
    let mut out = Vec::new();
    for e in 0..4 {
        let (p, q) = (corners[e], corners[(e + 1) % 4]);
        let len = ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt();
        let n = (len / ds).ceil() as usize;
        for s in 0..n {
            let t = s as f64 / n as f64;
            out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
        }
    }
    out
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|x| *x as f32).collect()
}

/// A disk of radius r, level-set spacing h, `n_nodes` surface nodes (offset by half a spacing, so
/// that with n divisible by 4 two nodes straddle each axis point: a node polygon resting on a
/// single vertex against a flat partner is rotationally unstable, on an edge it is stable), density ρ, one tabulated mode
/// `mode` (sampled on the level-set grid), mass matrix from eq 8 and the internal force `stiffness`.
/// The modal damping is c (one mode).
#[allow(clippy::too_many_arguments)]
pub fn disk(
    center: [f64; 2],
    r: f64,
    h: f64,
    n_nodes: usize,
    density: f64,
    mode: impl Fn([f64; 2]) -> [f64; 2],
    stiffness: ModalStiffness,
    c: f64,
) -> ModalBody {
    let grid = Grid::covering([-r, -r], [r, r], h, 3);
    let level_set = LevelSet::from_fn(grid.clone(), |p| (p[0] * p[0] + p[1] * p[1]).sqrt() - r);
    let modes = vec![Mode::tabulate(&grid, mode)];
    let (m, _) = modal_matrices(
        &level_set,
        &modes,
        density,
        Elastic {
            young: 1.0,
            poisson: 0.0,
        },
        4,
    );
    let mass = density * std::f64::consts::PI * r * r;
    ModalBody {
        level_set,
        nodes: circle_nodes(r, n_nodes, 0.5)
            .iter()
            .map(|p| [p[0] as f32, p[1] as f32])
            .collect(),
        modes,
        mass: mass as f32,
        inertia: (0.5 * mass * r * r) as f32,
        modal_mass: f32s(&m),
        stiffness,
        modal_damping: vec![c as f32],
        rigid_damping: 0.0,
        position: center,
        theta: 0.0,
        query: LevelSetQuery::Pullback,
        contact_material: 0,
    }
}

/// A beam [−L/2, L/2] × [−t/2, t/2] with the bending mode of eq 51 (2D), level-set spacing h,
/// surface node spacing ≤ ds, density ρ, plane-stress material `mat`; M and K by eq 8 and eq 4.
/// Modal damping ratio ζ (c = 2ζ√(KM)).
#[allow(clippy::too_many_arguments)]
pub fn beam(
    center: [f64; 2],
    length: f64,
    thickness: f64,
    h: f64,
    ds: f64,
    density: f64,
    mat: Elastic,
    zeta: f64,
) -> ModalBody {
    let (a, b) = (0.5 * length, 0.5 * thickness);
    let poly = [[-a, -b], [a, -b], [a, b], [-a, b]];
    let grid = Grid::covering([-a, -b], [a, b], h, 3);
    let level_set = LevelSet::from_polygon(grid, &poly);
    let modes = vec![Mode::Bending {
        length: length as f32,
        x_left: -a as f32,
        y_mid: 0.0,
    }];
    let (m, k) = modal_matrices(&level_set, &modes, density, mat, 8);
    let mass = density * length * thickness;
    ModalBody {
        level_set,
        nodes: rectangle_nodes(a, b, ds)
            .iter()
            .map(|p| [p[0] as f32, p[1] as f32])
            .collect(),
        modes,
        mass: mass as f32,
        inertia: (mass * (length * length + thickness * thickness) / 12.0) as f32,
        modal_mass: f32s(&m),
        stiffness: ModalStiffness::Linear(f32s(&k)),
        modal_damping: vec![(2.0 * zeta * (k[0] * m[0]).sqrt()) as f32],
        rigid_damping: 0.0,
        position: center,
        theta: 0.0,
        query: LevelSetQuery::Pullback,
        contact_material: 0,
    }
}
