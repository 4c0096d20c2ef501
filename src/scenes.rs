//! Built-in scenes: the embedded default compaction demo (what `softdem run` runs without a
//! scenario file) and the benchmark scene of `softdem bench`.

use crate::model::*;

/// Parameters of a box of cells on a jittered lattice.
#[derive(Clone, Copy, Debug)]
pub struct PackingSpec {
    pub columns: usize,
    pub rows: usize,
    /// Mean cell radius R.
    pub radius: f64,
    /// Relative radius spread ΔR/R (uniform in [1 − Δ, 1 + Δ]).
    pub spread: f64,
    pub nodes_per_cell: usize,
    pub seed: u64,
}

/// Small deterministic generator (SplitMix64), so scenes do not depend on a crate's RNG stream.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Indices of the four walls of a box: bottom, top, left, right.
#[derive(Clone, Copy, Debug)]
pub struct BoxWalls {
    pub bottom: u32,
    pub top: u32,
    pub left: u32,
    pub right: u32,
}

/// Cells on a square lattice of pitch 2.2 R (no initial overlap), radii spread by ±Δ, inside a
/// box of frozen wall lines, under gravity −g ŷ. Elastic shell (η = 0, undrained core with a
/// small K_Ω), frictional contacts, light viscous damping for a quick deposit.
pub fn packing_in_box(spec: PackingSpec, gravity: f32) -> (Scene, BoxWalls) {
    let mut sc = Scene::default();
    let r = spec.radius;
    let ell = 2.0 * std::f64::consts::PI * r / spec.nodes_per_cell as f64;
    let k_s = 1.0e4f32;
    let shell = sc.add_material(Material {
        k_s,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b: 0.5 * k_s * (ell * ell) as f32 * 0.05,
        m_b_yield: f32::INFINITY,
        c_b: 0.0,
        k_core: 0.05 * k_s,
        depth: 1.0,
    });
    let wall = sc.add_material(Material {
        depth: 1.0,
        ..Default::default()
    });
    let thickness = 0.05 * r;
    let mass = 1.0 / spec.nodes_per_cell as f32;
    let cell = BodyOptions {
        material: shell,
        radius: thickness as f32,
        node_mass: mass,
        frozen: false,
        self_contact: true,
        core: Core::Undrained { p0: 0.0 },
    };
    let pitch = 2.3 * r;
    let mut rng = SplitMix(spec.seed);
    for j in 0..spec.rows {
        for i in 0..spec.columns {
            let ri = r * (1.0 + spec.spread * (2.0 * rng.next_f64() - 1.0));
            let c = [pitch * (i as f64 + 0.5), pitch * (j as f64 + 0.5)];
            sc.add_ring(c, ri, spec.nodes_per_cell, cell);
        }
    }
    let (w, h) = (pitch * spec.columns as f64, pitch * (spec.rows as f64 + 0.5));
    let wall_opts = BodyOptions {
        material: wall,
        radius: thickness as f32,
        node_mass: mass,
        frozen: true,
        self_contact: false,
        core: Core::None,
    };
    // Wall lines with segments about as long as the cells' so contacts stay local.
    let n_across = ((w / ell).ceil() as usize + 1).max(2);
    let n_up = ((h / ell).ceil() as usize + 1).max(2);
    let m = 2.0 * thickness;
    let bottom = sc.add_line([-m, -m], [w + m, -m], n_across, wall_opts);
    let top = sc.add_line([w + m, h + m], [-m, h + m], n_across, wall_opts);
    let left = sc.add_line([-m, h + m], [-m, -m], n_up, wall_opts);
    let right = sc.add_line([w + m, -m], [w + m, h + m], n_up, wall_opts);
    sc.contact = ContactLaw {
        k_n: k_s,
        k_t: 0.5 * k_s,
        mu: 0.3,
        c_n: 0.0,
    };
    sc.gravity = [0.0, -gravity];
    sc.viscous_damping = 0.5;
    sc.time_step = TimeStep::FractionOfCritical(0.2);
    (
        sc,
        BoxWalls {
            bottom,
            top,
            left,
            right,
        },
    )
}

