//! The two critical time steps of §3.3: dt = min(Δt_rigid, Δt_deform).
//!
//! - Δt_rigid = β_r √(m_eff / k_n) (the paper prints √(k_n/m_eff), which has the dimension of a
//!   frequency; the usual DEM form √(m/k) is meant). For a node penalty on a modal body, the
//!   stiffest mass the penalty acts on is the smallest of the rigid mass M and the modal masses
//!   M_αα / |Φ_α,k|²_max, so m_eff is that minimum (halved for two bodies in contact).
//! - Δt_deform = β_d / ω_max, ω_max² the largest eigenvalue of M_ε⁻¹ K_ε (eq 44), bounded here by
//!   the row-sum norm of M⁻¹K with K the largest tangent stiffness (tables: steepest segment).
#![allow(clippy::needless_range_loop)] // matrix index loops

use super::body::ModalBody;
use super::quadrature::invert;

#[derive(Clone, Copy, Debug)]
pub struct TimeSteps {
    pub rigid: f64,
    pub deform: f64,
}

impl TimeSteps {
    pub fn dt(&self) -> f64 {
        self.rigid.min(self.deform)
    }
}

pub fn critical_time_steps(bodies: &[ModalBody], k_n: f64, beta_r: f64, beta_d: f64) -> anyhow::Result<TimeSteps> {
    let mut m_eff = f64::INFINITY;
    let mut omega_max: f64 = 0.0;
    for b in bodies {
        let n = b.n_modes();
        m_eff = m_eff.min(b.mass as f64);
        let phi_max = b
            .modes
            .iter()
            .map(|m| {
                b.nodes
                    .iter()
                    .map(|p| {
                        let f = m.eval(&b.level_set.grid, *p);
                        (f[0] * f[0] + f[1] * f[1]) as f64
                    })
                    .fold(0.0, f64::max)
            })
            .collect::<Vec<_>>();
        for a in 0..n {
            if phi_max[a] > 0.0 {
                m_eff = m_eff.min(b.modal_mass[a * n + a] as f64 / phi_max[a]);
            }
        }
        let m64: Vec<f64> = b.modal_mass.iter().map(|x| *x as f64).collect();
        let minv = invert(&m64, n)?;
        let kmax = b.stiffness.max_tangent(n);
        // ‖M⁻¹ K‖∞ with K ≈ kmax · I for a table, the matrix itself when linear.
        let k: Vec<f64> = match &b.stiffness {
            super::stiffness::ModalStiffness::Linear(k) => k.iter().map(|x| *x as f64).collect(),
            super::stiffness::ModalStiffness::Table(_) => vec![kmax],
        };
        for r in 0..n {
            let mut row = 0.0;
            for c in 0..n {
                let mut v = 0.0;
                for q in 0..n {
                    v += minv[r * n + q] * k[q * n + c];
                }
                row += v.abs();
            }
            omega_max = omega_max.max(row.sqrt());
        }
    }
    Ok(TimeSteps {
        rigid: beta_r * (0.5 * m_eff / k_n).sqrt(),
        deform: if omega_max > 0.0 {
            beta_d / omega_max
        } else {
            f64::INFINITY
        },
    })
}
