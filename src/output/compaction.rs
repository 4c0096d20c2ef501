//! Uniaxial compaction (§6, Figs 28–29): reads a run's `series.csv` and extracts the loading and
//! unloading branches, the void ratio at the largest strain, the compressibility index C of
//! eq 40 (e = e0 − C log10(σ/σ*)) fitted over the last decades of stress, and the peak of
//! ΔV_s/ΔV; draws the figures comparing several runs with `crate::plot::line_plot`.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::plots::Table;
use crate::plot::{line_plot, PlotSpec, Series, Style};
use std::path::{Path, PathBuf};

/// One series row of a compaction run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// ε = ln(H0/H).
    pub strain: f64,
    /// σ/σ* (eq 39).
    pub stress_norm: f64,
    /// Void ratio e.
    pub void_ratio: f64,
    /// ΔV_s/ΔV.
    pub volume_ratio: f64,
}

/// The loading and unloading branches of a run (rows of the named stages, in order).
#[derive(Clone, Debug, Default)]
pub struct Branches {
    pub loading: Vec<Point>,
    pub unloading: Vec<Point>,
}

impl Branches {
    /// Rows whose `stage` is `load` or `unload` (the stage that ran up to the row).
    pub fn from_table(t: &Table, load: &str, unload: &str) -> anyhow::Result<Branches> {
        let stage = t
            .header
            .iter()
            .position(|h| h == "stage")
            .ok_or_else(|| anyhow::anyhow!("series.csv has no `stage` column"))?;
        let col = |n: &str| {
            t.column(n)
                .ok_or_else(|| anyhow::anyhow!("series.csv has no `{n}` column"))
        };
        let (eps, s, e, r) = (
            col("strain")?,
            col("stress_norm")?,
            col("void_ratio")?,
            col("solid_volume_ratio")?,
        );
        let mut b = Branches::default();
        for (i, row) in t.rows.iter().enumerate() {
            let p = Point {
                strain: eps[i],
                stress_norm: s[i],
                void_ratio: e[i],
                volume_ratio: r[i],
            };
            match row.get(stage).map(String::as_str) {
                Some(x) if x == load => b.loading.push(p),
                Some(x) if x == unload => b.unloading.push(p),
                _ => {}
            }
        }
        anyhow::ensure!(!b.loading.is_empty(), "no row of the loading stage \"{load}\"");
        Ok(b)
    }
}

/// Least-squares fit of eq 40, e = e0 − C log10(σ/σ*), over the loading points with σ/σ* in
/// [max/10^decades, max].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompressibilityFit {
    pub c: f64,
    pub e0: f64,
    /// The σ/σ* range fitted.
    pub lo: f64,
    pub hi: f64,
    pub points: usize,
    /// Coefficient of determination of the fit.
    pub r2: f64,
}

pub fn fit_compressibility(loading: &[Point], decades: f64) -> Option<CompressibilityFit> {
    let hi = loading
        .iter()
        .map(|p| p.stress_norm)
        .filter(|s| s.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    if !(hi > 0.0) {
        return None;
    }
    let lo = hi / 10f64.powf(decades);
    let pts: Vec<(f64, f64)> = loading
        .iter()
        .filter(|p| p.stress_norm >= lo && p.void_ratio.is_finite())
        .map(|p| (p.stress_norm.log10(), p.void_ratio))
        .collect();
    let n = pts.len() as f64;
    if pts.len() < 3 {
        return None;
    }
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n,
        pts.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if !(sxx > 0.0) {
        return None;
    }
    let slope = sxy / sxx;
    let ss_res: f64 = pts.iter().map(|p| (p.1 - (my + slope * (p.0 - mx))).powi(2)).sum();
    Some(CompressibilityFit {
        c: -slope,
        e0: my - slope * mx,
        lo,
        hi,
        points: pts.len(),
        r2: if syy > 0.0 { 1.0 - ss_res / syy } else { f64::NAN },
    })
}

/// The figures of merit of one run (the comparison table of docs/compaction.md).
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    /// e at the start of loading (H = H0) and at the end of loading.
    pub e_start: f64,
    pub e_end: f64,
    /// ε and σ/σ* at the end of loading.
    pub strain_end: f64,
    pub stress_end: f64,
    /// Largest ΔV_s/ΔV on the loading branch once ε ≥ `min_strain`, and its value at the end.
    pub volume_ratio_peak: f64,
    pub volume_ratio_end: f64,
    /// e and ε at the last unloading row where the sample still pushes on the wall (σ > 0):
    /// after that the wall leaves the sample and e from the wall height means nothing (NaN
    /// without such a row).
    pub e_unloaded: f64,
    pub strain_unloaded: f64,
    pub fit: Option<CompressibilityFit>,
}

