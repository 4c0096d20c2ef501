//! Runs the triaxial cell (issue 25): `membrane_triaxial hydro [MU_M] [HOLD_MS]` (the hydrostatic
//! check), `membrane_triaxial pack CASE` (the packing only), `membrane_triaxial run CASE STRAIN
//! [patches|particles|both]` (σ_d, ε_v vs ε as CSV on stdout), `membrane_triaxial diag STRAIN
//! NAME:CONTACT:V_P:HOLD_MS:SIGMA_FACTOR[:MU_MEMBRANE[:SPACING[:free]]] ...` (the probes of
//! `membrane::diagnose`; `free`: rims sliding freely, no rim stop). `SEED=N` in the environment
//! grows another packing (`run`, `pack`, `diag`; the row's seed is 25); `GRAIN_PLATENS=1` runs
//! `diag` with σ_p and the servo on the grains' platen force alone (before the caps' reactions);
//! `NO_VERTEX_SPIN=1` holds the membrane vertices' spin near 0 in `diag` (inertia × 1e9).
use softdem::membrane::hydrostatic::hydrostatic;
use softdem::membrane::triaxial::{grow_packing, triaxial_run, CellSpec};
use softdem::membrane::MembraneContact;

/// The packing's seed: `SEED` from the environment (another packing of the same cell), else the
/// row's.
fn packing_seed(row: u64) -> u64 {
    std::env::var("SEED")
        .ok()
        .map_or(row, |s| s.parse().expect("SEED: an integer"))
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |k: usize, d: &str| a.get(k).cloned().unwrap_or(d.into());
    let t = std::time::Instant::now();
    match arg(1, "hydro").as_str() {
        "hydro" => {
            let h = hydrostatic(1e5, arg(2, "1.2").parse().unwrap(), arg(3, "10").parse().unwrap());
            let p = &h.packing;
            println!(
                "packing: {} grains, λ {:.4}, h {:.3} mm, φ {:.4}, p {:.0} Pa; {} vertices; mean stress {:.1} Pa, platens {:.1} / {:.1} Pa, V {:.4e}, max speed {:.2e}, escaped {}; {:.1} s",
                h.n_grains, p.scale, p.height * 1e3, p.solid_fraction, p.mean_stress, h.n_vertices, h.mean_stress,
                h.platen_stress[0], h.platen_stress[1], h.volume, h.max_speed, h.escaped, t.elapsed().as_secs_f64()
            );
        }
        "plot" => {
            // CSV of `run` (membrane,eps,sigma_d,eps_v,...) → the two PNGs of docs/membrane.md.
            use softdem::plot::{line_plot, PlotSpec, Series, Style};
            let text = std::fs::read_to_string(arg(2, "triaxial.csv")).unwrap();
            let rows: Vec<Vec<String>> = text
                .lines()
                .skip(1)
                .map(|l| l.split(',').map(String::from).collect())
                .collect();
            for (col, file, y) in [
                (2usize, "membrane_triaxial_sigma_d.png", "σ_d (Pa)"),
                (3, "membrane_triaxial_volumetric.png", "ε_v"),
            ] {
                let series = ["patches", "particles"]
                    .iter()
                    .map(|m| Series {
                        name: if *m == "patches" {
                            "MSS_patch".into()
                        } else {
                            "MSS_particle".into()
                        },
                        points: rows
                            .iter()
                            .filter(|r| r[0] == *m)
                            .map(|r| (r[1].parse().unwrap(), r[col].parse().unwrap()))
                            .collect(),
                        style: Style::Line,
                    })
                    .collect();
                let spec = PlotSpec {
                    title: format!("Triaxial test, case 1 ({y})"),
                    x_label: "axial strain ε".into(),
                    y_label: y.into(),
                    series,
                };
                line_plot(&std::path::Path::new(&arg(3, "docs/img")).join(file), &spec).unwrap();
            }
        }
        "trace" => {
            // The hydrostatic cell, sampled every 5 ms of the hold: MU_M, E, DT from args.
            use softdem::membrane::triaxial::{servo_gain, TriaxialCell};
            let mu: f64 = arg(2, "1.2").parse().unwrap();
            let young: f64 = arg(3, "4.6e9").parse().unwrap();
            let dt: f64 = arg(4, "2e-6").parse().unwrap();
            let spec = CellSpec {
                radius: 12.5e-3,
                height: 25e-3,
                n_grains: 110,
                membrane_friction: mu,
                ..CellSpec::table3(1, young, dt)
            };
            let p = grow_packing(&spec, 5e-5 * dt / 2e-6, 5e3, 2000, 20_000);
            let mut cell = TriaxialCell::new(&spec, &p, MembraneContact::Patches, 4e-3, 0.15e-3);
            let ms = (1e-3 / dt).round() as usize;
            cell.confine(5 * ms, 0, servo_gain(&spec), 0.05);
            for k in 0..12 {
                cell.confine(0, 5 * ms, servo_gain(&spec), 0.05);
                let s = cell.sample();
                let n = cell.n_grains;
                let vmax = cell.sys.spheres.states[..n]
                    .iter()
                    .map(|s| (s.vel[0] as f64).hypot(s.vel[1] as f64).hypot(s.vel[2] as f64))
                    .fold(0.0, f64::max);
                // Where the fastest grain is, and whether the membrane left the cell.
                let (imax, _) = cell.sys.spheres.states[..n]
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (i, (s.vel[0] as f64).hypot(s.vel[1] as f64).hypot(s.vel[2] as f64)))
                    .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
                let xg = cell.sys.spheres.states[imax].position();
                let xs = cell.sys.vertex_positions();
                let outside = xs.iter().filter(|x| x[2] < -1e-6 || x[2] > s.height + 1e-6).count();
                let rr = |vs: &[u32]| {
                    vs.iter()
                        .map(|&v| xs[v as usize][0].hypot(xs[v as usize][1]))
                        .sum::<f64>()
                        / vs.len() as f64
                };
                let per = cell.bottom_rim.len() as u32;
                let ring1: Vec<u32> = (per..2 * per).collect();
                println!(
                    "   fastest grain r {:.2} mm z {:.2} mm; rims R {:.3} / {:.3} mm, ring 1 R {:.3} mm; vertices outside {}",
                    xg[0].hypot(xg[1]) * 1e3,
                    xg[2] * 1e3,
                    rr(&cell.bottom_rim) * 1e3,
                    rr(&cell.top_rim) * 1e3,
                    rr(&ring1) * 1e3,
                    outside
                );
                println!(
                    "t {:.0} ms: mean {:.1} platens {:.1} / {:.1} h {:.4} mm V {:.4e} vmax {:.2e} vtop {:.2e}",
                    (10 + 5 * k) as f64,
                    s.mean_stress,
                    s.platen_stress[0],
                    s.platen_stress[1],
                    s.height * 1e3,
                    s.volume,
                    vmax,
                    cell.sys.spheres.walls[1].velocity[2]
                );
            }
        }
        "diag" => {
            // Probes of `membrane::diagnose` (docs/membrane.md, "Why the curves differ at small
            // strain"): diag STRAIN then runs NAME:CONTACT:V_P:HOLD_MS:SIGMA_FACTOR[:MU_MEMBRANE[:SPACING]] (CSV on stdout).
            use softdem::membrane::diagnose::{csv_row, diagnose_run, DiagOptions, CSV_HEADER};
            let spec = CellSpec {
                seed: packing_seed(25),
                ..CellSpec::table3(1, 4.6e9, 2e-6)
            };
            let p = grow_packing(&spec, 5e-5, 5e3, 2000, 20_000);
            eprintln!(
                "packing: h {:.3} mm, {:.1} s",
                p.height * 1e3,
                t.elapsed().as_secs_f64()
            );
            let strain: f64 = arg(2, "0.005").parse().unwrap();
            println!("{CSV_HEADER}");
            for run in a.iter().skip(3) {
                let f: Vec<&str> = run.split(':').collect();
                let contact = if f[1] == "particles" {
                    MembraneContact::Particles
                } else {
                    MembraneContact::Patches
                };
                let spec = CellSpec {
                    membrane_friction: f.get(5).map_or(spec.membrane_friction, |m| m.parse().unwrap()),
                    ..spec.clone()
                };
                let o = DiagOptions {
                    v_p: f[2].parse().unwrap(),
                    hold_ms: f[3].parse().unwrap(),
                    membrane_sigma_factor: f[4].parse().unwrap(),
                    spacing: f.get(6).map_or(0.0, |x| x.parse().unwrap()),
                    free_rims: f.get(7) == Some(&"free"),
                    load_cell: std::env::var("GRAIN_PLATENS").is_err(),
                    vertex_inertia_factor: if std::env::var("NO_VERTEX_SPIN").is_ok() {
                        1e9
                    } else {
                        1.0
                    },
                    ..DiagOptions::row(strain)
                };
                let t1 = std::time::Instant::now();
                let (held, sheared) = diagnose_run(&spec, &p, contact, o);
                for q in &held {
                    println!("{}", csv_row(f[0], "hold", q));
                }
                for q in &sheared {
                    println!("{}", csv_row(f[0], "shear", q));
                }
                eprintln!("{}: {:.1} s", f[0], t1.elapsed().as_secs_f64());
            }
        }
        mode => {
            let case: u32 = arg(2, "1").parse().unwrap();
            let spec = CellSpec {
                seed: packing_seed(25),
                ..CellSpec::table3(case, 4.6e9, 2e-6)
            };
            let p = grow_packing(&spec, 5e-5, 5e3, 2000, 20_000);
            eprintln!(
                "packing: {} grains, λ {:.4}, h {:.3} mm, r {:.3}–{:.3} mm, φ {:.4}, p {:.0} Pa, {} steps, {:.1} s",
                p.grains.len(),
                p.scale,
                p.height * 1e3,
                p.r_min * 1e3,
                p.r_max * 1e3,
                p.solid_fraction,
                p.mean_stress,
                p.steps,
                t.elapsed().as_secs_f64()
            );
            if mode == "pack" {
                return;
            }
            let strain: f64 = arg(3, "0.03").parse().unwrap();
            let which = arg(4, "both");
            println!("membrane,eps,sigma_d,eps_v,sigma_bottom,sigma_top,area,volume,rim_area_bottom,rim_area_top,sigma_d_grains,cap_force_bottom,cap_force_top");
            for (name, c) in [
                ("patches", MembraneContact::Patches),
                ("particles", MembraneContact::Particles),
            ] {
                if which != "both" && which != name {
                    continue;
                }
                let r = triaxial_run(&spec, &p, c, strain);
                eprintln!(
                    "{name}: {} membrane particles, {} grains; confined σ_p {:.0} Pa (bottom {:.0}, top {:.0}), escaped {} → {}; confine {:.1} s, shear {} steps {:.1} s, {:.1} s per 20 ms",
                    r.membrane_particles,
                    r.grains,
                    r.confined.sigma_p,
                    r.confined.platen_stress[0],
                    r.confined.platen_stress[1],
                    r.confined.escaped,
                    r.curve.last().map_or(0, |s| s.escaped),
                    r.confine_seconds,
                    r.shear_steps,
                    r.shear_seconds,
                    r.seconds_per_20ms
                );
                for s in &r.curve {
                    println!(
                        "{name},{:.5},{:.1},{:.5},{:.1},{:.1},{:.4e},{:.4e},{:.5e},{:.5e},{:.1},{:.3},{:.3}",
                        s.axial_strain,
                        s.sigma_d,
                        s.volumetric_strain,
                        s.platen_stress[0],
                        s.platen_stress[1],
                        s.area,
                        s.volume,
                        s.rim_area[0],
                        s.rim_area[1],
                        0.5 * (s.grain_platen_stress[0] + s.grain_platen_stress[1]) - spec.sigma_c,
                        s.cap_membrane_force[0],
                        s.cap_membrane_force[1]
                    );
                }
            }
        }
    }
}
