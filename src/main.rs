//! `softdem` command line: `run`, `check`, `info`, `compare`, `sweep`, `bench`, `validate`.

use clap::{Parser, Subcommand};
use softdem::backend::BackendKind;
use softdem::bench_measure::{loglog_slope, process_cpu_seconds};
use softdem::coupled::stepper::{CoupledBackend, CoupledRun};
use softdem::engine::spd::create;
use softdem::model::BODY_CLOSED;
use softdem::run::session::{self, RunRequest};
use softdem::run::Driver;
use softdem::scenario::Scenario;
use softdem::scenes;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "softdem",
    version,
    about = "Soft Particle Dynamics (2D core-shell particles) on the GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lists the GPU adapters found and the one chosen (WGPU_BACKEND / WGPU_ADAPTER_NAME select it).
    Info,
    /// Runs a scenario file (default: the embedded compaction demo) and writes its outputs.
    Run {
        /// Scenario file (TOML, see docs/scenarios.md); omitted: the embedded default.
        scenario: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "gpu")]
        backend: BackendKind,
        /// Output directory (default out/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Stop at this step (absolute: a resumed run stops at the same step as a fresh one).
        #[arg(long)]
        steps: Option<u64>,
        /// Continue the run in DIR from its checkpoint.bin (the scenario is DIR/scenario.toml).
        #[arg(long, value_name = "DIR", conflicts_with_all = ["scenario", "out"])]
        resume: Option<PathBuf>,
        /// No progress bar or summary lines.
        #[arg(long)]
        quiet: bool,
    },
    /// Validates a scenario and prints derived parameters, time steps, sizes and GPU memory.
    Check {
        scenario: PathBuf,
        #[arg(long, value_enum, default_value = "gpu")]
        backend: BackendKind,
    },
    /// Runs a scenario on both backends and prints the largest deviation per quantity.
    Compare {
        /// Scenario file; omitted: the embedded default.
        scenario: Option<PathBuf>,
        #[arg(long, default_value_t = 2000)]
        steps: u64,
    },
    /// Runs a parameter sweep (cartesian product over scenario keys), or writes a Slurm job array.
    Sweep {
        sweep: PathBuf,
        /// Write the Slurm job-array script and member list instead of running.
        #[arg(long)]
        slurm: bool,
        /// Run only member K (what each Slurm task does).
        #[arg(long, value_name = "K")]
        member: Option<usize>,
        /// Only gather every member's series.csv into sweep.csv.
        #[arg(long)]
        collect: bool,
        /// Backend (overrides the sweep file's).
        #[arg(long, value_enum)]
        backend: Option<BackendKind>,
    },
    /// Steps benchmark scenes of 32-node cells and prints node-steps/s as CSV, then the log-log
    /// slope of the cost per step: `compaction`, a dense hexagonal packing compressed by a wall
    /// (`scenes::compaction_bench`) at several sizes, and `deposit`, a polydisperse geometric
    /// deposit with friction and an undrained core in a box of one-segment walls whose top
    /// compresses it (`scenes::deposit_bench`, 400 cells); `coupled`, SPD cells and modal bodies
    /// in a box (`scenes::coupled_bench`, its own CSV), and the other scenes of --scene.
    Bench {
        #[arg(long, value_enum, default_value = "gpu")]
        backend: BackendKind,
        /// Node counts to run (cells = nodes / 32, rounded); ignored when --cells is given
        /// (default: 1e3,1e4,1e5,1e6 for `compaction`, 400 cells for `deposit`).
        #[arg(long, value_delimiter = ',')]
        nodes: Vec<f64>,
        /// Cell counts to run (instead of --nodes; `coupled`: default 300).
        #[arg(long, value_delimiter = ',')]
        cells: Vec<usize>,
        /// Steps per size; by default each size gets about --node-steps node-steps (≥ 5 steps),
        /// the `deposit` scene 10,000 steps, the `coupled` scene 1,000.
        #[arg(long)]
        steps: Option<u32>,
        /// Work per size when --steps is not given.
        #[arg(long, default_value_t = 2e7)]
        node_steps: f64,
        /// Scenes to run, in order: `compaction`, `deposit` (the realistic scene), `fall` (the older
        /// packing falling under gravity), `spheres` (3D Hertz–Mindlin spheres, its own CSV:
        /// `spheres::bench_run`), `beads` (bonded-bead spheres of 10⁴–1.4×10⁵ beads), `triaxial` (the
        /// membrane triaxial cell of issue 25, case 1, patches and particles; CPU), `coupled`
        /// (SPD cells and four modal bodies in a box under gravity, `scenes::coupled_bench`,
        /// default 300 cells, 1,000 steps after 1,500 untimed settling steps; its own CSV:
        /// cells, SPD nodes, modal bodies, modal surface nodes, wall segments, steps/s and
        /// node-steps/s of the SPD cells' plus the modal surface nodes).
        #[arg(long, value_delimiter = ',', default_value = "compaction,deposit")]
        scene: Vec<String>,
        /// `deposit`, `coupled`: segment length of the box walls; 0 subdivides them at the
        /// cells' mean segment length (the box's default); default: one segment per side.
        #[arg(long)]
        wall_segment: Option<f64>,
        /// The report for a lent GPU (src/gpu/report.rs): environment, floating-point probe,
        /// dispatch cost, the compaction bench at 500 cells and 10^5, 10^6, 4×10^6 nodes with
        /// read-back outside the timing window, determinism hashes, PASS/FAIL per target.
        #[arg(long)]
        gpu_report: bool,
        /// Cells of the --gpu-report sizes (default 500,3125,31250,125000).
        #[arg(long, value_delimiter = ',')]
        report_cells: Vec<usize>,
        /// Lattice sides n of the --gpu-report sphere sizes, n³ spheres (default 22,47,100).
        #[arg(long, value_delimiter = ',')]
        report_sphere_sides: Vec<usize>,
        /// `spheres`: sphere counts to run (n³ lattices, n = round(∛count); default 1e3,1e4,1e5,1e6).
        #[arg(long, value_delimiter = ',')]
        spheres: Vec<f64>,
        /// `spheres`: largest size run on the CPU backend.
        #[arg(long, default_value_t = 1e6)]
        max_spheres_cpu: f64,
        /// `spheres`: largest size run on the GPU backend.
        #[arg(long, default_value_t = 1e6)]
        max_spheres_gpu: f64,
        /// `spheres`: `lattice` (n³ lattice, cell-coherent order) or `random` (random dense
        /// polydisperse packing in random order, spheres::bench_scene::random_dense).
        #[arg(long, default_value = "lattice", value_parser = ["lattice", "random"])]
        sphere_packing: String,
        /// `spheres`, GPU backend: steps recorded per submission.
        #[arg(long, default_value_t = 32)]
        sphere_batch: u32,
        /// `spheres`: work per size when --steps is not given.
        #[arg(long, default_value_t = 2e7)]
        sphere_steps: f64,
        /// Seconds of timed stepping per --gpu-report size.
        #[arg(long, default_value_t = 2.0)]
        window: f64,
    },
    /// Runs the validation cases and writes validation.csv (with a `kind` column) and a report.
    /// Exits 0 when every `asserted` row (the model's exact references) passes; `reference` rows
    /// (the paper's approximate formulas) are reported and never fail the run.
    Validate {
        #[arg(long, value_enum, default_value = "gpu")]
        backend: BackendKind,
        /// Report directory.
        #[arg(long, default_value = "out/validation")]
        out: PathBuf,
        /// Only these families of cases (comma-separated; default all).
        #[arg(long, value_enum, value_delimiter = ',')]
        only: Vec<softdem::validation::Family>,
    },
}

