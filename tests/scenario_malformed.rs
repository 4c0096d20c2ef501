//! The malformed-scenario suite: every file in `tests/scenarios_malformed/` must be refused with
//! one message naming the file, a line and column, the key (`# key:` in the file) and the
//! expected fragment (`# expect:`). Also checks that the command line exits non-zero with it.

use softdem::scenario::{Scenario, ScenarioError};
use std::path::{Path, PathBuf};

fn malformed_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios_malformed");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

fn header(text: &str, tag: &str) -> Option<String> {
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix(&format!("# {tag}: ")).map(str::to_string))
}

/// Load, check against wgpu's default limits (128 MiB per binding), build: the first error.
fn first_error(path: &Path) -> Option<ScenarioError> {
    let sc = match Scenario::load(path) {
        Ok(s) => s,
        Err(e) => return Some(e),
    };
    if let Err(e) = sc.check_limits(&wgpu::Limits::default()) {
        return Some(e);
    }
    // 3D spheres: the sphere kind's build (scenario::spheres) with its stages.
    if sc.is_spheres() {
        return sc.build_sphere_run().err();
    }
    // Modal bodies (`[modal]`, `modal_*.toml` files) are resolved by `build_modal`; a file with
    // modal bodies only has no SPD scene to build.
    if sc.file.modal.is_some() {
        if let Err(e) = sc.build_modal() {
            return Some(e);
        }
        if sc.is_modal_only() {
            // Its stages, resolved against the modal walls (the driver's `Built`).
            return sc.build_modal_run().err();
        }
        // SPD cells with modal bodies: the coupled build (scenario::coupled) and its checks.
        return sc.build_coupled().err();
    }
    sc.build().err()
}

#[test]
fn the_modal_example_is_accepted() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/modal_disk_press.toml");
    assert!(
        first_error(&path).is_none(),
        "{:?}",
        first_error(&path).map(|e| e.to_string())
    );
}

#[test]
fn the_mixed_example_is_accepted() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/modal_disk_on_cells.toml");
    let err = first_error(&path).map(|e| e.to_string());
    assert!(err.is_none(), "{err:?}");
}

#[test]
fn every_malformed_file_is_refused_with_file_line_column_key_and_message() {
    let files = malformed_files();
    assert!(files.len() >= 20, "only {} malformed files", files.len());
    let mut failures = vec![];
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let expect = header(&text, "expect").unwrap_or_else(|| panic!("{} has no `# expect:` line", path.display()));
        let key = header(&text, "key");
        let Some(err) = first_error(path) else {
            failures.push(format!("{}: accepted", path.display()));
            continue;
        };
        let msg = err.to_string();
        let file_name = path.file_name().unwrap().to_str().unwrap();
        let mut ok = msg.contains(file_name) && msg.contains(&expect) && err.line >= 1 && err.column >= 1;
        if let Some(k) = &key {
            ok &= msg.contains(&format!("key `{k}`"));
        }
        // The line really is where the key is (or the enclosing table / the file's first line).
        ok &= msg.contains(&format!(":{}:{}:", err.line, err.column));
        ok &= err.line <= text.lines().count().max(1);
        if !ok {
            failures.push(format!(
                "{}:\n   got:      {msg}\n   expected: `{expect}` key {key:?}",
                path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files wrong:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn error_points_at_the_offending_line() {
    // A value of the wrong type: the line of `k_n` itself.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios_malformed/wrong_type.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().position(|l| l.starts_with("k_n")).unwrap() + 1;
    let err = first_error(&path).unwrap();
    assert_eq!(err.line, line, "{err}");
    assert_eq!(err.column, 7, "{err}");
    // A semantic error (negative stiffness): the line of `k_s`.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios_malformed/negative_stiffness.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().position(|l| l.starts_with("k_s")).unwrap() + 1;
    assert_eq!(first_error(&path).unwrap().line, line);
}

#[test]
fn command_line_exits_non_zero_with_one_message() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios_malformed/unknown_material_key.toml");
    for args in [
        vec!["check", "--backend", "cpu"],
        vec!["run", "--backend", "cpu", "--quiet"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_softdem"))
            .args(&args)
            .arg(&path)
            .args(
                [
                    "--out",
                    std::env::temp_dir().join("softdem-never-written").to_str().unwrap(),
                ]
                .iter()
                .filter(|_| args[0] == "run"),
            )
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("unknown_material_key.toml:")
                && err.contains("unknown field `k_ss`")
                && err.contains("key `materials.shell.k_ss`"),
            "{err}"
        );
    }
}