/// The standard scene of `softdem bench`: a dense packing being slowly compressed, as in a
/// quasi-static compaction run (not a free fall, so the neighbour list is rebuilt rarely).
///
/// `cells` shells of 32 nodes (mean radius R = 1, radii in [1 − 2·spread, 1]) sit on a hexagonal
/// lattice whose pitch is 0.5 % below contact of the largest shells, so nearly every shell starts
/// in contact with its six neighbours, inside a box of frozen walls. There is no gravity; the top
/// wall moves down at 0.05 R per unit time (about 1e-5 R per step: quasi-static). Same materials
/// as `packing_in_box`.
pub fn compaction_bench(cells: usize) -> (Scene, BoxWalls) {
    let spec = PackingSpec {
        columns: 1,
        rows: 1,
        radius: 1.0,
        spread: 0.0,
        nodes_per_cell: 32,
        seed: 1,
    };
    // Take the materials, wall options and contact law of the benchmark packing, without its bodies.
    let (mut sc, _) = packing_in_box(spec, 0.0);
    let shell_opts = BodyOptions {
        material: 0,
        radius: sc.bodies[0].radius,
        node_mass: sc.nodes[0].mass,
        frozen: false,
        self_contact: true,
        core: Core::Undrained { p0: 0.0 },
    };
    let wall_opts = BodyOptions {
        frozen: true,
        self_contact: false,
        core: Core::None,
        material: 1,
        ..shell_opts
    };
    sc.bodies.clear();
    sc.nodes.clear();
    sc.init.clear();
    let r = 1.0f64;
    let thickness = shell_opts.radius as f64;
    let a = 2.0 * (r + thickness) * 0.998; // hexagonal pitch: every shell starts slightly pressed on its six neighbours
    let columns = ((cells as f64).sqrt().ceil() as usize).max(1);
    let rows = cells.div_ceil(columns);
    let mut rng = SplitMix(1);
    let row_h = a * 3f64.sqrt() / 2.0;
    let mut placed = 0;
    'outer: for j in 0..rows {
        for i in 0..columns {
            if placed == cells {
                break 'outer;
            }
            let x = 0.5 * a + a * i as f64 + if j % 2 == 1 { 0.5 * a } else { 0.0 };
            let y = 0.5 * a + row_h * j as f64;
            let ri = r * (1.0 - 0.001 * rng.next_f64());
            sc.add_ring([x, y], ri, 32, shell_opts);
            placed += 1;
        }
    }
    let ell = 2.0 * std::f64::consts::PI * r / 32.0;
    let (w, h) = (a * (columns as f64 + 0.5), row_h * (rows - 1) as f64 + a);
    let n_across = ((w / ell).ceil() as usize + 1).max(2);
    let n_up = ((h / ell).ceil() as usize + 1).max(2);
    let m = thickness;
    let bottom = sc.add_line([-m, -m], [w + m, -m], n_across, wall_opts);
    let top = sc.add_line([w + m, h + m], [-m, h + m], n_across, wall_opts);
    let left = sc.add_line([-m, h + m], [-m, -m], n_up, wall_opts);
    let right = sc.add_line([w + m, -m], [w + m, h + m], n_up, wall_opts);
    sc.gravity = [0.0, 0.0];
    sc.local_damping = 0.7;
    sc.impose_velocity(&NodeSet::Body(top), Some(0.0), Some(-0.05));
    sc.set_initial_velocity(&NodeSet::Body(top), [0.0, -0.05]);
    (
        sc,
        BoxWalls {
            bottom,
            top,
            left,
            right,
        },
    )
}

/// The embedded default scenario: 6 × 5 cells of 24 nodes deposited under gravity in a box
/// whose top wall then moves down at constant velocity (a small compaction demo).
pub fn default_demo() -> (Scene, BoxWalls) {
    packing_in_box(
        PackingSpec {
            columns: 6,
            rows: 5,
            radius: 1.0,
            spread: 0.15,
            nodes_per_cell: 24,
            seed: 7,
        },
        1.0,
    )
}

