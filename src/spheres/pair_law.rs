//! The law table: one `PairLaw` record per ordered material pair (n_mat × n_mat, symmetric),
//! built from per-material properties by the mixing rules of `laws::mixing`. Walls are materials
//! too (a rigid wall has E = ∞). Mirrored by `PairLaw` in `shaders/sphere_contact.wgsl`.

use crate::laws::hertz::HertzParams;
use crate::laws::linear_spring_dashpot::LinearSpringDashpotParams;
use crate::laws::mc_stress::{McStressParams, MC_PRESSURE_APPENDIX};
use crate::laws::mindlin::MindlinParams;
use crate::laws::mixing::{effective_shear, effective_young, mix_mean, restitution_damping_ratio};
use crate::laws::rolling_resistance::RollingParams;
use bytemuck::{Pod, Zeroable};

/// `PairLaw::kind`: Hertz normal force (eq 3) + Mindlin/Tsuji tangential spring (eq 4–6).
pub const LAW_HERTZ_MINDLIN: u32 = 0;
/// `PairLaw::kind`: linear spring–dashpot, normal and tangential.
pub const LAW_LINEAR: u32 = 1;
/// `PairLaw::kind`: the bead planes' repulsion F = S δ² (eq 6 of the bonded-beads paper,
/// `laws::plane_repulsion`), normal only, no damping, no friction; S (N/m²) in `linear.k_n`.
/// A wall law: an eq-6 wall's material pairs with every sphere material by it.
pub const LAW_PLANE_REPULSION: u32 = 2;

/// The contact law of one material pair (72 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairLaw {
    /// `LAW_HERTZ_MINDLIN`, `LAW_LINEAR` or `LAW_PLANE_REPULSION`.
    pub kind: u32,
    pub _pad0: u32,
    pub hertz: HertzParams,
    pub mindlin: MindlinParams,
    pub linear: LinearSpringDashpotParams,
    pub rolling: RollingParams,
    /// MC-stress multi-contact correction of the Hertz force (β = 0: classical DEM).
    pub mc: McStressParams,
}

/// A material's properties (SI). `young = f64::INFINITY` makes a rigid wall material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereMaterial {
    pub young: f64,
    pub poisson: f64,
    pub restitution: f64,
    pub friction: f64,
    pub rolling_friction: f64,
    pub density: f64,
}

impl SphereMaterial {
    /// Table 1 of the paper: hydrogel.
    pub const HYDROGEL: SphereMaterial = SphereMaterial {
        young: 23.3e3,
        poisson: 0.5,
        restitution: 0.95,
        friction: 0.03,
        rolling_friction: 0.0,
        density: 11.5,
    };
    /// Table 1: rubber.
    pub const RUBBER: SphereMaterial = SphereMaterial {
        young: 1.85e6,
        poisson: 0.46,
        restitution: 0.7,
        friction: 0.5,
        rolling_friction: 0.0,
        density: 2000.0,
    };
    /// Table 1: glass.
    pub const GLASS: SphereMaterial = SphereMaterial {
        young: 65e9,
        poisson: 0.24,
        restitution: 0.98,
        friction: 0.2,
        rolling_friction: 0.0,
        density: 2500.0,
    };
}

impl PairLaw {
    /// Hertz–Mindlin law of materials a and b: E*, G* exact, e, μ, μ_r by `mix_mean`.
    pub fn hertz_mindlin(a: &SphereMaterial, b: &SphereMaterial) -> PairLaw {
        let e = mix_mean(a.restitution, b.restitution);
        let beta_e = restitution_damping_ratio(e) as f32;
        PairLaw {
            kind: LAW_HERTZ_MINDLIN,
            hertz: HertzParams::new(effective_young(a.young, a.poisson, b.young, b.poisson), e),
            mindlin: MindlinParams {
                g_star: effective_shear(a.young, a.poisson, b.young, b.poisson) as f32,
                mu: mix_mean(a.friction, b.friction) as f32,
                beta_e,
                _pad: 0.0,
            },
            rolling: RollingParams {
                mu_r: mix_mean(a.rolling_friction, b.rolling_friction) as f32,
                _pad: 0.0,
            },
            mc: McStressParams {
                beta: 0.0,
                nu: mix_mean(a.poisson, b.poisson) as f32,
                pressure_factor: MC_PRESSURE_APPENDIX,
                options: 0,
            },
            ..Default::default()
        }
    }

