//! Materials: raw stiffnesses, or the paper's conversions from physical parameters
//! (E, ν, h, s, σ^Y: eq 11–14) and from the dimensionless ratios ξ, η, γ of a ring of radius R
//! with N nodes (eq 19–27). Also the derived values that `softdem check` prints.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::Problem;
use crate::model::{LinkLaw, Material};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// `[contact]`: the contact law between every pair of bodies (eq 5–8), the default contact
/// material; also the form of each `[contact_materials.NAME]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Contact {
    /// Normal stiffness k_n [force/length] (eq 6).
    pub k_n: f64,
    /// Tangential stiffness k_t [force/length] (eq 7).
    #[serde(default)]
    pub k_t: f64,
    /// Coulomb friction coefficient μ (eq 7–8).
    #[serde(default)]
    pub mu: f64,
    /// Normal viscous damping c_n [force·time/length].
    #[serde(default)]
    pub c_n: f64,
}

/// `[materials.NAME]`: a shell and core material, given one of three ways (see docs/scenarios.md).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSpec {
    // Raw stiffnesses.
    pub k_s: Option<f64>,
    pub k_b: Option<f64>,
    pub k_core: Option<f64>,
    pub f_s_yield: Option<f64>,
    pub m_b_yield: Option<f64>,
    pub c_s: Option<f64>,
    pub c_b: Option<f64>,
    // Physical parameters (eq 11–14).
    pub young: Option<f64>,
    pub poisson: Option<f64>,
    pub thickness: Option<f64>,
    pub yield_stress: Option<f64>,
    // Dimensionless ratios (eq 19–27).
    pub xi: Option<f64>,
    pub eta: Option<f64>,
    pub gamma: Option<f64>,
    // Reference ring for ℓ = 2R sin(π/N).
    pub radius: Option<f64>,
    pub nodes: Option<u32>,
    /// Out-of-plane depth s [length] (default 1).
    pub depth: Option<f64>,
    /// Mass of one node [mass]; exclusive with `cell_mass`.
    pub node_mass: Option<f64>,
    /// Mass of one body [mass], shared equally by its nodes.
    pub cell_mass: Option<f64>,
}

/// `[link_laws.NAME]`: a cohesive link law (§7, eq 41) used by `tissue` bodies. Forces in the
/// paper's sign convention (compression positive): the tensile threshold `f_n0` is < 0; a
/// positive `tensile_strength` may be given instead (f_n0 = −tensile_strength).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkLawSpec {
    /// Normal stiffness k_n [force/length].
    pub k_n: f64,
    /// Tangential stiffness k_t [force/length] (default 0.1 k_n).
    pub k_t: Option<f64>,
    /// Tensile threshold f_n^0 [force] (< 0); exclusive with `tensile_strength`.
    pub f_n0: Option<f64>,
    /// Tensile threshold as a positive force [force]: f_n^0 = −tensile_strength.
    pub tensile_strength: Option<f64>,
    /// Shear threshold f_t^0 [force] (> 0).
    pub f_t0: f64,
    /// Exponent α of eq 41 (default 2).
    pub alpha: Option<f64>,
    /// Energy criterion: critical stored energy per unit interface length [energy/length]
    /// (default: none).
    pub g_c: Option<f64>,
}

/// A material with everything resolved, and the values derived for a reference ring.
#[derive(Clone, Debug)]
pub struct ResolvedMaterial {
    pub name: String,
    pub material: Material,
    pub node_mass: Option<f64>,
    pub cell_mass: Option<f64>,
    /// How k_s, k_b were given: "raw", "physical (eq 11–14)" or "ratios (eq 19–27)".
    pub mode: &'static str,
    pub reference: Option<RingReference>,
}

/// Values of the reference ring (radius R, N nodes) of a material.
#[derive(Clone, Copy, Debug)]
pub struct RingReference {
    pub radius: f64,
    pub nodes: u32,
    /// Segment length ℓ = 2R sin(π/N).
    pub ell: f64,
    /// ξ = k_b/(k_s ℓ²) (eq 19).
    pub xi: f64,
    /// K_∂Ω = (k_s/s) tan(π/N) (eq 25).
    pub k_shell: f64,
    /// η = K_Ω/K_∂Ω (eq 20).
    pub eta: f64,
    /// M* = E I_c/((1−ν²)R) = k_b ℓ/R (eq 26, 34).
    pub m_star: f64,
    /// γ = M^Y/M* (eq 27).
    pub gamma: f64,
    /// F* = k_b/R (eq 32).
    pub f_star: f64,
    /// σ* = F*/(2Rs) (eq 39).
    pub sigma_star: f64,
}

/// Segment length of a regular N-gon of circumradius R.
pub fn ring_segment(radius: f64, nodes: u32) -> f64 {
    2.0 * radius * (PI / nodes as f64).sin()
}

