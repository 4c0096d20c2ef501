//! The command line end to end: a 2×2 sweep runs and collects (locally, and as a Slurm job
//! array with one member run as a task would), `check` prints the derived parameters, `run`
//! without a scenario runs the embedded default, `compare` prints deviations per quantity.

use std::path::{Path, PathBuf};
use std::process::Command;

fn softdem() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_softdem"));
    c.env(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
    );
    c
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{:?} failed:\n{}",
        c,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn sweep_file(dir: &Path) -> PathBuf {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/stages.toml");
    let text = format!(
        "scenario = \"{}\"\nname = \"mu_eta\"\nout = \"{}\"\nbackend = \"cpu\"\nsteps = 150\n[parameters]\n\"contact.mu\" = [0.1, 0.5]\n\"materials.shell.eta\" = [0.0, 2.0]\n[slurm]\npartition = \"gpu\"\ntime = \"00:10:00\"\nextra = [\"#SBATCH --gres=gpu:1\"]\n",
        scenario.display(),
        dir.join("sweep").display()
    );
    let p = dir.join("sweep.toml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn sweep_of_2x2_members_runs_and_collects() {
    let dir = tmp("sweep");
    let sw = sweep_file(&dir);
    let out = ok(softdem().arg("sweep").arg(&sw));
    assert!(out.contains("4 members"), "{out}");
    let table = std::fs::read_to_string(dir.join("sweep/sweep.csv")).unwrap();
    let header: Vec<&str> = table.lines().next().unwrap().split(',').collect();
    assert_eq!(
        &header[..5],
        &["member", "contact.mu", "materials.shell.eta", "step", "time"]
    );
    // Rows at steps 0, 100 and the end (150) for each of the 4 members.
    let rows: Vec<Vec<&str>> = table.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4 * 3);
    let members: std::collections::BTreeSet<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    let want: std::collections::BTreeSet<(&str, &str, &str)> = [
        ("0", "0.1", "0.0"),
        ("1", "0.1", "2.0"),
        ("2", "0.5", "0.0"),
        ("3", "0.5", "2.0"),
    ]
    .into_iter()
    .collect();
    assert_eq!(members, want);
    // Each member ran its own scenario: η changes K_Ω in the member's scenario.toml.
    let m3 = std::fs::read_to_string(dir.join("sweep/member_003/scenario.toml")).unwrap();
    assert!(m3.contains("eta = 2.0") && m3.contains("mu = 0.5"), "{m3}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn sweep_as_slurm_job_array_then_collect() {
    let dir = tmp("slurm");
    let sw = sweep_file(&dir);
    let out = ok(softdem().args(["sweep", "--slurm"]).arg(&sw));
    assert!(out.contains("sbatch"), "{out}");
    let script = std::fs::read_to_string(dir.join("sweep/sweep.sbatch")).unwrap();
    for want in [
        "#SBATCH --array=0-3",
        "#SBATCH --partition=gpu",
        "#SBATCH --gres=gpu:1",
        "--member \"$SLURM_ARRAY_TASK_ID\"",
    ] {
        assert!(script.contains(want), "no `{want}` in\n{script}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.join("sweep/members.csv"))
            .unwrap()
            .lines()
            .count(),
        5
    );
    // What two array tasks do, then the collector.
    for k in ["1", "2"] {
        ok(softdem().args(["sweep", "--backend", "cpu", "--member", k]).arg(&sw));
    }
    ok(softdem().args(["sweep", "--collect"]).arg(&sw));
    let table = std::fs::read_to_string(dir.join("sweep/sweep.csv")).unwrap();
    assert_eq!(table.lines().count(), 1 + 2 * 3);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn check_prints_derived_parameters() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/default.toml");
    let out = ok(softdem().args(["check", "--backend", "cpu"]).arg(&p));
    for want in [
        "OK",
        "ξ = 2.500000e-2",
        "η = 4.000000e-1",
        "critical dt",
        "nodes:",
        "GPU memory",
        "stages:",
    ] {
        assert!(out.contains(want), "no `{want}` in\n{out}");
    }
}

#[test]
fn run_without_scenario_runs_the_embedded_default() {
    let dir = tmp("default");
    ok(softdem()
        .args(["run", "--backend", "cpu", "--steps", "300", "--quiet", "--out"])
        .arg(dir.join("d")));
    let sc = std::fs::read_to_string(dir.join("d/scenario.toml")).unwrap();
    assert!(sc.contains("name = \"default\""));
    for f in [
        "series.csv",
        "final.csv",
        "run.pvd",
        "checkpoint.bin",
        "plots/stress_strain.png",
    ] {
        assert!(dir.join("d").join(f).exists(), "no {f}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn compare_prints_deviation_per_quantity() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/stages.toml");
    let out = ok(softdem().args(["compare", "--steps", "200"]).arg(&p));
    for want in ["max |dx| over nodes", "e_stretch", "e_kinetic", "stress", "contacts"] {
        assert!(out.contains(want), "no `{want}` in\n{out}");
    }
}

/// `validate --only modal` runs the modal family alone: every row of validation.csv is a
/// modal_* row, the asserted ones pass, and a family name that does not exist is refused.
#[test]
fn validate_runs_only_the_families_asked_for() {
    let dir = tmp("validate-only");
    ok(softdem()
        .args(["validate", "--backend", "cpu", "--only", "modal", "--out"])
        .arg(&dir));
    let csv = std::fs::read_to_string(dir.join("validation.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).filter(|l| !l.is_empty()).collect();
    assert!(rows.len() >= 5, "{csv}");
    assert!(rows.iter().all(|r| r.starts_with("modal_")), "{csv}");
    let out = softdem()
        .args(["validate", "--backend", "cpu", "--only", "tissue"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("spheres"));
}
