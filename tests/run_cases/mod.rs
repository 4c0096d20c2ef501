//! Shared by the tests that drive whole runs through `run::session` (kinds_seam.rs,
//! sphere_scenario.rs, bead_scenario.rs, membrane_scenario.rs): paths, scratch directories, run
//! requests, the resume check, the command line (`softdem`, `ok`), and CSV outputs as numbers
//! (`read_csv`, `col`; also modal_contact_materials.rs, coupled_scenario.rs).

#![allow(dead_code)]

use softdem::backend::BackendKind;
use softdem::output::checkpoint;
use softdem::run::session::{run, RunRequest};
use std::path::{Path, PathBuf};

/// A path under the crate root.
pub fn path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// An empty scratch directory name for this process.
pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem-run-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A quiet run of `scenario` to step `steps` into `out`, or resumed from the run in `resume`.
pub fn request(
    scenario: &Path,
    kind: BackendKind,
    out: Option<PathBuf>,
    steps: u64,
    resume: Option<PathBuf>,
) -> RunRequest {
    RunRequest {
        out: if resume.is_some() { None } else { out },
        steps: Some(steps),
        resume,
        quiet: true,
        ..RunRequest::new(Some(scenario.to_path_buf()), kind)
    }
}

/// `n` steps in one run equal `n/2`, a checkpoint, a resume and `n/2` more, bit for bit: the
/// driver state, the kind's state, the checkpoint file and each of `files`. Returns the
/// uninterrupted run's directory (the caller removes it).
pub fn half_resume_equals_full(scenario: &Path, kind: BackendKind, n: u64, tag: &str, files: &[&str]) -> PathBuf {
    let (full, half) = (tmp(&format!("{tag}-full")), tmp(&format!("{tag}-half")));
    run(&request(scenario, kind, Some(full.clone()), n, None)).unwrap();
    run(&request(scenario, kind, Some(half.clone()), n / 2, None)).unwrap();
    let mid = checkpoint::read(&half.join("checkpoint.bin")).unwrap();
    assert_eq!(mid.saved.steps, n / 2);
    assert!(!mid.saved.kind.is_empty(), "the checkpoint holds the kind's own state");
    let r = run(&request(scenario, kind, None, n, Some(half.clone()))).unwrap();
    assert_eq!(r.steps, n);
    let (a, b) = (
        std::fs::read(full.join("checkpoint.bin")).unwrap(),
        std::fs::read(half.join("checkpoint.bin")).unwrap(),
    );
    let (ca, cb) = (checkpoint::decode(&a).unwrap(), checkpoint::decode(&b).unwrap());
    assert_eq!(ca.saved.steps, n);
    // (Debug text: NaN fields, where a kind has no stress measure, compare equal there.)
    assert_eq!(
        format!("{:?}", ca.driver),
        format!("{:?}", cb.driver),
        "driver state differs after resume"
    );
    assert!(ca.saved.kind == cb.saved.kind, "kind state differs after resume");
    assert!(a == b, "checkpoint files differ after resume");
    for f in files {
        assert_eq!(
            std::fs::read_to_string(full.join(f)).unwrap(),
            std::fs::read_to_string(half.join(f)).unwrap(),
            "{f} differs after resume"
        );
    }
    std::fs::remove_dir_all(half).ok();
    full
}

/// The `softdem` binary of this build, with an XDG_RUNTIME_DIR for lavapipe.
pub fn softdem() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_softdem"));
    c.env(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
    );
    c
}

/// Runs `c`, asserts it succeeded (its stderr in the message) and returns its stdout.
pub fn ok(c: &mut std::process::Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{c:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// A CSV file as its header and rows of numbers (non-numeric fields read as NaN).
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(str::to_string).collect();
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect())
        .collect();
    (header, rows)
}

/// The index of column `name`.
pub fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}
