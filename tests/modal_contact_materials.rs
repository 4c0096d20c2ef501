//! The contact law table for modal contacts (`model::contact_table`, `modal::packed::Packed::laws`):
//! modal–modal and modal–SPD contacts take k_n, k_t, μ, c_n from the entry of the two bodies'
//! contact materials (`[contact_materials.NAME]`, `contact_material` of `[[modal.bodies]]` and
//! `[[bodies]]`), mixed by the stated rule, on the CPU and on the GPU (lavapipe in CI).
//!
//! Materials A (k_n 100, k_t 50, μ 0.25, c_n 2) and B (k_n 300, k_t 150, μ 0.75, c_n 6) mix to
//! M = (2·100·300/400, 2·50·150/200, (0.25 + 0.75)/2, 2·2·6/8) = (150, 75, 0.5, 3), all exact in
//! f32. A collision of an A body with a B body must then give, bit for bit, the run of two M
//! bodies (same fixed dt), and differ from the run of two A bodies. The contacts are oblique,
//! so friction (k_t, μ) acts as well as k_n and c_n. Modal–modal: two disks thrown at each
//! other; modal–SPD: a free cell dropped onto a disk that rests on a modal wall (the walls' law
//! is `[contact]` in every run), both directions of the coupling.
//!
//! The GPU part fails (never skips) when no adapter exists.

mod run_cases;

use run_cases::{col, read_csv};
use softdem::backend::BackendKind;
use softdem::scenario::Scenario;
use std::path::{Path, PathBuf};

const MATERIALS: &str = r#"
[contact]
k_n = 200.0
c_n = 1.0
k_t = 100.0
mu = 0.1

[contact_materials.a]
k_n = 100.0
k_t = 50.0
mu = 0.25
c_n = 2.0

[contact_materials.b]
k_n = 300.0
k_t = 150.0
mu = 0.75
c_n = 6.0

[contact_materials.m]
k_n = 150.0
k_t = 75.0
mu = 0.5
c_n = 3.0
"#;

const DISK_MODE: &str = r#"
[[modal.bodies.modes]]
shape = "compaction"
stiffness = "value"
k = 1000.0
damping_ratio = 0.5
"#;

/// Two modal disks (R = 1) thrown at each other off-centre, materials `m1` and `m2`.
fn two_disks(m1: &str, m2: &str) -> String {
    let disk = |name: &str, c: [f64; 2], v: f64, mat: &str| {
        format!(
            "[[modal.bodies]]\nname = \"{name}\"\nshape = \"disk\"\nradius = 1.0\nnodes = 48\n\
             grid_spacing = 0.1\ndensity = 0.3\ncenter = [{}, {}]\nvelocity = [{v}, 0.0]\n\
             contact_material = \"{mat}\"\n{DISK_MODE}",
            c[0], c[1]
        )
    };
    format!(
        "name = \"two_disks\"\n{MATERIALS}\n[modal]\ndt = 5.0e-4\nsteps = 800\nrebuild_every = 50\nskin = 0.4\n\
         series_every = 50\n\n{}\n{}",
        disk("left", [-1.1, 0.3], 1.0, m1),
        disk("right", [1.1, -0.3], -1.0, m2)
    )
}

/// A free SPD cell (material `cell`) dropped under gravity onto a modal disk (material `disk`)
/// that rests on a modal wall (whose law, `[contact]`, is the same in every run); fixed dt.
fn disk_and_cell(disk: &str, cell: &str) -> String {
    format!(
        r#"name = "disk_and_cell"
[simulation]
dt = 8.0e-4
gravity = [0.0, -2.0]
check_every = 200

[output]
series_every = 100
frames_every = 0
plots = false
{MATERIALS}
[materials.shell]
k_s = 1.0e4
xi = 0.025
eta = 0.4
radius = 1.0
nodes = 24
cell_mass = 1.0

[[bodies]]
kind = "ring"
material = "shell"
center = [5.3, 4.0]
radius = 0.8
nodes = 24
contact_material = "{cell}"

[[stages]]
kind = "deposit"
ke_below = 1.0e-9
min_steps = 100000
max_steps = 200000

[modal]
rebuild_every = 50
skin = 0.4
series_every = 100

[[modal.bodies]]
name = "disk"
shape = "disk"
radius = 1.4
nodes = 64
grid_spacing = 0.1
density = 0.3248
center = [5.0, 1.4]
rigid_damping = 1.0
contact_material = "{disk}"
{DISK_MODE}
[[modal.walls]]
name = "floor"
kind = "line"
point = [0.0, 0.0]
normal = [0.0, 1.0]
"#
    )
}