/// The bed of the deposit and coupled benches: `[materials.shell]` and a `packing` body of
/// `cells` shells of 32 nodes, radii uniform in [0.8, 1.0], half-thickness 0.05, an undrained
/// core K_Ω = 10³, dropped and rolled (no clearance) into [0, width] × [0, 8 width] (`seed`).
fn packed_bed(width: f64, cells: usize, seed: u32) -> String {
    let tall = 8.0 * width;
    format!(
        r#"[materials.shell]
k_s = 1.0e4
xi = 0.025
k_core = 1.0e3
radius = 0.9
nodes = 32
cell_mass = 1.0
[[bodies]]
kind = "packing"
name = "cells"
material = "shell"
min = [0.0, 0.0]
max = [{width}, {tall}]
count = {cells}
radius = 0.9
spread = 0.1111111
nodes = 32
seed = {seed}
placement = "drop"
gap = 0.0
half_thickness = 0.05
core = "undrained""#
    )
}

/// The realistic benchmark scene of `softdem bench --scene deposit`: `cells` shells of 32 nodes,
/// radii uniform in [0.8, 1.0], placed by sequential geometric deposition (drop and roll) in a
/// box about 1.8 √cells wide; friction μ = 0.3 (k_t = k_n = 10⁴), an undrained core
/// K_Ω = 10³, no gravity, dt = 5·10⁻⁵, local damping 0.3; the cells touch (no clearance), and
/// the top wall, 0.1 above the deposit's top nodes (a gap of 0.05 between the shells), moves
/// down at 0.5: it touches the top cells after about 2,000 steps. `wall_segment`: the box walls' segment length; `None` draws
/// each side as one segment (what a user writes for a box), `Some(0.0)` subdivides them at the
/// cells' mean segment length (the box's default).
pub fn deposit_bench(cells: usize, wall_segment: Option<f64>) -> Scene {
    let width = (1.8 * (cells as f64).sqrt()).max(4.0);
    let text = |box_body: &str| {
        format!(
            r#"
name = "bench_deposit"
[simulation]
dt = 5.0e-5
gravity = [0.0, 0.0]
local_damping = 0.3
[contact]
k_n = 1.0e4
k_t = 1.0e4
mu = 0.3
{bed}
{box_body}
"#,
            bed = packed_bed(width, cells, 5)
        )
    };
    let build = |box_body: &str| {
        crate::scenario::Scenario::from_text(
            &text(box_body),
            "<deposit bench>",
            std::path::Path::new("."),
            "bench",
            &[],
        )
        .and_then(|s| s.build())
        .unwrap_or_else(|e| panic!("the deposit bench scene is valid: {e}"))
    };
    // The deposit alone first, for its height; then the same deposit (same seed) in its box.
    let top = build("").scene.init.iter().map(|s| s.pos()[1]).fold(0.0f64, f64::max);
    let segment = match wall_segment {
        None => format!("segment = {}", 10.0 * width + 10.0 * top),
        Some(s) if s > 0.0 => format!("segment = {s}"),
        Some(_) => String::new(),
    };
    let built = build(&format!(
        "[[bodies]]\nkind = \"box\"\nname = \"box\"\nmin = [0.0, 0.0]\nmax = [{width}, {}]\n{segment}\n",
        top + 0.1
    ));
    let wall = built.geometry.groups["box.top"][0];
    let mut sc = built.scene;
    sc.impose_velocity(&NodeSet::Body(wall), Some(0.0), Some(-0.5));
    sc.set_initial_velocity(&NodeSet::Body(wall), [0.0, -0.5]);
    sc
}

/// Modal bodies of the coupled bench: disk radius, rectangle [length, thickness].
const CB_DISK_R: f64 = 1.5;
const CB_RECT: [f64; 2] = [3.6, 0.8];
/// Clearance of a modal body above its highest SPD support at the start.
const CB_GAP: f64 = 0.01;
/// Clearance of the outer disks' level sets from the side walls' inner faces at the start (their
/// nearest surface nodes, which straddle the axis point, are 1.8·10⁻³ farther).
const CB_WALL_GAP: f64 = 0.002;
/// Untimed steps of `softdem bench --scene coupled` before the timed window. The bed starts as a
/// geometric deposit (cells touching, unloaded) and creeps under gravity: the soft shells change
/// shape at nearly constant core area and fill the voids, its top sinking at a few tenths per time
/// unit. The modal bodies, `CB_GAP` above it, fall faster (no local damping on them) and land on it
/// after about 1,000 steps (dt ≈ 1.8·10⁻⁴); after 1,500 every modal body is in contact with the
/// cells (tests/bench_coupled.rs) and rides on the creeping bed during the timed steps.
pub const COUPLED_BENCH_SETTLE: u64 = 1500;

