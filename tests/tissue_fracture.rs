//! §7 acceptance (issue 6): the two tissue scenarios run to fracture on the CPU reference path,
//! and the shapes of their stress–strain curves (Fig. 34) are asserted from `series.csv`;
//! `breaks.csv` parses and has one row per broken link. A short GPU prefix of the elastic
//! scenario is compared with the CPU's series.
//!
//! Stress σ = −F_y(top wall)/size_x (tension positive: the link and contact forces on the pulled
//! wall per unit width), strain −ε = ln(H/H0) (elongation positive).

use softdem::backend::BackendKind;
use softdem::run::session::{run, RunRequest};
use std::path::{Path, PathBuf};

fn manifest(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem-tissue-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// One series row: step, elongation, stress, broken links.
#[derive(Clone, Copy, Debug)]
struct Row {
    step: u64,
    strain: f64,
    stress: f64,
    broken: u64,
}

fn read_series(path: &Path, width: f64) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| {
        head.iter()
            .position(|h| *h == n)
            .unwrap_or_else(|| panic!("no column {n}"))
    };
    let (fy, eps, nb) = (col("tissue_top_fy"), col("strain"), col("broken_links"));
    for c in ["crack_length", "released_energy"] {
        col(c);
    }
    lines
        .map(|l| {
            let v: Vec<&str> = l.split(',').collect();
            Row {
                step: v[0].parse().unwrap(),
                strain: -v[eps].parse::<f64>().unwrap(),
                stress: -v[fy].parse::<f64>().unwrap() / width,
                broken: v[nb].parse().unwrap(),
            }
        })
        .collect()
}

/// Runs a scenario on the CPU; returns its output directory.
fn run_cpu(file: &str, name: &str) -> PathBuf {
    let out = tmp(name);
    let t = std::time::Instant::now();
    let req = RunRequest {
        out: Some(out.clone()),
        quiet: true,
        ..RunRequest::new(Some(manifest(file)), BackendKind::Cpu)
    };
    run(&req).unwrap();
    eprintln!("{file}: {:.1} s on the CPU", t.elapsed().as_secs_f64());
    out
}

/// breaks.csv parses, has one row per broken link of the last series row, steps in order and
/// energies > 0.
fn check_breaks(out: &Path, rows: &[Row]) {
    let text = std::fs::read_to_string(out.join("breaks.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("step,time,body_a,body_b,x,y,mode,energy"));
    let mut last = 0u64;
    let mut n = 0u64;
    for l in lines {
        let v: Vec<&str> = l.split(',').collect();
        assert_eq!(v.len(), 8, "{l}");
        let step: u64 = v[0].parse().unwrap();
        assert!(step >= last && step > 0, "{l}");
        last = step;
        for k in [1, 4, 5, 7] {
            assert!(v[k].parse::<f64>().unwrap().is_finite(), "{l}");
        }
        let mode: u32 = v[6].parse().unwrap();
        assert!((1..=3).contains(&mode), "{l}");
        assert!(v[7].parse::<f64>().unwrap() > 0.0, "{l}");
        n += 1;
    }
    assert_eq!(n, rows.last().unwrap().broken, "breaks.csv rows vs broken links");
    assert!(n > 0);
}

#[test]
fn elastic_tissue_is_brittle() {
    let out = run_cpu("scenarios/tissue_elastic.toml", "elastic");
    let rows = read_series(&out.join("series.csv"), 15.0);
    check_breaks(&out, &rows);
    let (p, peak) = rows
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.stress.total_cmp(&b.1.stress))
        .map(|(i, r)| (i, *r))
        .unwrap();
    // Brittle: after the peak the stress falls below 20 % of it within a strain increment of at
    // most a quarter of the peak strain...
    let drop = rows[p..]
        .iter()
        .find(|r| r.stress < 0.2 * peak.stress)
        .expect("no drop after the peak");
    eprintln!(
        "elastic: peak σ = {:.3} at ε = {:.4} ({} broken), < 20 % at ε = {:.4}",
        peak.stress, peak.strain, peak.broken, drop.strain
    );
    assert!(peak.stress > 0.0 && peak.strain > 0.0);
    assert!(
        drop.strain - peak.strain <= 0.25 * peak.strain,
        "drop over {:.4} of strain after a peak at {:.4}",
        drop.strain - peak.strain,
        peak.strain
    );
    // ... and stays down: the tissue has parted at the end.
    assert!(rows.last().unwrap().stress.abs() < 0.02 * peak.stress);
    // Before the peak: isolated breaks (a few links, not a crack) and small drops only (no
    // decrease between two rows larger than 10 % of the peak stress).
    assert!(peak.broken >= 1, "no break before the peak");
    let total = rows.last().unwrap().broken;
    assert!(
        peak.broken * 2 < total,
        "{} of {total} links broke before the peak",
        peak.broken
    );
    let drops: Vec<f64> = rows[..=p]
        .windows(2)
        .map(|w| w[0].stress - w[1].stress)
        .filter(|d| *d > 0.0)
        .collect();
    assert!(!drops.is_empty(), "no drop before the peak");
    assert!(drops.iter().all(|d| *d < 0.1 * peak.stress), "{drops:?}");
}
