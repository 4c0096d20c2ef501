//! Outputs of a run read back: every `.vtp` frame parses (vtkio) with one point per node and one
//! polyline per body, `run.pvd` lists exactly the frames with increasing times, `series.csv` has
//! the promised columns, `final.csv` one row per node, snapshots and plots are PNG files.
//! Also: the conversions of eq 11–14 and 19–27, the generators, and the runaway diagnosis.

use softdem::backend::BackendKind;
use softdem::model::*;
use softdem::run::session::{run, RunRequest};
use softdem::scenario::{materials, Scenario};
use std::path::{Path, PathBuf};
use vtkio::model::{DataSet, Piece, VertexNumbers};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem-out-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn manifest(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

#[test]
fn vtp_pvd_series_final_and_pictures_read_back() {
    let out = tmp("outputs");
    let req = RunRequest {
        out: Some(out.clone()),
        steps: Some(700),
        quiet: true,
        ..RunRequest::new(Some(manifest("tests/scenarios/stages.toml")), BackendKind::Cpu)
    };
    run(&req).unwrap();
    let built = Scenario::load(&manifest("tests/scenarios/stages.toml"))
        .unwrap()
        .build()
        .unwrap();
    let (n_nodes, n_bodies) = (built.scene.nodes.len(), built.scene.bodies.len());
    // run.pvd: one DataSet per frame file, times increasing, files present.
    let pvd = std::fs::read_to_string(out.join("run.pvd")).unwrap();
    assert!(pvd.starts_with("<?xml") && pvd.contains("type=\"Collection\"") && pvd.trim_end().ends_with("</VTKFile>"));
    let entries: Vec<(f64, String)> = pvd
        .lines()
        .filter(|l| l.starts_with("<DataSet"))
        .map(|l| {
            let attr = |k: &str| {
                l.split(&format!("{k}=\""))
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_string()
            };
            (attr("timestep").parse().unwrap(), attr("file"))
        })
        .collect();
    // Frames every 300 steps from 0, and the last one: 0, 300, 600, 700.
    assert_eq!(entries.len(), 4, "{pvd}");
    assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
    let on_disk = std::fs::read_dir(out.join("frames")).unwrap().count();
    assert_eq!(on_disk, entries.len());
    for (_, f) in &entries {
        let vtk = vtkio::Vtk::import(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e:?}"));
        let DataSet::PolyData { pieces, .. } = vtk.data else {
            panic!("{f}: not PolyData")
        };
        assert_eq!(pieces.len(), 1);
        let Piece::Inline(p) = &pieces[0] else {
            panic!("inline piece")
        };
        assert_eq!(p.num_points(), n_nodes, "{f}: points");
        let lines = p.lines.as_ref().expect("lines");
        assert_eq!(lines.num_cells(), n_bodies, "{f}: polylines");
        if let VertexNumbers::XML { connectivity, offsets } = lines {
            // Closed shells repeat their first node.
            let closed = built.scene.bodies.iter().filter(|b| b.flags & BODY_CLOSED != 0).count();
            assert_eq!(connectivity.len(), n_nodes + closed);
            assert_eq!(*offsets.last().unwrap() as usize, connectivity.len());
        }
        let names: Vec<String> = p
            .data
            .point
            .iter()
            .chain(&p.data.cell)
            .map(|a| a.name().to_string())
            .collect();
        for want in [
            "velocity",
            "force",
            "pressure",
            "area",
            "elastic_energy",
            "elastic_energy_normalised",
        ] {
            assert!(names.iter().any(|n| n == want), "{f}: no {want} in {names:?}");
        }
    }
    // series.csv: header first with the promised columns, one row per 100 steps (0..=700).
    let series = std::fs::read_to_string(out.join("series.csv")).unwrap();
    let header: Vec<&str> = series.lines().next().unwrap().split(',').collect();
    assert_eq!(&header[..2], &["step", "time"]);
    for col in [
        "box_top_y",
        "box_top_fy",
        "stress",
        "strain",
        "void_ratio",
        "particle_area",
        "e_stretch",
        "e_bending",
        "e_core",
        "e_contact",
        "e_kinetic",
        "contacts",
    ] {
        assert!(header.contains(&col), "no column {col}");
    }
    let rows: Vec<&str> = series.lines().skip(1).collect();
    assert_eq!(rows.len(), 8);
    assert!(rows.iter().all(|r| r.split(',').count() == header.len()));
    // final.csv: every node.
    let fin = std::fs::read_to_string(out.join("final.csv")).unwrap();
    assert_eq!(fin.lines().next().unwrap(), "body,node,x,y,vx,vy,fx,fy");
    assert_eq!(fin.lines().count(), n_nodes + 1);
    // Pictures.
    for dir in ["snapshots", "plots"] {
        let pngs: Vec<_> = std::fs::read_dir(out.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(!pngs.is_empty(), "no {dir}");
        for p in pngs {
            assert_eq!(&std::fs::read(&p).unwrap()[1..4], b"PNG", "{}", p.display());
        }
    }
    assert!(out.join("snapshots/snapshot_000600.png").exists() && out.join("plots/stress_strain.png").exists());
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn materials_follow_eq_11_to_14_and_19_to_27() {
    let (e, nu, h, s, sy, r, n) = (2.0e6, 0.3, 0.05, 2.0, 1.0e4, 1.0, 32u32);
    let text = format!(
        "[contact]\nk_n = 1.0\n[materials.m]\nyoung = {e}\npoisson = {nu}\nthickness = {h}\ndepth = {s}\nyield_stress = {sy}\nradius = {r}\nnodes = {n}\neta = 2.0\nnode_mass = 1.0\n"
    );
    let sc = Scenario::from_text(&text, "t.toml", Path::new("."), "t", &[]).unwrap();
    let m = &sc.materials["m"].1;
    let ell = 2.0 * r * (std::f64::consts::PI / n as f64).sin();
    let rel = |a: f32, b: f64| ((a as f64 - b) / b).abs();
    assert!(rel(m.material.k_s, e * h / (1.0 - nu * nu)) < 1e-6); // eq 11
    let k_b = e * h.powi(3) / (12.0 * (1.0 - nu * nu));
    assert!(rel(m.material.k_b, k_b) < 1e-6); // eq 12
    assert!(rel(m.material.f_s_yield, h * s * sy) < 1e-6); // eq 13
    assert!(rel(m.material.m_b_yield, 4.0 * (h.powi(3) * ell / 12.0) * sy / h) < 1e-6); // eq 14
    let k_shell = e * h / (1.0 - nu * nu) / s * (std::f64::consts::PI / n as f64).tan(); // eq 25
    assert!(rel(m.material.k_core, 2.0 * k_shell) < 1e-6); // eq 20
    let rf = m.reference.unwrap();
    assert!((rf.xi - (h / ell).powi(2) / 12.0).abs() < 1e-9 * rf.xi.max(1.0)); // eq 19
                                                                               // Ratios back: ξ, η, γ given → the same ξ, η, γ derived.
    let text = "[contact]\nk_n = 1.0\n[materials.m]\nk_s = 1.0e4\nxi = 0.02\neta = 3.0\ngamma = 0.5\nradius = 1.5\nnodes = 24\ncell_mass = 2.4\n";
    let sc = Scenario::from_text(text, "t.toml", Path::new("."), "t", &[]).unwrap();
    let rf = sc.materials["m"].1.reference.unwrap();
    assert!(
        (rf.xi - 0.02).abs() < 1e-6 && (rf.eta - 3.0).abs() < 1e-5 && (rf.gamma - 0.5).abs() < 1e-5,
        "{rf:?}"
    );
    assert_eq!(sc.materials["m"].1.node_mass_for(24), 0.1);
}

#[test]
fn generators_make_what_they_say() {
    let text = r#"
[contact]
k_n = 1.0e3
[materials.m]
k_s = 1.0e3
k_b = 1.0
node_mass = 0.1
[[bodies]]
kind = "packing"
name = "grains"
material = "m"
min = [0.0, 2.0]
max = [20.0, 22.0]
count = 40
radius = 1.0
spread = 0.2
nodes = 16
seed = 5
[[bodies]]
kind = "box"
min = [-0.5, -0.5]
max = [20.0, 22.0]
[[bodies]]
kind = "beam"
name = "beam"
material = "m"
a = [30.0, 0.0]
b = [40.0, 0.0]
nodes = 11
clamp = "start"
[[bodies]]
kind = "file"
name = "csv"
material = "m"
path = "cells.csv"
half_thickness = 0.02
[[stages]]
kind = "hold"
steps = 1
"#;
    // The polygon files lie beside the test scenarios.
    let base = manifest("tests/scenarios");
    let b = Scenario::from_text(text, "g.toml", &base, "g", &[])
        .unwrap()
        .build()
        .unwrap();
    let grains = &b.geometry.groups["grains"];
    assert_eq!(grains.len(), 40);
    // Radii within R(1 ± 0.2), inside the region.
    for &g in grains {
        let c = softdem::diagnostics::centroid(&b.scene, &b.scene.init, g);
        let rad = softdem::diagnostics::mean_radius(&b.scene, &b.scene.init, g);
        assert!((0.79..=1.21).contains(&rad), "radius {rad}");
        assert!(c[0] - rad >= 0.0 && c[0] + rad <= 20.0 && c[1] - rad >= 2.0 && c[1] + rad <= 22.0);
        assert_eq!(b.scene.bodies[g as usize].count, 16);
    }
    assert!(softdem::scenario::geometry::find_overlap(&b.scene).is_none());
    assert_eq!(b.geometry.walls.len(), 4);
    // Beam: 11 nodes, the first two clamped.
    let beam = b.scene.bodies[b.geometry.groups["beam"][0] as usize];
    let clamped: Vec<bool> = (beam.first..beam.first + beam.count)
        .map(|i| b.scene.nodes[i as usize].bc_mode == BC_VX | BC_VY)
        .collect();
    assert_eq!(clamped.iter().filter(|&&c| c).count(), 2);
    assert!(clamped[0] && clamped[1]);
    // CSV polygons: two unit squares, counter-clockwise (positive reference volume).
    let csv = &b.geometry.groups["csv"];
    assert_eq!(csv.len(), 2);
    assert!(csv
        .iter()
        .all(|&c| b.scene.bodies[c as usize].count == 4 && (b.scene.bodies[c as usize].core_v0 - 1.0).abs() < 1e-6));
    // JSON polygons (the first square is clockwise in the file): also placed at the origin, so
    // adding them overlaps the CSV cells and the scenario is refused.
    let polys = softdem::scenario::geometry::read_polygons(&base.join("cells.json")).unwrap();
    assert_eq!((polys.len(), polys[1].len()), (2, 3));
    let with_json = text.replace(
        "[[stages]]",
        "[[bodies]]\nkind = \"file\"\nmaterial = \"m\"\npath = \"cells.json\"\nhalf_thickness = 0.02\n[[stages]]",
    );
    let e = Scenario::from_text(&with_json, "g.toml", &base, "g", &[])
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("overlapping bodies") && e.contains("key `bodies[4]`"), "{e}");
    assert!((materials::ring_segment(1.0, 4) - 2f64.sqrt()).abs() < 1e-12);
}

#[test]
fn runaway_motion_names_step_body_and_node() {
    // An imposed force far too large for the time step blows a beam's free end up.
    let text = r#"
[simulation]
check_every = 20
[output]
plots = false
[contact]
k_n = 1.0e3
[materials.m]
k_s = 1.0e3
k_b = 1.0
node_mass = 1.0
[[bodies]]
kind = "beam"
name = "beam"
material = "m"
a = [0.0, 0.0]
b = [10.0, 0.0]
nodes = 11
[[stages]]
kind = "force"
target = "beam"
nodes = [-1]
force = [0.0, 1.0e9]
steps = 200
"#;
    let dir = tmp("runaway");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("runaway.toml");
    std::fs::write(&path, text).unwrap();
    let req = RunRequest {
        out: Some(dir.join("out")),
        quiet: true,
        ..RunRequest::new(Some(path), BackendKind::Cpu)
    };
    let e = format!("{:#}", run(&req).unwrap_err());
    assert!(
        e.contains("began at step 1 ") && e.contains("body 0, node 10 of that body"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn every_shipped_scenario_loads_and_builds() {
    let mut n = 0;
    let spheres: Vec<_> = std::fs::read_dir(manifest("scenarios/spheres")).unwrap().collect();
    assert!(spheres.len() >= 5, "the sphere scenarios are shipped");
    for e in std::fs::read_dir(manifest("scenarios")).unwrap().chain(spheres) {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        if p.extension().is_some_and(|x| x == "toml") && !text.contains("[parameters]") {
            let sc = Scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
            if sc.is_spheres() {
                // 3D spheres: the sphere kind's build with its stages.
                sc.build_sphere_run().unwrap_or_else(|e| panic!("{e}"));
            } else if sc.is_modal_only() {
                // Modal bodies only (no SPD cells): the modal builder is the whole scene.
                sc.build_modal().unwrap_or_else(|e| panic!("{e}"));
            } else if sc.is_mixed() {
                // SPD cells and modal bodies: the coupled scene (scenario::coupled).
                sc.build_coupled().unwrap_or_else(|e| panic!("{e}"));
            } else {
                sc.build().unwrap_or_else(|e| panic!("{e}"));
            }
            n += 1;
        }
    }
    assert!(n >= 1);
    // The embedded default is the file scenarios/default.toml.
    let d = Scenario::default_scenario();
    assert_eq!(
        d.text,
        std::fs::read_to_string(manifest("scenarios/default.toml")).unwrap()
    );
}

/// `[output]` counts of 0 mean "only at the end" (docs/scenarios.md): one series row, one frame,
/// and the end checkpoint, whatever the run's length; with 100 every output is
/// periodic (8 series rows and frames for 650 steps: steps 0, 100, …, 600, then the end).
#[test]
fn output_counts_of_zero_mean_only_at_the_end() {
    for (every, rows) in [(0u64, 1usize), (100, 8)] {
        let out = tmp(&format!("every{every}"));
        let overrides: Vec<(String, toml::Value)> =
            ["series_every", "frames_every", "snapshots_every", "checkpoint_every"]
                .iter()
                .map(|k| (format!("output.{k}"), toml::Value::Integer(every as i64)))
                .collect();
        let req = RunRequest {
            out: Some(out.clone()),
            steps: Some(650),
            quiet: true,
            overrides: overrides.clone(),
            ..RunRequest::new(Some(manifest("tests/scenarios/stages.toml")), BackendKind::Cpu)
        };
        run(&req).unwrap();
        let series = std::fs::read_to_string(out.join("series.csv")).unwrap();
        let steps: Vec<&str> = series.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
        assert_eq!(steps.len(), rows, "series_every = {every}: rows at steps {steps:?}");
        assert_eq!(*steps.last().unwrap(), "650");
        let frames = std::fs::read_dir(out.join("frames")).unwrap().count();
        let expected = if every == 0 { 1 } else { 8 }; // steps 0, 100, …, 600 and 650
        assert_eq!(frames, expected, "frames_every = {every}");
        assert!(out.join("checkpoint.bin").exists());
    }
}

/// `.vtp` frames are base64 binary by default and text with `[output] vtk = "ascii"`: both parse
/// (vtkio) to the same points, point data, cell data and lines, and the binary file is smaller.
/// `vtk = "hex"` is refused, naming the key.
#[test]
fn vtp_frames_binary_by_default_and_ascii_on_request() {
    let scenario = manifest("tests/scenarios/stages.toml");
    let mut parsed = vec![];
    for (name, value) in [("binary", None), ("ascii", Some("ascii"))] {
        let out = tmp(&format!("vtk-{name}"));
        let overrides: Vec<(String, toml::Value)> = value
            .map(|v| ("output.vtk".to_string(), toml::Value::String(v.into())))
            .into_iter()
            .collect();
        let req = RunRequest {
            out: Some(out.clone()),
            steps: Some(120),
            quiet: true,
            overrides,
            ..RunRequest::new(Some(scenario.clone()), BackendKind::Cpu)
        };
        run(&req).unwrap();
        let file = out.join("frames/frame_000120.vtp");
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.contains("format=\"binary\""), name == "binary", "{name}");
        assert_eq!(text.contains("format=\"ascii\""), name == "ascii", "{name}");
        let vtk = vtkio::Vtk::import(&file).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        parsed.push((text.len(), vtk.data));
    }
    assert_eq!(parsed[0].1, parsed[1].1, "binary and ascii frames hold different data");
    assert!(
        parsed[0].0 < parsed[1].0,
        "binary {} B, ascii {} B",
        parsed[0].0,
        parsed[1].0
    );
    let bad = vec![("output.vtk".to_string(), toml::Value::String("hex".into()))];
    let err = Scenario::load_with_overrides(&scenario, &bad)
        .and_then(|s| s.build().map(|_| ()))
        .unwrap_err();
    assert!(err.to_string().contains("vtk"), "{err}");
}
