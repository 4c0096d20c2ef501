//! `softdem check` and `softdem compare` for `[spheres]` scenarios (the run itself goes through
//! `session::run` like every kind).

use crate::scenario::Scenario;
use crate::spheres::backend::SphereSnapshot;
use crate::spheres::precision::df3_value;

/// Prints the resolved sphere scene (`softdem check`).
pub fn check(sc: &Scenario) -> anyhow::Result<()> {
    let (built, sb) = sc.build_sphere_run()?;
    println!("scenario {} ({}): OK (3D spheres)", sc.name, sc.origin);
    if let Some(d) = &sc.file.description {
        println!("  {d}");
    }
    for (name, r) in &sb.groups {
        let radii = sb.states[r.start as usize..r.end as usize]
            .iter()
            .map(|s| s.radius as f64);
        let (lo, hi) = radii.fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
        println!("particles \"{name}\": {} spheres, radius {lo:.4e} … {hi:.4e}", r.len());
    }
    for (i, name) in sb.material_names.iter().enumerate() {
        let law = sb.laws.get(i as u32, i as u32);
        println!(
            "material {i} \"{name}\": E* = {:.4e} with itself, μ = {}, MC β/γ = {}",
            law.hertz.e_star, law.mindlin.mu, law.mc.beta
        );
    }
    for (i, (w, name)) in sb.walls.iter().zip(&sb.wall_names).enumerate() {
        let p = df3_value(w.point_hi, w.point_lo);
        // An eq-6 wall's law is the same with every material: read it from its self pair.
        let law = sb.laws.get(w.material, w.material);
        let eq6 = if law.kind == crate::spheres::pair_law::LAW_PLANE_REPULSION {
            format!(", law eq 6 (F = S p², S = {:.4e})", law.linear.k_n)
        } else {
            String::new()
        };
        println!(
            "wall {i} \"{name}\": kind {}, point ({:.4e}, {:.4e}, {:.4e}), direction {:?}, velocity {:?}{eq6}",
            ["plane", "cylinder", "servo"].get(w.kind as usize).unwrap_or(&"?"),
            p[0],
            p[1],
            p[2],
            w.normal,
            w.velocity
        );
    }
    println!(
        "time step: dt = {:.6e} (Rayleigh time of the smallest sphere {:.6e}); skin {:.4e}",
        sb.params.dt, sb.rayleigh_dt, sb.params.skin
    );
    if let Some(b) = &sb.beads {
        for line in crate::output::beads::check_lines(b) {
            println!("{line}");
        }
    }
    for (i, st) in built.stages.iter().enumerate() {
        println!("stage {i}: {} ({})", st.name, st.kind);
    }
    Ok(())
}

/// Rows `quantity, a, b` comparing two read-backs of the same run (`softdem compare`): the
/// largest position, velocity and force deviations, wall forces, energies, contact counts.
pub fn compare_rows(a: &SphereSnapshot, b: &SphereSnapshot) -> Vec<(String, f64, f64)> {
    let mut dev = [0.0f64; 3];
    for (i, (p, q)) in a.states.iter().zip(&b.states).enumerate() {
        let (x, y) = (df3_value(p.pos_hi, p.pos_lo), df3_value(q.pos_hi, q.pos_lo));
        let d = |u: [f64; 3], v: [f64; 3]| (0..3).map(|k| (u[k] - v[k]).powi(2)).sum::<f64>().sqrt();
        dev[0] = dev[0].max(d(x, y));
        dev[1] = dev[1].max(d(p.vel.map(|x| x as f64), q.vel.map(|x| x as f64)));
        dev[2] = dev[2].max(d(
            a.forces[i].force.map(|x| x as f64),
            b.forces[i].force.map(|x| x as f64),
        ));
    }
    let mut rows = vec![
        ("max |dx| over spheres".to_string(), 0.0, dev[0]),
        ("max |dv| over spheres".to_string(), 0.0, dev[1]),
        ("max |df| over spheres".to_string(), 0.0, dev[2]),
    ];
    for (k, (p, q)) in a.walls.iter().zip(&b.walls).enumerate() {
        for (c, axis) in ["x", "y", "z"].iter().enumerate() {
            rows.push((format!("wall{k}_f{axis}"), p.force[c] as f64, q.force[c] as f64));
        }
    }
    rows.push(("e_contact".into(), a.contact_energy(), b.contact_energy()));
    rows.push(("contacts".into(), a.contacts.len() as f64, b.contacts.len() as f64));
    rows.push((
        "wall_contacts".into(),
        a.wall_contacts.len() as f64,
        b.wall_contacts.len() as f64,
    ));
    rows
}
