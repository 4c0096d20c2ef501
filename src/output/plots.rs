//! `plots/*.png` of the main series, drawn from `series.csv` at the end of a run with
//! `crate::plot::line_plot`: stress–strain, void ratio–stress, energies and kinetic energy
//! against time, and wall force against time.

use super::atomic;
use crate::plot::{line_plot, PlotSpec, Series, Style};
use std::path::{Path, PathBuf};

/// Columns of a CSV file by name.
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn read(path: &Path) -> anyhow::Result<Table> {
        let text = std::fs::read_to_string(path)?;
        let mut lines = text.lines();
        let header = lines.next().unwrap_or("").split(',').map(str::to_string).collect();
        let rows = lines.map(|l| l.split(',').map(str::to_string).collect()).collect();
        Ok(Table { header, rows })
    }

    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.header.iter().position(|h| h == name)?;
        Some(
            self.rows
                .iter()
                .map(|r| r.get(i).and_then(|x| x.parse().ok()).unwrap_or(f64::NAN))
                .collect(),
        )
    }
}

fn xy(x: &[f64], y: &[f64]) -> Vec<(f64, f64)> {
    x.iter().copied().zip(y.iter().copied()).collect()
}

/// Writes the plots of `series` into `dir`; returns the files written.
pub fn write_plots(series: &Path, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let t = Table::read(series)?;
    let col = |n: &str| t.column(n).unwrap_or_default();
    let (time, strain, stress, e) = (col("time"), col("strain"), col("stress"), col("void_ratio"));
    let mut specs: Vec<(&str, PlotSpec)> = vec![];
    let line = |name: &str, points: Vec<(f64, f64)>| Series {
        name: name.into(),
        points,
        style: Style::Line,
    };
    if stress.iter().any(|s| s.is_finite()) {
        specs.push((
            "stress_strain.png",
            PlotSpec {
                title: "Vertical stress against strain".into(),
                x_label: "strain ε = ln(H0/H)".into(),
                y_label: "stress σ".into(),
                series: vec![line("σ_yy (top wall)", xy(&strain, &stress))],
            },
        ));
    }
    if e.iter().any(|s| s.is_finite()) {
        specs.push((
            "void_ratio.png",
            PlotSpec {
                title: "Void ratio against stress".into(),
                x_label: "stress σ".into(),
                y_label: "void ratio e".into(),
                series: vec![line("e", xy(&stress, &e))],
            },
        ));
    }
    let energies: Vec<Series> = ["e_stretch", "e_bending", "e_core", "e_contact", "e_kinetic"]
        .iter()
        .map(|n| line(n.trim_start_matches("e_"), xy(&time, &col(n))))
        .collect();
    specs.push((
        "energies.png",
        PlotSpec {
            title: "Energies".into(),
            x_label: "time".into(),
            y_label: "energy".into(),
            series: energies,
        },
    ));
    let forces: Vec<Series> = t
        .header
        .iter()
        .filter(|h| h.ends_with("_fy"))
        .map(|h| line(h, xy(&time, &col(h))))
        .collect();
    if !forces.is_empty() {
        specs.push((
            "wall_forces.png",
            PlotSpec {
                title: "Vertical force on each wall".into(),
                x_label: "time".into(),
                y_label: "force F_y".into(),
                series: forces,
            },
        ));
    }
    let mut out = vec![];
    for (name, spec) in specs {
        let path = dir.join(name);
        atomic::write_with(&path, |tmp| line_plot(tmp, &spec))?;
        out.push(path);
    }
    Ok(out)
}
