//! `softdem` command line: `info`, `run`, `compare`, `bench`.

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use softdem::backend::{create, BackendKind};
use softdem::diagnostics;
use softdem::model::*;
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
    /// Runs the embedded default compaction demo: deposit under gravity, then the top wall moves down.
    Run {
        #[arg(long, value_enum, default_value = "gpu")]
        backend: BackendKind,
        /// Total steps (half deposit, half compaction).
        #[arg(long, default_value_t = 20_000)]
        steps: u32,
        /// Output directory.
        #[arg(long, default_value = "out/default")]
        out: PathBuf,
    },
    /// Runs the default demo on both backends and prints the largest deviation per quantity.
    Compare {
        #[arg(long, default_value_t = 2000)]
        steps: u32,
    },
    /// Steps a packing of 32-node cells at several sizes and prints node-steps/s as CSV.
    Bench {
        #[arg(long, value_enum, default_value = "gpu")]
        backend: BackendKind,
        /// Cell counts to run.
        #[arg(long, value_delimiter = ',', default_value = "32,320,3200")]
        cells: Vec<usize>,
        #[arg(long, default_value_t = 200)]
        steps: u32,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Info => softdem::gpu::context::print_info(),
        Command::Run { backend, steps, out } => run_demo(backend, steps, &out),
        Command::Compare { steps } => compare(steps),
        Command::Bench { backend, cells, steps } => bench(backend, &cells, steps),
    }
}

/// Writes `contents` to `path` atomically: a temporary file in the same directory, then rename.
fn write_atomic(path: &Path, contents: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, contents).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

fn run_demo(kind: BackendKind, steps: u32, out: &Path) -> anyhow::Result<()> {
    let (mut scene, walls) = scenes::default_demo();
    let mut be = create(kind, &scene)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    eprintln!(
        "softdem run: default demo, {} cells, {} nodes, backend {}",
        scene.bodies.len() - 4,
        scene.nodes.len(),
        be.name()
    );
    let dt = scene.dt() as f64;
    let outputs = 50u32;
    let chunk = (steps / outputs).max(1);
    let mut series =
        String::from("step,time,top_wall_y,top_wall_force_y,kinetic,stretch,bending,core,contact,contacts\n");
    let t0 = Instant::now();
    let mut done = 0u32;
    let mut compacting = false;
    while done < steps {
        if !compacting && done >= steps / 2 {
            // Compaction stage: the top wall moves down at a constant velocity.
            scene.impose_velocity(&NodeSet::Body(walls.top), Some(0.0), Some(-0.02));
            be.set_boundary_conditions(&scene.nodes)?;
            compacting = true;
        }
        let n = chunk.min(steps - done);
        be.step(n)?;
        done += n;
        let nodes = be.read_nodes()?;
        let bodies = be.read_bodies()?;
        let contacts = be.read_contacts()?;
        let e = diagnostics::energies(&scene, &nodes, &bodies, &contacts);
        anyhow::ensure!(e.total().is_finite(), "the state became NaN before step {done}");
        let top_y = diagnostics::centroid(&scene, &nodes, walls.top)[1];
        let f_top = diagnostics::body_force(&scene, &nodes, walls.top)[1];
        series += &format!(
            "{done},{:.6e},{top_y:.6},{f_top:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{:.6e},{}\n",
            done as f64 * dt,
            e.kinetic,
            e.stretch,
            e.bending,
            e.core,
            e.contact,
            contacts.active_count()
        );
        let rate = done as f64 / t0.elapsed().as_secs_f64();
        eprintln!(
            "step {done:>8}  t {:.3}  top wall y {top_y:.4}  F_top {f_top:.4e}  KE {:.3e}  {:.0} steps/s",
            done as f64 * dt,
            e.kinetic,
            rate
        );
    }
    write_atomic(&out.join("series.csv"), &series)?;
    let nodes = be.read_nodes()?;
    let mut fin = String::from("body,node,x,y,vx,vy,fx,fy\n");
    for (nd, s) in scene.nodes.iter().zip(&nodes) {
        let p = s.pos();
        fin += &format!(
            "{},{},{:.9},{:.9},{:.6e},{:.6e},{:.6e},{:.6e}\n",
            nd.body, nd.local, p[0], p[1], s.vel[0], s.vel[1], s.force[0], s.force[1]
        );
    }
    write_atomic(&out.join("final.csv"), &fin)?;
    eprintln!(
        "wrote {}/series.csv and final.csv in {:.1} s",
        out.display(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

fn compare(steps: u32) -> anyhow::Result<()> {
    let (scene, _) = scenes::default_demo();
    let mut cpu = create(BackendKind::Cpu, &scene)?;
    let mut gpu = create(BackendKind::Gpu, &scene)?;
    cpu.step(steps)?;
    gpu.step(steps)?;
    let (a, b) = (cpu.read_nodes()?, gpu.read_nodes()?);
    let r = scene.bodies[0].radius;
    let mut dev = [0.0f64; 3];
    for (x, y) in a.iter().zip(&b) {
        let (p, q) = (x.pos(), y.pos());
        dev[0] = dev[0].max(((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt());
        dev[1] = dev[1].max(((x.vel[0] - y.vel[0]) as f64).hypot((x.vel[1] - y.vel[1]) as f64));
        dev[2] = dev[2].max(((x.force[0] - y.force[0]) as f64).hypot((x.force[1] - y.force[1]) as f64));
    }
    println!(
        "{} vs {} after {steps} steps (shell half-thickness r = {r}):",
        cpu.name(),
        gpu.name()
    );
    println!(
        "max |Δx| = {:.3e}\nmax |Δv| = {:.3e}\nmax |Δf| = {:.3e}",
        dev[0], dev[1], dev[2]
    );
    Ok(())
}

fn bench(kind: BackendKind, cells: &[usize], steps: u32) -> anyhow::Result<()> {
    println!("backend,adapter,cells,nodes_per_cell,nodes,steps,seconds,node_steps_per_s,bytes_gpu");
    for &n in cells {
        let cols = (n as f64).sqrt().ceil() as usize;
        let rows = n.div_ceil(cols);
        let spec = scenes::PackingSpec {
            columns: cols,
            rows,
            radius: 1.0,
            spread: 0.15,
            nodes_per_cell: 32,
            seed: 1,
        };
        let (scene, _) = scenes::packing_in_box(spec, 1.0);
        let mut be = create(kind, &scene)?;
        be.step(10)?; // warm-up (pipelines, first list build)
        let _ = be.read_nodes()?;
        let t = Instant::now();
        be.step(steps)?;
        let _ = be.read_nodes()?; // waits for the GPU
        let s = t.elapsed().as_secs_f64();
        let nodes = scene.nodes.len();
        println!(
            "{:?},{},{},32,{nodes},{steps},{s:.4},{:.4e},{}",
            kind,
            be.name().replace(',', ";"),
            rows * cols,
            nodes as f64 * steps as f64 / s,
            be.device_bytes()
        );
        std::io::stdout().flush()?;
    }
    Ok(())
}