/// eq 11: k_s = E h/(1−ν²).
pub fn stretch_stiffness(young: f64, poisson: f64, h: f64) -> f64 {
    young * h / (1.0 - poisson * poisson)
}

/// eq 12: k_b = E h³/(12(1−ν²)).
pub fn bending_stiffness(young: f64, poisson: f64, h: f64) -> f64 {
    young * h.powi(3) / (12.0 * (1.0 - poisson * poisson))
}

/// eq 13: F_s^Y = h s σ^Y.
pub fn stretch_yield(h: f64, depth: f64, sigma_y: f64) -> f64 {
    h * depth * sigma_y
}

/// eq 14: M_b^Y = 4 I_c σ^Y/h with I_c = h³ℓ/12, i.e. h² ℓ σ^Y/3.
pub fn bending_yield(h: f64, ell: f64, sigma_y: f64) -> f64 {
    4.0 * (h.powi(3) * ell / 12.0) * sigma_y / h
}

/// eq 25: K_∂Ω ≃ (k_s/s) tan(π/N).
pub fn shell_core_stiffness(k_s: f64, depth: f64, nodes: u32) -> f64 {
    k_s / depth * (PI / nodes as f64).tan()
}

fn nonneg(path: &str, key: &str, v: Option<f64>) -> Result<Option<f64>, Problem> {
    match v {
        Some(x) if !(x >= 0.0) => Err(Problem::new(
            format!("{path}.{key}"),
            format!("{key} = {x} must be ≥ 0"),
        )),
        _ => Ok(v),
    }
}

fn exclusive(path: &str, a: (&str, bool), b: (&str, bool), why: &str) -> Result<(), Problem> {
    if a.1 && b.1 {
        return Err(Problem::new(
            format!("{path}.{}", b.0),
            format!("give either {} or {}, not both ({why})", a.0, b.0),
        ));
    }
    Ok(())
}