    /// This law with MC-stress switched on: prefactor β and `mc_stress::MC_*` option bits.
    pub fn with_mc_stress(mut self, beta: f64, options: u32) -> PairLaw {
        self.mc.beta = beta as f32;
        self.mc.options = options;
        self
    }

    /// Linear spring–dashpot law with stiffnesses k_n, k_t, restitution e and friction μ.
    pub fn linear(k_n: f64, k_t: f64, restitution: f64, mu: f64) -> PairLaw {
        PairLaw {
            kind: LAW_LINEAR,
            linear: LinearSpringDashpotParams {
                k_n: k_n as f32,
                k_t: k_t as f32,
                beta_e: restitution_damping_ratio(restitution) as f32,
                mu: mu as f32,
            },
            ..Default::default()
        }
    }
}

impl PairLaw {
    /// Eq 6 of the bonded beads, F = S δ² (`LAW_PLANE_REPULSION`; S stored in `linear.k_n`,
    /// every other stiffness, damping and friction zero).
    pub fn plane_repulsion(s: f64) -> PairLaw {
        PairLaw {
            kind: LAW_PLANE_REPULSION,
            linear: LinearSpringDashpotParams {
                k_n: s as f32,
                k_t: 0.0,
                beta_e: 0.0,
                mu: 0.0,
            },
            ..Default::default()
        }
    }
}

/// The n × n table of pair laws, row-major by (material_i, material_j).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LawTable {
    pub n_materials: usize,
    pub laws: Vec<PairLaw>,
}

impl LawTable {
    /// Hertz–Mindlin for every pair of `materials` (mixed by the rules above).
    pub fn hertz_mindlin(materials: &[SphereMaterial]) -> LawTable {
        let n = materials.len();
        let mut laws = Vec::with_capacity(n * n);
        for a in materials {
            for b in materials {
                laws.push(PairLaw::hertz_mindlin(a, b));
            }
        }
        LawTable { n_materials: n, laws }
    }

    /// One law for every pair of `n` materials.
    pub fn uniform(n: usize, law: PairLaw) -> LawTable {
        LawTable {
            n_materials: n,
            laws: vec![law; n * n],
        }
    }

    /// MC-stress on every pair (β, options), as `PairLaw::with_mc_stress`.
    pub fn with_mc_stress(mut self, beta: f64, options: u32) -> LawTable {
        for l in &mut self.laws {
            *l = l.with_mc_stress(beta, options);
        }
        self
    }

    /// MC-strain (eq 7–8) on every pair with prefactor γ (stored in `mc.beta`, flag `MC_STRAIN`).
    pub fn with_mc_strain(self, gamma: f64, options: u32) -> LawTable {
        self.with_mc_stress(gamma, options | crate::laws::mc_strain::MC_STRAIN)
    }

    /// Whether some pair uses MC-strain (the stepper then runs `strain_pass`).
    pub fn has_mc_strain(&self) -> bool {
        self.laws
            .iter()
            .any(|l| l.mc.beta != 0.0 && (l.mc.options & crate::laws::mc_strain::MC_STRAIN) != 0)
    }

    /// Whether some pair uses MC-stress or MC-strain (the stepper then runs their passes).
    pub fn has_mc_stress(&self) -> bool {
        self.laws.iter().any(|l| l.mc.beta != 0.0)
    }

    /// Whether some pair has rolling resistance (μ_r > 0; the GPU stepper then holds a rolling
    /// history per pair).
    pub fn has_rolling(&self) -> bool {
        self.laws.iter().any(|l| l.rolling.mu_r > 0.0)
    }

    /// Law of materials a, b.
    pub fn get(&self, a: u32, b: u32) -> &PairLaw {
        &self.laws[a as usize * self.n_materials + b as usize]
    }
}
