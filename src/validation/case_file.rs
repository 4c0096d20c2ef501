//! The validation cases' parameter files in `scenarios/validation/` (embedded at build time, so
//! `softdem validate` runs from any directory; cargo rebuilds when a file changes). Errors name
//! the file, the line and the key.

use serde::de::DeserializeOwned;

/// Parses a case file; a syntax or type error names `path` and the line.
pub fn parse<T: DeserializeOwned>(path: &str, text: &str) -> anyhow::Result<T> {
    toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|r| text[..r.start.min(text.len())].lines().count().max(1))
            .unwrap_or(0);
        anyhow::anyhow!("{path}:{line}: {}", e.message())
    })
}

/// Beams (`scenarios/validation/beams.toml`): the cantilever and the simply supported beam.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Beams {
    /// Shell (beam) thickness h in units of L.
    pub thickness: f64,
    /// Node counts of the convergence study (Fig. 9).
    pub node_counts: Vec<usize>,
    /// Node count of the profiles (Fig. 8c).
    pub profile_nodes: usize,
    /// Target δmax^th / L.
    pub deflection: f64,
}

pub const BEAMS_PATH: &str = "scenarios/validation/beams.toml";
pub const BEAMS_TEXT: &str = include_str!("../../scenarios/validation/beams.toml");

/// The beams' parameters (panics with the file, line and key on a malformed file: it is part of
/// the build, and the test `beams_case_file` parses it).
pub fn beams() -> Beams {
    let b: Beams = parse(BEAMS_PATH, BEAMS_TEXT).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        b.thickness > 0.0 && b.deflection > 0.0 && b.profile_nodes % 2 == 1 && b.node_counts.iter().all(|&n| n >= 5),
        "{BEAMS_PATH}: thickness and deflection > 0, profile_nodes odd, node_counts ≥ 5"
    );
    b
}

/// Ring under pressure (`scenarios/validation/pressure_ring.toml`).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PressureRing {
    /// Target volumetric strains ΔV/V0 (negative: external pressure).
    pub strains: Vec<f64>,
}

pub const PRESSURE_RING_PATH: &str = "scenarios/validation/pressure_ring.toml";
pub const PRESSURE_RING_TEXT: &str = include_str!("../../scenarios/validation/pressure_ring.toml");

/// The pressure ring's parameters.
pub fn pressure_ring() -> PressureRing {
    let p: PressureRing = parse(PRESSURE_RING_PATH, PRESSURE_RING_TEXT).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        p.strains.len() >= 2 && p.strains.iter().all(|e| e.abs() > 0.0 && e.abs() < 0.01),
        "{PRESSURE_RING_PATH}: strains: at least two, 0 < |ΔV/V0| < 0.01 (linear range)"
    );
    p
}