fn scenario(text: &str) -> Scenario {
    Scenario::from_text(text, "<test>", Path::new("."), "materials", &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn out_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("softdem_modal_materials_{tag}_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs two disks on `kind`: modal_series.csv as text and parsed.
fn run_two_disks(m1: &str, m2: &str, kind: BackendKind, tag: &str) -> (String, Vec<String>, Vec<Vec<f64>>) {
    let out = out_dir(tag);
    softdem::run::session::run_modal(&scenario(&two_disks(m1, m2)), kind, Some(&out), None, true).unwrap();
    let text = std::fs::read_to_string(out.join("modal_series.csv")).unwrap();
    let (h, rows) = read_csv(&out.join("modal_series.csv"));
    let _ = std::fs::remove_dir_all(&out);
    (text, h, rows)
}

/// Runs the cell onto the disk for 2000 steps on `kind`: modal_series.csv and final.csv as
/// text, and final.csv parsed.
fn run_disk_and_cell(
    disk: &str,
    cell: &str,
    kind: BackendKind,
    tag: &str,
) -> (String, String, Vec<String>, Vec<Vec<f64>>) {
    let out = out_dir(tag);
    let sc = scenario(&disk_and_cell(disk, cell));
    softdem::run::coupled::run(&sc, kind, Some(&out), Some(2000), true).unwrap();
    let series = std::fs::read_to_string(out.join("modal_series.csv")).unwrap();
    let nodes = std::fs::read_to_string(out.join("final.csv")).unwrap();
    let (h, rows) = read_csv(&out.join("final.csv"));
    let _ = std::fs::remove_dir_all(&out);
    (series, nodes, h, rows)
}

fn modal_pair(kind: BackendKind, tag: &str) {
    let (ab, h, rows) = run_two_disks("a", "b", kind, &format!("{tag}_ab"));
    let (mm, ..) = run_two_disks("m", "m", kind, &format!("{tag}_mm"));
    let (aa, ..) = run_two_disks("a", "a", kind, &format!("{tag}_aa"));
    // The disks met and bounced: the left one moved right, then back; friction turned it.
    let (x, th) = (col(&h, "left.x"), col(&h, "left.theta"));
    let x_max = rows.iter().map(|r| r[x]).fold(f64::MIN, f64::max);
    let end = rows.last().unwrap();
    println!(
        "{tag}: left disk x_max {x_max:.4}, x_end {:.4}, θ_end {:.3e}",
        end[x], end[th]
    );
    assert!(
        x_max > -1.05 && end[x] < x_max - 0.05,
        "no bounce: x_max {x_max}, x_end {}",
        end[x]
    );
    assert!(end[th].abs() > 1e-4, "friction did not turn the disk: θ = {}", end[th]);
    assert_eq!(
        ab, mm,
        "{tag}: materials a and b must collide as two bodies of the mixed law m"
    );
    assert_ne!(ab, aa, "{tag}: the pair (a, a) must differ from (a, b)");
}

fn coupled_pair(kind: BackendKind, tag: &str) {
    let (ab, ab_nodes, h, rows) = run_disk_and_cell("a", "b", kind, &format!("{tag}_ab"));
    let (mm, mm_nodes, ..) = run_disk_and_cell("m", "m", kind, &format!("{tag}_mm"));
    let (aa, ..) = run_disk_and_cell("a", "a", kind, &format!("{tag}_aa"));
    // The cell landed on the disk (top at y = 2.8): in free fall for the 1.6 time units of the
    // run its centre would have dropped 2.56, to y = 1.44.
    let y = col(&h, "y");
    let mean_y = rows.iter().map(|r| r[y]).sum::<f64>() / rows.len() as f64;
    println!("{tag}: the cell's centre at y = {mean_y:.4}");
    assert!(mean_y > 3.0, "the cell did not land on the disk: y = {mean_y}");
    assert_eq!(ab, mm, "{tag}: disk a on cell b must move as disk m on cell m");
    assert_eq!(ab_nodes, mm_nodes, "{tag}: the cell's nodes too");
    assert_ne!(ab, aa, "{tag}: the pair (a, a) must differ from (a, b)");
}

#[test]
fn modal_bodies_of_two_materials_collide_with_the_mixed_law_on_the_cpu() {
    modal_pair(BackendKind::Cpu, "cpu");
}

#[test]
fn modal_bodies_of_two_materials_collide_with_the_mixed_law_on_the_gpu() {
    modal_pair(BackendKind::Gpu, "gpu");
}

#[test]
fn a_modal_body_and_a_cell_of_two_materials_meet_with_the_mixed_law_on_the_cpu() {
    coupled_pair(BackendKind::Cpu, "coupled_cpu");
}

#[test]
fn a_modal_body_and_a_cell_of_two_materials_meet_with_the_mixed_law_on_the_gpu() {
    coupled_pair(BackendKind::Gpu, "coupled_gpu");
}

#[test]
fn the_keys_reach_the_bodies_and_an_unknown_material_is_located() {
    let sc = scenario(&disk_and_cell("a", "b"));
    let cb = sc.build_coupled().unwrap();
    // Name order: a = 1, b = 2, m = 3 (0 is [contact]).
    assert_eq!(cb.modal.scene.bodies[0].contact_material, 1);
    assert_eq!(cb.modal.scene.contact_materials.len(), 3);
    let packed = cb.modal.scene.pack().unwrap();
    assert_eq!(packed.params.n_materials, 4);
    let ab = packed.pair_law(1, 2);
    assert_eq!((ab.k_n, ab.k_t, ab.mu, ab.c_n), (150.0, 75.0, 0.5, 3.0));
    assert_eq!(packed.pair_law(2, 1), ab);
    let text = two_disks("a", "zz");
    let line = 1 + text.lines().position(|l| l.contains("\"zz\"")).unwrap();
    let err = Scenario::from_text(&text, "<test>", Path::new("."), "bad", &[])
        .and_then(|s| s.build_modal().map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("modal.bodies[1].contact_material") && err.contains("unknown contact material \"zz\""),
        "{err}"
    );
    assert!(
        err.starts_with(&format!("<test>:{line}:")),
        "the error names the file and the key's line: {err}"
    );
}
