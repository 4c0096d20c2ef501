//! Scalars and SIMD lanes behind one trait, so a force law is written once and runs either on one
//! node (`f32`, the twin of the WGSL thread) or on eight nodes at a time (`F8` or `F8Avx`, the CPU
//! stepper's lane passes: `cpu::shell_lanes`, `cpu::node_lanes`, `cpu::core_area_lanes`).
//!
//! Every `F8` operation is the `f32` operation applied lane by lane, and branches are written as
//! `select` (both sides evaluated, one kept). IEEE +, −, ×, ÷ and √ round the same in a vector
//! register as in a scalar one, and no fused multiply-add is formed (Rust never contracts), so a
//! law evaluated on lanes gives, in each lane, the bits it gives on `f32`: the lanes change the
//! speed, not the results (tests `lanes_match_scalar_ops_bit_for_bit` in `model::f8`, and
//! `lanes_equal_the_scalar_twin_bit_for_bit` in each lane pass). `F8` is two SSE registers (or a
//! portable array); `F8Avx`, one AVX register, is used where the CPU has AVX2 (the passes
//! dispatch at run time).
//!
//! The trait and the lane types are defined below this file (`Real`, `F8`, `Lanes` in `model::f8`,
//! `F8Avx` in `model::f8_avx`) and re-exported here, the passes' one import; this file adds what
//! the laws read, generic over `Real` (`Point`, `ShellMaterial`).

pub use super::f8::{Lanes, Real, F8, LANES, M8};
#[cfg(target_arch = "x86_64")]
pub(crate) use super::f8_avx::F8Avx;

/// A position in double-f32 (`NodeState::pos_hi + pos_lo`) and the velocity, as a law reads them.
#[derive(Clone, Copy, Debug)]
pub struct Point<T> {
    pub hi: [T; 2],
    pub lo: [T; 2],
    pub vel: [T; 2],
}

impl From<&super::NodeState> for Point<f32> {
    #[inline(always)]
    fn from(s: &super::NodeState) -> Self {
        Point {
            hi: s.pos_hi,
            lo: s.pos_lo,
            vel: s.vel,
        }
    }
}

/// The material constants the shell laws read (`Material`), as scalars or lanes.
#[derive(Clone, Copy, Debug)]
pub struct ShellMaterial<T> {
    pub k_s: T,
    pub f_s_yield: T,
    pub c_s: T,
    pub k_b: T,
    pub m_b_yield: T,
    pub c_b: T,
    pub depth: T,
}

impl From<&super::Material> for ShellMaterial<f32> {
    #[inline(always)]
    fn from(m: &super::Material) -> Self {
        ShellMaterial {
            k_s: m.k_s,
            f_s_yield: m.f_s_yield,
            c_s: m.c_s,
            k_b: m.k_b,
            m_b_yield: m.m_b_yield,
            c_b: m.c_b,
            depth: m.depth,
        }
    }
}

impl<T: Real> ShellMaterial<T> {
    /// The same material in every lane.
    #[inline(always)]
    pub fn splat(m: &ShellMaterial<f32>) -> Self {
        ShellMaterial {
            k_s: T::splat(m.k_s),
            f_s_yield: T::splat(m.f_s_yield),
            c_s: T::splat(m.c_s),
            k_b: T::splat(m.k_b),
            m_b_yield: T::splat(m.m_b_yield),
            c_b: T::splat(m.c_b),
            depth: T::splat(m.depth),
        }
    }
}