fn main() {
    let result = match Cli::parse().command {
        Command::Info => softdem::gpu::info::print_info(),
        Command::Run {
            scenario,
            backend,
            out,
            steps,
            resume,
            quiet,
        } => {
            let req = RunRequest {
                out,
                steps,
                resume,
                quiet,
                ..RunRequest::new(scenario, backend)
            };
            session::run(&req).map(|_| ())
        }
        Command::Check { scenario, backend } => check(&scenario, backend),
        Command::Compare { scenario, steps } => compare(scenario.as_deref(), steps),
        Command::Sweep {
            sweep,
            slurm,
            member,
            collect,
            backend,
        } => softdem::sweep::command(&sweep, slurm, member, collect, backend),
        Command::Bench {
            gpu_report: true,
            report_cells,
            report_sphere_sides,
            window,
            ..
        } => {
            let cells = if report_cells.is_empty() {
                softdem::gpu::report::REPORT_CELLS.to_vec()
            } else {
                report_cells
            };
            let sides = if report_sphere_sides.is_empty() {
                softdem::gpu::report::REPORT_SPHERE_SIDES.to_vec()
            } else {
                report_sphere_sides
            };
            match softdem::gpu::report::gpu_report(&mut std::io::stdout(), &cells, &sides, window) {
                Ok((_, _, true)) => Ok(()),
                Ok((_, _, false)) => Err(anyhow::anyhow!("gpu report: a target failed (see the FAIL lines)")),
                Err(e) => Err(e),
            }
        }
        Command::Bench {
            backend,
            nodes,
            cells,
            steps,
            node_steps,
            scene,
            wall_segment,
            spheres,
            max_spheres_cpu,
            max_spheres_gpu,
            sphere_steps,
            sphere_batch,
            sphere_packing,
            ..
        } => {
            if scene
                .iter()
                .any(|s| s != "spheres" && s != "triaxial" && s != "coupled")
            {
                println!(
                    "scene,backend,adapter,cells,nodes_per_cell,nodes,steps,seconds,node_steps_per_s,bytes_gpu,entries_per_node"
                );
            }
            scene.iter().try_for_each(|name| {
                if name == "spheres" {
                    let gpu = backend == BackendKind::Gpu;
                    return softdem::spheres::bench_run::run(&softdem::spheres::bench_run::SphereBench {
                        gpu,
                        spheres: if spheres.is_empty() {
                            vec![1e3, 1e4, 1e5, 1e6]
                        } else {
                            spheres.clone()
                        },
                        max_spheres: if gpu { max_spheres_gpu } else { max_spheres_cpu },
                        steps,
                        sphere_steps,
                        batch: sphere_batch,
                        random: sphere_packing == "random",
                    });
                }
                if name == "triaxial" {
                    // Membrane triaxial cell, case 1 of Table 3 (issue 25): patches and particles.
                    let gpu = backend == BackendKind::Gpu;
                    return softdem::membrane::bench::bench(gpu, steps.unwrap_or(500) as usize);
                }
                if name == "beads" {
                    // Bonded-bead spheres (issue 24): n = 13.4, 28.8, 32 lattice spacings per radius.
                    return softdem::beads::bench::run(backend, &[13.4, 28.8, 32.0], steps.unwrap_or(200));
                }
                if name == "coupled" {
                    // SPD cells and modal bodies in a box (its own CSV: `bench_coupled`).
                    let cells = if cells.is_empty() { vec![300] } else { cells.clone() };
                    return bench_coupled(backend, &cells, steps, wall_segment);
                }
                let cells = if !cells.is_empty() {
                    cells.clone()
                } else if !nodes.is_empty() {
                    nodes.iter().map(|n| ((n / 32.0).round() as usize).max(1)).collect()
                } else if name == "deposit" {
                    vec![400]
                } else {
                    vec![31, 313, 3125, 31250]
                };
                bench(backend, &cells, steps, node_steps, name, wall_segment)
            })
        }
        Command::Validate { backend, out, only } => match softdem::validation::run_all(backend, &out, &only) {
            Ok(true) => Ok(()),
            Ok(false) => Err(anyhow::anyhow!("validation failed: see {}", out.display())),
            Err(e) => Err(e),
        },
    };
    if let Err(e) = result {
        // One clear message: a scenario error is already "FILE:LINE:COL: key `K`: message".
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn load(path: Option<&Path>) -> anyhow::Result<Scenario> {
    Ok(match path {
        Some(p) => Scenario::load(p)?,
        None => Scenario::default_scenario(),
    })
}

fn check(path: &Path, kind: BackendKind) -> anyhow::Result<()> {
    let sc = Scenario::load(path)?;
    if sc.is_spheres() {
        return softdem::run::spheres::check(&sc);
    }
    if sc.is_modal_only() {
        return softdem::run::modal::check(&sc);
    }
    if sc.is_mixed() {
        return softdem::run::coupled::check(&sc, kind);
    }
    let gpu = match kind {
        BackendKind::Gpu => match softdem::gpu::context::GpuContext::new() {
            Ok(ctx) => Some(std::sync::Arc::new(ctx)),
            Err(e) => {
                println!("no GPU adapter ({e:#}): GPU limits not checked, memory estimated");
                None
            }
        },
        BackendKind::Cpu => None,
    };
    if let Some(ctx) = &gpu {
        sc.check_limits(&ctx.limits)?;
    }
    let built = sc.build()?;
    let scene = &built.scene;
    println!("scenario {} ({}): OK", sc.name, sc.origin);
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    if let Some(u) = &sc.file.units {
        println!("units: {u}");
    }
    for (_, m) in sc.materials.values() {
        print!("{}", m.describe());
    }
    let cells = scene
        .bodies
        .iter()
        .filter(|b| b.flags & softdem::model::BODY_FROZEN == 0)
        .count();
    println!(
        "bodies: {} ({cells} free, {} walls), nodes: {}",
        scene.bodies.len(),
        built.geometry.walls.len(),
        scene.nodes.len()
    );
    let (dt, dtc) = (scene.dt(), scene.critical_dt());
    println!(
        "time step: dt = {dt:.6e}, critical dt = sqrt(m_min/k_max) = {dtc:.6e} (m_min = {:.4e}, k_max = {:.4e}), dt/dt_c = {:.3}",
        scene.m_min(),
        scene.k_max(),
        dt / dtc
    );
    let p = scene.sim_params();
    println!("neighbour list: skin = {:.4e}, cut-off = {:.4e}", p.skin, p.cutoff);
    // Initial contacts and list size from the CPU twin (one force pass).
    let mut cpu = softdem::cpu::CpuBackend::new(scene)?;
    let c = softdem::Backend::read_contacts(&mut cpu)?;
    println!(
        "initial state: {} neighbour entries, {} contacts",
        c.entries.len(),
        c.active_count()
    );
    let estimate = softdem::gpu::stepper::estimated_bytes(scene, c.entries.len());
    match &gpu {
        Some(ctx) => {
            let be = softdem::gpu::stepper::GpuBackend::new(ctx.clone(), scene)?;
            println!(
                "GPU memory: {:.2} MiB on {} (limit per binding {:.0} MiB)",
                softdem::Backend::device_bytes(&be) as f64 / 1048576.0,
                ctx.adapter.get_info().name,
                ctx.limits.max_storage_buffer_binding_size as f64 / 1048576.0
            );
        }
        None => println!("GPU memory: about {:.2} MiB (estimate)", estimate as f64 / 1048576.0),
    }
    println!("stages:");
    for (i, st) in built.stages.iter().enumerate() {
        let s = &st.stop;
        let mut stops = vec![];
        for (k, v) in [
            ("steps", s.steps.map(|x| x as f64)),
            ("time", s.time),
            ("ke_below", s.ke_below),
            ("strain", s.strain),
            ("stress", s.stress),
            ("displacement", s.displacement),
            ("tolerance", s.tolerance),
            ("max_steps", s.max_steps.map(|x| x as f64)),
        ] {
            if let Some(v) = v {
                stops.push(format!("{k} = {v}"));
            }
        }
        println!(
            "  {i}: {} ({}) until {}",
            st.name,
            st.kind,
            if stops.is_empty() { "-".into() } else { stops.join(", ") }
        );
    }
    Ok(())
}

fn compare(path: Option<&Path>, steps: u64) -> anyhow::Result<()> {
    let sc = load(path)?;
    let mut runs = vec![];
    let mut spheres = vec![];
    let mut beads = vec![];
    for kind in [BackendKind::Cpu, BackendKind::Gpu] {
        let made = session::make_backend(kind, &sc)?;
        let name = made.kind.name();
        let mut d = Driver::new(made.built, made.kind)?;
        let mut sink = softdem::output::progress::Progress::silent();
        d.run(Some(steps), &mut [], &mut sink)?;
        let (nodes, _bodies, _c, m) = d.sample()?;
        let modal = (d.backend.modal_states()?, d.backend.modal_wall_forces()?);
        spheres.push(d.backend.spheres()?);
        beads.push(d.backend.beads()?);
        runs.push((name, nodes, m, d.backend.steps_done(), modal));
    }
    let (a, b) = (&runs[0], &runs[1]);
    if let (Some(x), Some(y)) = (&spheres[0], &spheres[1]) {
        println!("{} vs {} after {} steps of {}:", a.0, b.0, a.3, sc.name);
        println!("quantity,cpu,gpu,abs_deviation,rel_deviation");
        let mut rows = softdem::run::spheres::compare_rows(x, y);
        if let (Some(p), Some(q)) = (&beads[0], &beads[1]) {
            rows.extend(softdem::output::beads::compare_rows(p, q));
        }
        for (q, u, v) in rows {
            if q.starts_with("max ") {
                println!("{q},,,{v:.3e},");
            } else {
                println!(
                    "{q},{u:.9e},{v:.9e},{:.3e},{:.3e}",
                    (u - v).abs(),
                    (u - v).abs() / u.abs().max(v.abs()).max(1e-300)
                );
            }
        }
        return Ok(());
    }
    if a.1.is_empty() {
        // Modal bodies alone: their states and the walls.
        println!("{} vs {} after {} steps of {}:", a.0, b.0, a.3, sc.name);
        println!("quantity,cpu,gpu,abs_deviation,rel_deviation");
        modal_rows(&a.4, &b.4);
        return Ok(());
    }
    let mut dev = [0.0f64; 3];
    for (x, y) in a.1.iter().zip(&b.1) {
        let (p, q) = (x.pos(), y.pos());
        dev[0] = dev[0].max((p[0] - q[0]).hypot(p[1] - q[1]));
        dev[1] = dev[1].max(((x.vel[0] - y.vel[0]) as f64).hypot((x.vel[1] - y.vel[1]) as f64));
        dev[2] = dev[2].max(((x.force[0] - y.force[0]) as f64).hypot((x.force[1] - y.force[1]) as f64));
    }
    println!("{} vs {} after {} steps of {}:", a.0, b.0, a.3, sc.name);
    println!("quantity,cpu,gpu,abs_deviation,rel_deviation");
    let row = |q: &str, x: f64, y: f64| {
        println!(
            "{q},{x:.9e},{y:.9e},{:.3e},{:.3e}",
            (x - y).abs(),
            (x - y).abs() / x.abs().max(y.abs()).max(1e-300)
        );
    };
    println!("max |dx| over nodes,,,{:.3e},", dev[0]);
    println!("max |dv| over nodes,,,{:.3e},", dev[1]);
    println!("max |df| over nodes,,,{:.3e},", dev[2]);
    let (ea, eb) = (&a.2.energies, &b.2.energies);
    row("e_stretch", ea.stretch, eb.stretch);
    row("e_bending", ea.bending, eb.bending);
    row("e_core", ea.core, eb.core);
    row("e_contact", ea.contact, eb.contact);
    row("e_kinetic", ea.kinetic, eb.kinetic);
    row("stress", a.2.stress_yy, b.2.stress_yy);
    row("void_ratio", a.2.void_ratio, b.2.void_ratio);
    row("contacts", a.2.contacts as f64, b.2.contacts as f64);
    for (k, ((pa, fa), (pb, fb))) in a.2.walls.iter().zip(&b.2.walls).enumerate() {
        row(&format!("wall{k}_y"), pa[1], pb[1]);
        row(&format!("wall{k}_fy"), fa[1], fb[1]);
    }
    modal_rows(&a.4, &b.4);
    Ok(())
}

/// `softdem compare` rows of the modal bodies (modal-only and coupled runs): per body X, Y, Θ and
/// the amplitudes ε, per modal wall the force on it.
fn modal_rows(a: &ModalObs, b: &ModalObs) {
    let row = |q: &str, x: f64, y: f64| {
        println!(
            "{q},{x:.9e},{y:.9e},{:.3e},{:.3e}",
            (x - y).abs(),
            (x - y).abs() / x.abs().max(y.abs()).max(1e-300)
        );
    };
    for (i, (p, q)) in a.0.iter().zip(&b.0).enumerate() {
        let x = |s: &softdem::modal::layout::ModalState, k: usize| s.x_hi[k] as f64 + s.x_lo[k] as f64;
        row(&format!("modal{i}_x"), x(p, 0), x(q, 0));
        row(&format!("modal{i}_y"), x(p, 1), x(q, 1));
        row(&format!("modal{i}_theta"), p.theta as f64, q.theta as f64);
        for k in 0..4 {
            if p.eps[k] != 0.0 || q.eps[k] != 0.0 {
                row(&format!("modal{i}_eps{k}"), p.eps[k] as f64, q.eps[k] as f64);
            }
        }
    }
    for (k, (p, q)) in a.1.iter().zip(&b.1).enumerate() {
        row(&format!("modal_wall{k}_fx"), p[0] as f64, q[0] as f64);
        row(&format!("modal_wall{k}_fy"), p[1] as f64, q[1] as f64);
    }
}

/// `softdem bench --scene coupled`: the scene of `scenes::coupled_bench` at each cell count,
/// `scenes::COUPLED_BENCH_SETTLE` untimed steps, then `steps` timed ones (default 1,000). The
/// timed window holds the coupled driver's own list rebuilds (every `[modal] rebuild_every`
/// steps, with their read-backs, as in a run) and ends with a read-back that waits for the GPU.
fn bench_coupled(
    kind: BackendKind,
    cells: &[usize],
    steps: Option<u32>,
    wall_segment: Option<f64>,
) -> anyhow::Result<()> {
    println!(
        "scene,backend,adapter,cells,spd_nodes,modal_bodies,modal_nodes,wall_segments,steps,seconds,steps_per_s,node_steps_per_s"
    );
    if let Some(l) = wall_segment {
        anyhow::ensure!(
            l >= 0.0,
            "bench: --wall-segment {l}: a segment length ≥ 0 (0: the box's default)"
        );
    }
    let ctx = match kind {
        BackendKind::Gpu => Some(std::sync::Arc::new(softdem::gpu::context::GpuContext::new()?)),
        BackendKind::Cpu => None,
    };
    let steps = steps.unwrap_or(1000) as u64;
    for &n in cells {
        let cb = scenes::coupled_bench(n, wall_segment);
        let z = scenes::CoupledBenchSize::of(&cb);
        eprintln!(
            "# coupled, {} cells: {} SPD nodes, {} modal bodies ({} surface nodes), {} wall segments, dt {:.3e}; \
             settling {} steps",
            z.cells,
            z.spd_nodes,
            z.modal_bodies,
            z.modal_nodes,
            z.wall_segments,
            cb.dt(),
            scenes::COUPLED_BENCH_SETTLE
        );
        let (adapter, s, cpu) = match &ctx {
            None => time_coupled(softdem::coupled::stepper::cpu(&cb)?, steps)?,
            Some(ctx) => time_coupled(softdem::coupled::stepper::gpu(ctx.clone(), &cb)?, steps)?,
        };
        if let Some(c) = cpu {
            eprintln!("# {} cells: {s:.3} s wall, {c:.2} s CPU (all threads)", z.cells);
        }
        let nodes = (z.spd_nodes + z.modal_nodes) as f64;
        println!(
            "coupled,{kind:?},{},{},{},{},{},{},{steps},{s:.4},{:.4e},{:.4e}",
            adapter.replace(',', ";"),
            z.cells,
            z.spd_nodes,
            z.modal_bodies,
            z.modal_nodes,
            z.wall_segments,
            steps as f64 / s,
            nodes * steps as f64 / s
        );
        std::io::stdout().flush()?;
    }
    Ok(())
}

/// Settles a coupled run, then times `steps` steps: (adapter, wall seconds, process CPU seconds).
fn time_coupled<B: CoupledBackend>(mut run: CoupledRun<B>, steps: u64) -> anyhow::Result<(String, f64, Option<f64>)> {
    run.run(scenes::COUPLED_BENCH_SETTLE)?;
    let _ = run.read_nodes()?;
    let (t, cpu0) = (Instant::now(), process_cpu_seconds());
    run.run(steps)?;
    let _ = run.read_nodes()?; // waits for the GPU
    let s = t.elapsed().as_secs_f64();
    let cpu = cpu0.zip(process_cpu_seconds()).map(|(a, b)| b - a);
    Ok((run.backend.spd().name(), s, cpu))
}

/// Modal states and modal wall forces of a compared run.
type ModalObs = (Vec<softdem::modal::layout::ModalState>, Vec<[f32; 2]>);

fn bench(
    kind: BackendKind,
    cells: &[usize],
    steps: Option<u32>,
    node_steps: f64,
    scene: &str,
    wall_segment: Option<f64>,
) -> anyhow::Result<()> {
    let name = scene;
    // (nodes, seconds per step) of each size, for the log-log slope.
    let mut cost = vec![];
    let mut cpu_cost = vec![];
    for &n in cells {
        let scene = match scene {
            "compaction" => scenes::compaction_bench(n).0,
            "deposit" => scenes::deposit_bench(n, wall_segment),
            "fall" => {
                let cols = (n as f64).sqrt().ceil() as usize;
                let spec = scenes::PackingSpec {
                    columns: cols,
                    rows: n.div_ceil(cols),
                    radius: 1.0,
                    spread: 0.15,
                    nodes_per_cell: 32,
                    seed: 1,
                };
                scenes::packing_in_box(spec, 1.0).0
            }
            other => anyhow::bail!(
                "bench: unknown --scene `{other}` (compaction, deposit, fall, coupled, spheres, beads or triaxial)"
            ),
        };
        let cells_built = scene.bodies.iter().filter(|b| b.flags & BODY_CLOSED != 0).count();
        let nodes = scene.nodes.len();
        // The deposit runs 10,000 steps by default: the top wall reaches the cells after ~2,000.
        let default_steps = match name {
            "deposit" => 10_000,
            _ => ((node_steps / nodes as f64).round() as u32).max(5),
        };
        let steps = steps.unwrap_or(default_steps);
        let mut be = create(kind, &scene)?;
        be.step(10)?; // warm-up (pipelines, first list build)
        let _ = be.read_nodes()?;
        let (t, cpu0) = (Instant::now(), process_cpu_seconds());
        be.step(steps)?;
        let _ = be.read_nodes()?; // waits for the GPU
        let s = t.elapsed().as_secs_f64();
        // CPU time of the process (all threads) beside the wall time: on a shared machine the
        // former shows the work done, the latter what the CSV reports.
        if let (Some(a), Some(b)) = (cpu0, process_cpu_seconds()) {
            eprintln!("# {nodes} nodes: {s:.3} s wall, {:.2} s CPU (all threads)", b - a);
            cpu_cost.push((nodes as f64, (b - a) / steps as f64));
        }
        cost.push((nodes as f64, s / steps as f64));
        // Neighbour-list entries per node at the end (after the timing).
        let entries = be.read_contacts()?.entries.len() as f64 / nodes as f64;
        println!(
            "{name},{:?},{},{cells_built},32,{nodes},{steps},{s:.4},{:.4e},{},{entries:.3}",
            kind,
            be.name().replace(',', ";"),
            nodes as f64 * steps as f64 / s,
            be.device_bytes()
        );
        std::io::stdout().flush()?;
    }
    for (what, c) in [("seconds", &cost), ("CPU seconds", &cpu_cost)] {
        if c.len() >= 2 && c.len() == cells.len() {
            eprintln!(
                "# {name}: log-log slope of {what} per step against nodes ({:.0} to {:.0} nodes): {:.3}",
                c[0].0,
                c[c.len() - 1].0,
                loglog_slope(c)
            );
        }
    }
    Ok(())
}