/// Resolves `[materials.NAME]`.
pub fn resolve(name: &str, m: &MaterialSpec) -> Result<ResolvedMaterial, Problem> {
    let p = format!("materials.{name}");
    for (key, v) in [
        ("k_s", m.k_s),
        ("k_b", m.k_b),
        ("k_core", m.k_core),
        ("f_s_yield", m.f_s_yield),
        ("m_b_yield", m.m_b_yield),
        ("c_s", m.c_s),
        ("c_b", m.c_b),
        ("young", m.young),
        ("poisson", m.poisson),
        ("thickness", m.thickness),
        ("yield_stress", m.yield_stress),
        ("xi", m.xi),
        ("eta", m.eta),
        ("gamma", m.gamma),
        ("radius", m.radius),
        ("depth", m.depth),
        ("node_mass", m.node_mass),
        ("cell_mass", m.cell_mass),
    ] {
        nonneg(&p, key, v)?;
    }
    let depth = m.depth.unwrap_or(1.0);
    if depth <= 0.0 {
        return Err(Problem::new(format!("{p}.depth"), "depth must be > 0"));
    }
    // Reference ring.
    let ell = match (m.radius, m.nodes) {
        (Some(r), Some(n)) => {
            if n < 3 {
                return Err(Problem::new(format!("{p}.nodes"), "a ring needs nodes ≥ 3"));
            }
            if r <= 0.0 {
                return Err(Problem::new(format!("{p}.radius"), "radius must be > 0"));
            }
            Some(ring_segment(r, n))
        }
        (Some(_), None) => {
            return Err(Problem::new(
                format!("{p}.radius"),
                "radius needs nodes (the reference ring)",
            ))
        }
        (None, Some(_)) => {
            return Err(Problem::new(
                format!("{p}.nodes"),
                "nodes needs radius (the reference ring)",
            ))
        }
        (None, None) => None,
    };
    let need_ell = |key: &str| -> Result<f64, Problem> {
        ell.ok_or_else(|| {
            Problem::new(
                format!("{p}.{key}"),
                format!("{key} needs the reference ring: add radius and nodes to [{p}]"),
            )
        })
    };
    // Stretch and bending stiffness.
    exclusive(
        &p,
        ("k_s", m.k_s.is_some()),
        ("young", m.young.is_some()),
        "young sets k_s by eq 11",
    )?;
    let (k_s, mut k_b, mode);
    if let Some(e) = m.young {
        let h = m
            .thickness
            .ok_or_else(|| Problem::new(format!("{p}.young"), "young needs thickness h (eq 11–12)"))?;
        let nu = m.poisson.unwrap_or(0.0);
        if nu >= 0.5 {
            return Err(Problem::new(format!("{p}.poisson"), "poisson must be in [0, 0.5)"));
        }
        exclusive(&p, ("young", true), ("k_b", m.k_b.is_some()), "young sets k_b by eq 12")?;
        exclusive(&p, ("young", true), ("xi", m.xi.is_some()), "young sets k_b by eq 12")?;
        k_s = stretch_stiffness(e, nu, h);
        k_b = bending_stiffness(e, nu, h);
        mode = "physical (eq 11–14)";
    } else {
        k_s = m
            .k_s
            .ok_or_else(|| Problem::new(p.clone(), "missing field `k_s` (or `young` with `thickness`)"))?;
        for key in ["poisson"] {
            if m.poisson.is_some() {
                return Err(Problem::new(format!("{p}.{key}"), "poisson is only used with young"));
            }
        }
        exclusive(
            &p,
            ("k_b", m.k_b.is_some()),
            ("xi", m.xi.is_some()),
            "xi sets k_b by eq 19",
        )?;
        if let Some(xi) = m.xi {
            let l = need_ell("xi")?;
            k_b = xi * k_s * l * l;
            mode = "ratios (eq 19–27)";
        } else {
            k_b = m.k_b.unwrap_or(0.0);
            mode = "raw";
        }
    }
    if k_s <= 0.0 {
        return Err(Problem::new(format!("{p}.k_s"), "k_s must be > 0"));
    }
    if !k_b.is_finite() {
        k_b = 0.0;
    }
    // Core modulus.
    exclusive(
        &p,
        ("k_core", m.k_core.is_some()),
        ("eta", m.eta.is_some()),
        "eta sets k_core by eq 20, 25",
    )?;
    let k_core = match (m.k_core, m.eta) {
        (Some(k), _) => k,
        (None, Some(eta)) => {
            need_ell("eta")?;
            eta * shell_core_stiffness(k_s, depth, m.nodes.unwrap_or(3))
        }
        _ => 0.0,
    };
    // Plastic thresholds.
    exclusive(
        &p,
        ("f_s_yield", m.f_s_yield.is_some()),
        ("yield_stress", m.yield_stress.is_some()),
        "yield_stress sets F_s^Y by eq 13",
    )?;
    exclusive(
        &p,
        ("m_b_yield", m.m_b_yield.is_some()),
        ("yield_stress", m.yield_stress.is_some()),
        "yield_stress sets M_b^Y by eq 14",
    )?;
    exclusive(
        &p,
        ("m_b_yield", m.m_b_yield.is_some()),
        ("gamma", m.gamma.is_some()),
        "gamma sets M_b^Y by eq 27",
    )?;
    exclusive(
        &p,
        ("yield_stress", m.yield_stress.is_some()),
        ("gamma", m.gamma.is_some()),
        "both set M_b^Y",
    )?;
    let mut f_s_yield = m.f_s_yield.unwrap_or(f64::INFINITY);
    let mut m_b_yield = m.m_b_yield.unwrap_or(f64::INFINITY);
    if let Some(sy) = m.yield_stress {
        let h = m
            .thickness
            .ok_or_else(|| Problem::new(format!("{p}.yield_stress"), "yield_stress needs thickness h (eq 13–14)"))?;
        f_s_yield = stretch_yield(h, depth, sy);
        m_b_yield = bending_yield(h, need_ell("yield_stress")?, sy);
    } else if m.thickness.is_some() && m.young.is_none() {
        return Err(Problem::new(
            format!("{p}.thickness"),
            "thickness is only used with young or yield_stress",
        ));
    }
    if let Some(g) = m.gamma {
        let l = need_ell("gamma")?;
        m_b_yield = g * k_b * l / m.radius.unwrap_or(1.0);
    }
    // Masses.
    exclusive(
        &p,
        ("node_mass", m.node_mass.is_some()),
        ("cell_mass", m.cell_mass.is_some()),
        "one mass",
    )?;
    if m.node_mass.is_none() && m.cell_mass.is_none() {
        return Err(Problem::new(p.clone(), "missing field `node_mass` (or `cell_mass`)"));
    }
    if m.node_mass == Some(0.0) || m.cell_mass == Some(0.0) {
        let key = if m.node_mass.is_some() {
            "node_mass"
        } else {
            "cell_mass"
        };
        return Err(Problem::new(format!("{p}.{key}"), format!("{key} must be > 0")));
    }
    let f32_or_inf = |x: f64| if x.is_finite() { x as f32 } else { f32::INFINITY };
    let material = Material {
        k_s: k_s as f32,
        f_s_yield: f32_or_inf(f_s_yield),
        c_s: m.c_s.unwrap_or(0.0) as f32,
        k_b: k_b as f32,
        m_b_yield: f32_or_inf(m_b_yield),
        c_b: m.c_b.unwrap_or(0.0) as f32,
        k_core: k_core as f32,
        depth: depth as f32,
    };
    let reference = ell.map(|ell| {
        let (r, n) = (m.radius.unwrap(), m.nodes.unwrap());
        let k_shell = shell_core_stiffness(k_s, depth, n);
        let m_star = k_b * ell / r;
        let f_star = k_b / r;
        RingReference {
            radius: r,
            nodes: n,
            ell,
            xi: k_b / (k_s * ell * ell),
            k_shell,
            eta: k_core / k_shell,
            m_star,
            gamma: if m_star > 0.0 {
                m_b_yield / m_star
            } else {
                f64::INFINITY
            },
            f_star,
            sigma_star: f_star / (2.0 * r * depth),
        }
    });
    Ok(ResolvedMaterial {
        name: name.to_string(),
        material,
        node_mass: m.node_mass,
        cell_mass: m.cell_mass,
        mode,
        reference,
    })
}