/// The scene of `softdem bench --scene coupled`: SPD cells and modal bodies in one box.
///
/// `cells` shells of 32 nodes, radii uniform in [0.8, 1.0], half-thickness 0.05, an undrained
/// core K_Ω = 10³, placed by geometric deposition (drop and roll, no clearance) in a box
/// `width` = max(16, 1.8 √cells) wide; gravity −2 ŷ, friction μ = 0.3 (k_n = k_t = 10⁴, c_n = 5)
/// for every pair (SPD, modal, mixed), viscous damping 1 and local damping 0.5 on SPD nodes
/// (a quasi-static bed). On the bed rest four modal bodies with the compaction mode (K = 10³,
/// ζ = 0.5, rigid damping 1): from left to right a disk of radius 1.5 (64 nodes) at the left
/// wall, a 3.6 × 0.8 rectangle (nodes every 0.15), a disk, and a disk at the right wall; each
/// starts `CB_GAP` above its highest support (the SPD segments under it), the outer disks
/// `CB_WALL_GAP` from the side walls (near them, in their contact lists, but not pressed on
/// them: nothing pushes sideways in a level box). Four modal bodies because a long wall's
/// bounding circle spans much of the box and a wall lists at most `coupled::MAX_MB` = 4 modal
/// bodies (an error beyond). The lid is 2 above the highest modal body.
/// `wall_segment`: the box walls' segment length; `None` draws each side as one segment,
/// `Some(0.0)` at the cells' mean segment length (the box's default), `Some(L)` at L.
pub fn coupled_bench(cells: usize, wall_segment: Option<f64>) -> crate::coupled::stepper::CoupledScene {
    let width = (1.8 * (cells as f64).sqrt()).max(16.0);
    let head = format!(
        r#"
name = "bench_coupled"
[simulation]
dt_fraction = 0.2
gravity = [0.0, -2.0]
viscous_damping = 1.0
local_damping = 0.5
[contact]
k_n = 1.0e4
c_n = 5.0
k_t = 1.0e4
mu = 0.3
{bed}
"#,
        bed = packed_bed(width, cells, 11)
    );
    let parse = |text: &str| {
        crate::scenario::Scenario::from_text(text, "<coupled bench>", std::path::Path::new("."), "bench", &[])
            .unwrap_or_else(|e| panic!("the coupled bench scene is valid: {e}"))
    };
    // The bed alone first (same seed, same deposit): the modal bodies are placed on it.
    let bed = parse(&head)
        .build()
        .unwrap_or_else(|e| panic!("the coupled bench bed is valid: {e}"))
        .scene;
    let r = 0.05;
    // Points along every segment of the cells (8 per segment: the sag between them is < 10⁻³ of
    // CB_GAP), so a modal body clears the segments, not only the nodes.
    let mut pts = vec![];
    for b in &bed.bodies {
        let p = |k: u32| bed.init[(b.first + k % b.count) as usize].pos();
        for k in 0..b.count {
            let (a, c) = (p(k), p(k + 1));
            for s in 0..8 {
                let t = s as f64 / 8.0;
                pts.push([a[0] + t * (c[0] - a[0]), a[1] + t * (c[1] - a[1])]);
            }
        }
    }
    let clear = r + CB_GAP;
    // Lowest centre height of a disk at x = c that clears every point by `clear`.
    let disk_y = |c: f64| {
        let reach = CB_DISK_R + clear;
        pts.iter()
            .filter(|p| (p[0] - c).abs() < reach)
            .map(|p| p[1] + (reach * reach - (p[0] - c).powi(2)).sqrt())
            .fold(reach, f64::max)
    };
    // Lowest centre height of the rectangle at x = c (flat bottom, rounded clearance at its corners).
    let (ha, hb) = (0.5 * CB_RECT[0], 0.5 * CB_RECT[1]);
    let rect_y = |c: f64| {
        pts.iter()
            .filter(|p| (p[0] - c).abs() < ha + clear)
            .map(|p| {
                let dx = ((p[0] - c).abs() - ha).max(0.0);
                p[1] + (clear * clear - dx * dx).sqrt() + hb
            })
            .fold(clear + hb, f64::max)
    };
    // Left to right: disk at the left wall, rectangle, disk, disk at the right wall.
    let d = 2.0 * CB_DISK_R;
    let space = (width - 2.0 * CB_WALL_GAP - 3.0 * d - CB_RECT[0]) / 3.0;
    let x0 = CB_WALL_GAP + CB_DISK_R;
    let x1 = CB_WALL_GAP + d + space + ha;
    let x2 = CB_WALL_GAP + d + 2.0 * space + CB_RECT[0] + CB_DISK_R;
    let x3 = width - CB_WALL_GAP - CB_DISK_R;
    let centres = [[x0, disk_y(x0)], [x1, rect_y(x1)], [x2, disk_y(x2)], [x3, disk_y(x3)]];
    let top = centres[0][1].max(centres[2][1]).max(centres[3][1]) + CB_DISK_R;
    let top = top.max(centres[1][1] + hb) + 2.0;
    let segment = match wall_segment {
        None => format!("segment = {}", 10.0 * (width + top)),
        Some(s) if s > 0.0 => format!("segment = {s}"),
        Some(_) => String::new(),
    };
    let mode = |radius: f64| {
        format!(
            "[[modal.bodies.modes]]\nshape = \"compaction\"\nradius = {radius}\nstiffness = \"value\"\nk = 1000.0\ndamping_ratio = 0.5\n"
        )
    };
    let mut text = format!(
        "{head}\n[[bodies]]\nkind = \"box\"\nname = \"box\"\nmin = [0.0, 0.0]\nmax = [{width}, {top}]\n{segment}\n\
         [modal]\nrebuild_every = 100\nskin = 0.3\n"
    );
    for (i, c) in centres.iter().enumerate() {
        let shape = if i == 1 {
            format!(
                "shape = \"rectangle\"\nsize = [{}, {}]\nnode_spacing = 0.15\n",
                CB_RECT[0], CB_RECT[1]
            )
        } else {
            format!("shape = \"disk\"\nradius = {CB_DISK_R}\nnodes = 64\n")
        };
        text += &format!(
            "[[modal.bodies]]\nname = \"m{i}\"\n{shape}grid_spacing = 0.1\ndensity = 0.3\ncenter = [{}, {}]\nrigid_damping = 1.0\n{}",
            c[0],
            c[1],
            mode(if i == 1 { ha } else { CB_DISK_R })
        );
    }
    parse(&text)
        .build_coupled()
        .unwrap_or_else(|e| panic!("the coupled bench scene is valid: {e}"))
        .scene
}

/// Sizes of a coupled bench scene, as `softdem bench --scene coupled` prints them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoupledBenchSize {
    /// Free SPD cells and their nodes.
    pub cells: usize,
    pub spd_nodes: usize,
    pub modal_bodies: usize,
    pub modal_nodes: usize,
    /// Segments of the frozen SPD bodies (the box's four walls).
    pub wall_segments: usize,
}

impl CoupledBenchSize {
    pub fn of(cs: &crate::coupled::stepper::CoupledScene) -> CoupledBenchSize {
        let sc = &cs.spd;
        let free = sc.bodies.iter().filter(|b| b.flags & BODY_FROZEN == 0);
        let walls = sc.bodies.iter().filter(|b| b.flags & BODY_FROZEN != 0);
        CoupledBenchSize {
            cells: free.clone().count(),
            spd_nodes: free.map(|b| b.count as usize).sum(),
            modal_bodies: cs.modal.bodies.len(),
            modal_nodes: cs.modal.bodies.iter().map(|b| b.nodes.len()).sum(),
            wall_segments: walls
                .map(|b| b.count as usize - usize::from(b.flags & BODY_CLOSED == 0))
                .sum(),
        }
    }
}
