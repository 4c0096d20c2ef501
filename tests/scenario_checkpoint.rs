//! Checkpoint and resume: `N` steps in one run equal `N/2` steps, a checkpoint, a resume and
//! `N/2` more, bit for bit, on each backend (through the same library path as `softdem run`).
//! The scenario crosses several stage changes (deposit, gravity off, wall motion, hold, servo)
//! on either side of the checkpoint.

use softdem::backend::BackendKind;
use softdem::output::checkpoint;
use softdem::run::session::{run, RunRequest};
use std::path::{Path, PathBuf};

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/stages.toml")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn request(kind: BackendKind, out: Option<PathBuf>, steps: u64, resume: Option<PathBuf>) -> RunRequest {
    RunRequest {
        out: if resume.is_some() { None } else { out },
        steps: Some(steps),
        resume,
        quiet: true,
        ..RunRequest::new(Some(scenario()), kind)
    }
}

fn half_resume_equals_full(kind: BackendKind, n: u64, tag: &str) {
    let (full, half) = (tmp(&format!("{tag}-full")), tmp(&format!("{tag}-half")));
    run(&request(kind, Some(full.clone()), n, None)).unwrap();
    run(&request(kind, Some(half.clone()), n / 2, None)).unwrap();
    let mid = checkpoint::read(&half.join("checkpoint.bin")).unwrap();
    assert_eq!(mid.saved.steps, n / 2);
    let r = run(&request(kind, None, n, Some(half.clone()))).unwrap();
    assert_eq!(r.steps, n);
    let (a, b) = (
        std::fs::read(full.join("checkpoint.bin")).unwrap(),
        std::fs::read(half.join("checkpoint.bin")).unwrap(),
    );
    let (ca, cb) = (checkpoint::decode(&a).unwrap(), checkpoint::decode(&b).unwrap());
    assert_eq!(ca.saved.steps, n);
    assert!(ca.saved.nodes == cb.saved.nodes, "node states differ after resume");
    assert_eq!(ca.driver, cb.driver, "driver state differs after resume");
    assert_eq!(a, b, "checkpoint files differ");
    for f in ["final.csv", "series.csv", "run.pvd"] {
        assert_eq!(
            std::fs::read_to_string(full.join(f)).unwrap(),
            std::fs::read_to_string(half.join(f)).unwrap(),
            "{f} differs"
        );
    }
    // The checkpoint crossed stage changes: the run is past the deposit.
    assert!(ca.driver.stage >= 2, "stage {}", ca.driver.stage);
    assert!(mid.driver.stage >= 1);
    std::fs::remove_dir_all(full).ok();
    std::fs::remove_dir_all(half).ok();
}

#[test]
fn cpu_n_steps_equal_half_checkpoint_resume_half_bit_for_bit() {
    half_resume_equals_full(BackendKind::Cpu, 1000, "cpu");
}

#[test]
fn gpu_n_steps_equal_half_checkpoint_resume_half_bit_for_bit() {
    half_resume_equals_full(BackendKind::Gpu, 1000, "gpu");
}

#[test]
fn checkpoint_refuses_damage_and_other_scenarios() {
    let out = tmp("refuse");
    run(&request(BackendKind::Cpu, Some(out.clone()), 200, None)).unwrap();
    let path = out.join("checkpoint.bin");
    let bytes = std::fs::read(&path).unwrap();
    // Truncated: refused.
    let e = checkpoint::decode(&bytes[..bytes.len() - 100]).unwrap_err().to_string();
    assert!(e.contains("damaged or truncated"), "{e}");
    // Another scenario: refused with both hashes.
    let text = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    std::fs::write(out.join("scenario.toml"), text.replace("mu = 0.3", "mu = 0.4")).unwrap();
    let e = run(&request(BackendKind::Cpu, None, 400, Some(out.clone())))
        .unwrap_err()
        .to_string();
    assert!(e.contains("another scenario"), "{e}");
    // No temporary files left behind by the atomic writes.
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    std::fs::remove_dir_all(out).ok();
}
