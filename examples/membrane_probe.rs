//! Experiment aid (issue 25, the hydrostatic check's 12 N): the first attempt's packing (95
//! grains stacked in columns, membrane R = 12.55 mm pinned at the bottom rim) with knobs (env:
//! MU_M membrane friction, MU_G grain friction, TOP = 0 free / 1 pinned / 2 z only (the first
//! attempt), BOT = 1 pinned / 2 z only, STEPS) and the axial force balance ring by ring:
//! `cargo run --release --example membrane_probe` (TOP=2 gives the 125 kPa bottom platen).
use softdem::membrane::cases::{table2_membrane, TABLE2_GRAIN};
use softdem::membrane::triaxial::grain_virial;
use softdem::membrane::{MembraneContact, MembraneMesh, MembraneSpheres};
use softdem::spheres::pair_law::SphereMaterial;
use softdem::spheres::{PlaneWall, SphereParams, SphereState};

fn env(k: &str, d: f64) -> f64 {
    std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d)
}

fn main() {
    let sigma_c = 1e5;
    let steps = env("STEPS", 50000.0) as usize;
    let mu_m = env("MU_M", 1.2);
    let mu_g = env("MU_G", 0.25);
    let top_mode = env("TOP", 1.0) as u32; // 0 free, 1 follow platen (x,y fixed), 2 z only
    let bot_mode = env("BOT", 1.0) as u32; // 1 pin, 2 z only
    let r = 2.5e-3;
    let layers = 5usize;
    let height = 2.0 * r * layers as f64;
    let radius = env("RM", 12.55e-3);
    let grain = SphereMaterial {
        young: 1e9,
        friction: mu_g,
        ..TABLE2_GRAIN
    };
    let platen = SphereMaterial {
        young: f64::INFINITY,
        ..grain
    };
    let mut grains = Vec::new();
    for k in 0..layers {
        let z = r + 2.0 * r * k as f64;
        grains.push(SphereState::solid([0.0, 0.0, z], r, grain.density, 0));
        for (n, rr) in [(6usize, 2.0 * r), (12, 4.0 * r)] {
            for i in 0..n {
                let phi = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
                grains.push(SphereState::solid(
                    [rr * phi.cos(), rr * phi.sin(), z],
                    r,
                    grain.density,
                    0,
                ));
            }
        }
    }
    let ng = grains.len();
    let area = std::f64::consts::PI * radius * radius;
    let walls = vec![
        PlaneWall::new([0.0; 3], [0.0, 0.0, 1.0], [0.0; 3], 1),
        PlaneWall::servo([0.0, 0.0, height], [0.0, 0.0, -1.0], area, sigma_c, 2e-7, 0.05, 1),
    ];
    let mesh = MembraneMesh::cylinder([0.0; 3], radius, height, 4e-3);
    let mut spec = table2_membrane(mesh, MembraneContact::Patches, 0.15e-3);
    spec.sigma = sigma_c;
    spec.friction = mu_m;
    let params = SphereParams {
        dt: 2e-6,
        skin: 0.5e-3,
        global_damping: 1000.0,
        ..Default::default()
    };
    let mut sys = MembraneSpheres::new(params, grains, &[grain, platen], walls, &spec);
    let nv = sys.membrane.params.n_vertices;
    let per_ring = (2.0 * std::f64::consts::PI * radius / 4e-3).round() as u32;
    let bottom: Vec<u32> = (0..per_ring).collect();
    let top: Vec<u32> = (nv - per_ring..nv).collect();
    if bot_mode == 1 {
        sys.pin(&bottom, [0.0; 3]);
    }
    let x0: Vec<[f64; 3]> = sys.vertex_positions();
    for k in 0..steps {
        sys.step();
        let wt = &sys.spheres.walls[1];
        let zt = softdem::spheres::precision::df3_value(wt.point_hi, wt.point_lo)[2];
        let mut fix = |vs: &[u32], z: f64, keep: bool| {
            for &v in vs {
                let s = sys.vertex_sphere(v);
                let x = if keep {
                    x0[v as usize]
                } else {
                    sys.spheres.states[s].position()
                };
                let (hi, lo) = softdem::spheres::precision::df3_split([x[0], x[1], z]);
                let st = &mut sys.spheres.states[s];
                st.pos_hi = hi;
                st.pos_lo = lo;
                if keep {
                    st.vel = [0.0; 3];
                } else {
                    st.vel[2] = 0.0;
                }
            }
        };
        if top_mode == 1 {
            fix(&top, zt, true);
        }
        if top_mode == 2 {
            fix(&top, zt, false);
        }
        if bot_mode == 2 {
            fix(&bottom, 0.0, false);
        }
        if k % 10000 == 0 || k + 1 == steps {
            let w = &sys.spheres.walls;
            println!(
                "step {k}: bottom {:.2} kPa top {:.2} kPa",
                -(w[0].force[2] as f64) / area / 1e3,
                w[1].force[2] as f64 / area / 1e3
            );
        }
    }
    let volume = sys.enclosed_volume([0.0, 0.0]);
    let virial = grain_virial(&sys, ng);
    let w = &sys.spheres.walls;
    let m = &sys.membrane;
    let mut fz_grains = 0.0;
    for s in 0..ng {
        for c in m.list.start[s] as usize..m.list.start[s + 1] as usize {
            fz_grains += m.patch_out[c].force[2] as f64;
        }
    }
    println!(
        "F_bottom {:.3} N F_top {:.3} N; membrane on grains z {:.3} N; mean stress {:.2} kPa; V {:.4e}",
        -(w[0].force[2] as f64),
        w[1].force[2] as f64,
        fz_grains,
        -virial / (3.0 * volume) / 1e3,
        volume
    );
    // Per ring: pressure z, contact z on the vertices, total force z, mean radius.
    let rings = nv / per_ring;
    let mut pz = vec![0.0f64; rings as usize];
    for (k, p) in m.patches.iter().enumerate() {
        for v in p.v {
            pz[(v / per_ring) as usize] += m.pressure_out[k][2] as f64;
        }
    }
    let mut cz = vec![0.0f64; rings as usize];
    for s in 0..ng {
        for c in m.list.start[s] as usize..m.list.start[s + 1] as usize {
            let o = &m.patch_out[c];
            if o.active == 0 {
                continue;
            }
            for (k, v) in m.patches[m.list.patch[c] as usize].v.iter().enumerate() {
                cz[(v / per_ring) as usize] -= (o.force[2] * o.weights[k]) as f64;
            }
        }
    }
    let xs = sys.vertex_positions();
    for j in 0..rings {
        let (mut ft, mut rr, mut zz) = (0.0, 0.0, 0.0);
        for v in j * per_ring..(j + 1) * per_ring {
            ft += sys.spheres.forces[sys.vertex_sphere(v)].force[2] as f64;
            let x = xs[v as usize];
            rr += x[0].hypot(x[1]) / per_ring as f64;
            zz += x[2] / per_ring as f64;
        }
        println!(
            "ring {j}: z {:.3} mm R {:.3} mm pressure_z {:+.3} contact_z {:+.3} total_z {:+.3}",
            zz * 1e3,
            rr * 1e3,
            pz[j as usize],
            cz[j as usize],
            ft
        );
    }
}
