//! Twin of `shaders/cohesive_link.wgsl`: cohesive links between cells (§7, eq 41).
//!
//! Paper's convention: compression and inward displacement positive. With n the unit vector from
//! b to a: f_n = k_n (d0 − d) (u_n = d0 − d), force on a = f_n n + f_t t with t = n × z, and
//! f_t incremental, δf_t = −k_t δu_t, δu_t = (v_a − v_b)·t δt (elastic, no Coulomb cap while
//! bonded). A link breaks irreversibly when ζ = f_n/f_n^0 + |f_t/f_t^0|^α − 1 ≥ 0 (eq 41), or,
//! with the energy criterion on, when (f_n²/2k_n + f_t²/2k_t)/interface length ≥ G_c. A broken
//! link exerts no force; the pair then interacts by the ordinary frictional contact.

use crate::model::df32::{df_sub, dot};
use crate::model::*;

/// |x|^α, exact (no `pow`) for α = 1 and 2 so that both backends agree bit for bit.
pub fn alpha_power(x: f32, alpha: f32) -> f32 {
    let ax = x.abs();
    if alpha == 2.0 {
        ax * ax
    } else if alpha == 1.0 {
        ax
    } else {
        ax.powf(alpha)
    }
}

/// Yield function ζ of eq 41 (ζ ≥ 0: the link breaks).
pub fn yield_function(law: &LinkLaw, f_n: f32, f_t: f32) -> f32 {
    f_n / law.f_n0 + alpha_power(f_t / law.f_t0, law.alpha) - 1.0
}

/// Force on node a and the new state of one link at step `step` (1-based).
#[allow(clippy::too_many_arguments)]
pub fn cohesive_link(
    law: &LinkLaw,
    link: &Link,
    pa: &NodeState,
    pb: &NodeState,
    va: [f32; 2],
    vb: [f32; 2],
    old: LinkState,
    dt: f32,
    step: u32,
) -> ([f32; 2], LinkState) {
    if old.broken_step != 0 {
        return ([0.0, 0.0], old);
    }
    let off = df_sub(pa.pos_hi, pa.pos_lo, pb.pos_hi, pb.pos_lo);
    let d = dot(off, off).sqrt();
    let n = [off[0] / d, off[1] / d];
    let t = [n[1], -n[0]];
    let f_n = law.k_n * (link.d0 - d);
    let du_t = dot([va[0] - vb[0], va[1] - vb[1]], t) * dt;
    let f_t = old.f_t - law.k_t * du_t;
    let normal_term = f_n / law.f_n0;
    let shear_term = alpha_power(f_t / law.f_t0, law.alpha);
    let mut mode = LINK_INTACT;
    if normal_term + shear_term - 1.0 >= 0.0 {
        mode = if normal_term >= shear_term {
            LINK_BROKE_TENSION
        } else {
            LINK_BROKE_SHEAR
        };
    } else if law.g_c > 0.0 {
        let mut energy = f_n * f_n / (2.0 * law.k_n);
        if law.k_t > 0.0 {
            energy += f_t * f_t / (2.0 * law.k_t);
        }
        if energy >= law.g_c * link.interface_length {
            mode = LINK_BROKE_ENERGY;
        }
    }
    if mode != LINK_INTACT {
        return (
            [0.0, 0.0],
            LinkState {
                f_n,
                f_t,
                broken_step: step,
                mode,
            },
        );
    }
    let force = [f_n * n[0] + f_t * t[0], f_n * n[1] + f_t * t[1]];
    (
        force,
        LinkState {
            f_n,
            f_t,
            broken_step: 0,
            mode,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law() -> LinkLaw {
        LinkLaw {
            k_n: 100.0,
            k_t: 10.0,
            f_n0: -2.0,
            f_t0: 1.0,
            alpha: 2.0,
            g_c: 0.0,
            _pad0: 0.0,
            _pad1: 0.0,
        }
    }

    /// Pure tension breaks at f_n = f_n^0; pure shear at |f_t| = f_t^0 (eq 41).
    #[test]
    fn yield_surface_axes() {
        let l = law();
        assert!(yield_function(&l, -1.999, 0.0) < 0.0);
        assert!(yield_function(&l, -2.0, 0.0) >= 0.0);
        assert!(yield_function(&l, 0.0, 0.999) < 0.0);
        assert!(yield_function(&l, 0.0, 1.0) >= 0.0);
        assert!(yield_function(&l, 0.0, -1.0) >= 0.0);
    }

    /// Under compression (f_n > 0) no normal force breaks a link; only shear does, and it needs
    /// more than f_t^0: |f_t| = f_t^0 (1 − f_n/f_n^0)^{1/α}.
    #[test]
    fn compression_breaks_only_by_shear() {
        let l = law();
        for f_n in [0.5f32, 5.0, 1e6] {
            assert!(yield_function(&l, f_n, 0.0) < 0.0, "compression {f_n} broke a link");
            let f_t = l.f_t0 * (1.0 - f_n / l.f_n0).sqrt();
            assert!(yield_function(&l, f_n, 0.999 * f_t) < 0.0);
            assert!(yield_function(&l, f_n, 1.001 * f_t) >= 0.0);
        }
    }

    /// Energy criterion: with G_c set, a link stretched below its eq 41 threshold breaks once
    /// f_n²/2k_n per unit interface length reaches G_c.
    #[test]
    fn energy_criterion_breaks_before_the_yield_surface() {
        let l = LinkLaw { g_c: 0.005, ..law() }; // f_n = −1: energy 1/200 = 0.005 per unit length
        let link = Link {
            a: 0,
            b: 1,
            law: 0,
            _pad: 0,
            d0: 1.0,
            interface_length: 1.0,
        };
        let at = |y: f32| NodeState {
            pos_hi: [0.0, y],
            ..Default::default()
        };
        let pa = at(0.0);
        let (_, s) = cohesive_link(
            &l,
            &link,
            &pa,
            &at(1.0099),
            [0.0; 2],
            [0.0; 2],
            LinkState::default(),
            0.0,
            7,
        );
        assert_eq!(s.mode, LINK_INTACT, "energy {} below G_c", s.f_n * s.f_n / 200.0);
        let (f, s) = cohesive_link(
            &l,
            &link,
            &pa,
            &at(1.0101),
            [0.0; 2],
            [0.0; 2],
            LinkState::default(),
            0.0,
            7,
        );
        assert_eq!((s.mode, s.broken_step, f), (LINK_BROKE_ENERGY, 7, [0.0, 0.0]));
        assert!(
            yield_function(&l, s.f_n, s.f_t) < 0.0,
            "eq 41 alone would not have broken it"
        );
    }
}