impl ResolvedMaterial {
    /// Node mass of a body of `n` nodes made of this material.
    pub fn node_mass_for(&self, n: usize) -> f32 {
        match (self.node_mass, self.cell_mass) {
            (Some(m), _) => m as f32,
            (None, Some(c)) => (c / n as f64) as f32,
            _ => 1.0,
        }
    }

    /// Lines for `softdem check`.
    pub fn describe(&self) -> String {
        let m = &self.material;
        let mut s = format!(
            "material {} ({}):\n  k_s = {:.6e}  k_b = {:.6e}  K_Ω = {:.6e}  F_s^Y = {:.6e}  M_b^Y = {:.6e}  c_s = {:.3e}  c_b = {:.3e}  s = {}\n",
            self.name, self.mode, m.k_s, m.k_b, m.k_core, m.f_s_yield, m.m_b_yield, m.c_s, m.c_b, m.depth
        );
        match (self.node_mass, self.cell_mass) {
            (Some(x), _) => s += &format!("  node mass m = {x:.6e}\n"),
            (_, Some(x)) => s += &format!("  cell mass = {x:.6e} (m = cell mass / N per body)\n"),
            _ => {}
        }
        if let Some(r) = &self.reference {
            s += &format!(
                "  reference ring R = {}, N = {}: ℓ = {:.6e}, ξ = {:.6e} (eq 19), K_∂Ω = {:.6e} (eq 25), η = {:.6e} (eq 20),\n  M* = {:.6e} (eq 26), γ = {:.6e} (eq 27), F* = {:.6e} (eq 32), σ* = {:.6e} (eq 39)\n",
                r.radius, r.nodes, r.ell, r.xi, r.k_shell, r.eta, r.m_star, r.gamma, r.f_star, r.sigma_star
            );
        }
        s
    }
}

/// `[link_laws.NAME]` → the eq 41 law: k_t defaults to 0.1 k_n, α to 2; `tensile_strength` is
/// converted to f_n0 = −tensile_strength (compression positive).
pub fn resolve_link_law(name: &str, spec: &LinkLawSpec) -> Result<LinkLaw, Problem> {
    let key = |k: &str| format!("link_laws.{name}.{k}");
    let finite_pos = |k: &str, v: f64| -> Result<f64, Problem> {
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(Problem::new(key(k), format!("{k} = {v} must be > 0")))
        }
    };
    let k_n = finite_pos("k_n", spec.k_n)?;
    let k_t = match spec.k_t {
        Some(v) => finite_pos("k_t", v)?,
        None => 0.1 * k_n,
    };
    let f_n0 = match (spec.f_n0, spec.tensile_strength) {
        (Some(_), Some(_)) => {
            return Err(Problem::new(
                key("tensile_strength"),
                "give either f_n0 (< 0) or tensile_strength (> 0), not both",
            ))
        }
        (Some(v), None) => {
            if !(v < 0.0 && v.is_finite()) {
                return Err(Problem::new(
                    key("f_n0"),
                    format!("f_n0 = {v} must be < 0 (tension is negative, eq 41); or give tensile_strength > 0"),
                ));
            }
            v
        }
        (None, Some(v)) => -finite_pos("tensile_strength", v)?,
        (None, None) => {
            return Err(Problem::new(
                format!("link_laws.{name}"),
                "missing field `f_n0` (or `tensile_strength`)",
            ))
        }
    };
    let f_t0 = finite_pos("f_t0", spec.f_t0)?;
    let alpha = match spec.alpha {
        Some(v) => finite_pos("alpha", v)?,
        None => 2.0,
    };
    let g_c = match spec.g_c {
        Some(v) => finite_pos("g_c", v)?,
        None => 0.0,
    };
    Ok(LinkLaw {
        k_n: k_n as f32,
        k_t: k_t as f32,
        f_n0: f_n0 as f32,
        f_t0: f_t0 as f32,
        alpha: alpha as f32,
        g_c: g_c as f32,
        ..Default::default()
    })
}