/// Summary of a run; ΔV_s/ΔV is ignored below `min_strain` (where ΔV is tiny and the ratio noisy).
pub fn summarize(b: &Branches, decades: f64, min_strain: f64) -> Summary {
    let first = b.loading.first().copied().expect("a loading branch");
    let last = b.loading.last().copied().expect("a loading branch");
    let after = |p: &&Point| p.strain >= min_strain && p.volume_ratio.is_finite();
    let peak = b
        .loading
        .iter()
        .filter(after)
        .map(|p| p.volume_ratio)
        .fold(f64::NAN, f64::max);
    let unl = b.unloading.iter().rev().find(|p| p.stress_norm > 0.0).copied();
    Summary {
        e_start: first.void_ratio,
        e_end: last.void_ratio,
        strain_end: last.strain,
        stress_end: last.stress_norm,
        volume_ratio_peak: peak,
        volume_ratio_end: last.volume_ratio,
        e_unloaded: unl.map_or(f64::NAN, |p| p.void_ratio),
        strain_unloaded: unl.map_or(f64::NAN, |p| p.strain),
        fit: fit_compressibility(&b.loading, decades),
    }
}

/// Draws the comparison figures of several runs (label, branches) into `dir` with file names
/// `<prefix>stress_strain.png` (Fig. 28), `<prefix>void_ratio.png` (Fig. 29a) and
/// `<prefix>volume_ratio.png` (Fig. 29b); loading solid, unloading dashed.
pub fn figures(runs: &[(String, Branches)], dir: &Path, prefix: &str) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let branch = |label: &str, pts: &[Point], dashed: bool, f: &dyn Fn(&Point) -> (f64, f64)| Series {
        name: format!("{label} {}", if dashed { "unloading" } else { "loading" }),
        points: pts.iter().map(f).collect(),
        style: if dashed { Style::Dashed } else { Style::Line },
    };
    let both = |f: &dyn Fn(&Point) -> (f64, f64)| -> Vec<Series> {
        runs.iter()
            .flat_map(|(l, b)| [branch(l, &b.loading, false, f), branch(l, &b.unloading, true, f)])
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    // log10 of σ/σ*; points with σ ≤ 10⁻⁴ σ* (no contact yet) are left out.
    let lg = |s: f64| if s > 1e-4 { s.log10() } else { f64::NAN };
    let specs = [
        (
            "stress_strain.png",
            PlotSpec {
                title: "Fig. 28: vertical stress against strain".into(),
                x_label: "ε = ln(H0/H)".into(),
                y_label: "σ/σ*".into(),
                series: both(&|p| (p.strain, p.stress_norm)),
            },
        ),
        (
            "void_ratio.png",
            PlotSpec {
                title: "Fig. 29a: void ratio against stress".into(),
                x_label: "log10(σ/σ*)".into(),
                y_label: "void ratio e".into(),
                series: both(&|p| (lg(p.stress_norm), p.void_ratio)),
            },
        ),
        (
            "volume_ratio.png",
            PlotSpec {
                title: "Fig. 29b: particle volume change over sample volume change".into(),
                x_label: "log10(σ/σ*)".into(),
                y_label: "ΔV_s/ΔV".into(),
                // ΔV_s/ΔV is noise while ΔV is tiny: from ε ≥ 0.01 on.
                series: both(&|p| {
                    if p.strain >= 0.01 {
                        (lg(p.stress_norm), p.volume_ratio)
                    } else {
                        (f64::NAN, f64::NAN)
                    }
                }),
            },
        ),
    ];
    let mut out = vec![];
    for (name, spec) in specs {
        let path = dir.join(format!("{prefix}{name}"));
        line_plot(&path, &spec)?;
        out.push(path);
    }
    Ok(out)
}
