//! Validation 6's h/r sweep (issue 24; the paper's Figs 13b–14b) at CI size: disordered spheres of
//! R = 6 l (about 900 beads) compressed to δ/2R = 5 % with shells of h/r = 0.05, 0.2, 0.5, 1, for a
//! hard core and soft shell (k 200 / 20 N/m) and a soft core and hard shell (2 / 200 N/m): the
//! HC-SS force falls and the SC-HS force rises with h/r, and for HC-SS the change from h/r = 0.05
//! to 0.2 exceeds the change from 0.2 to 1 (the paper's statement). The cut-off bound above
//! h/r = 0.5 is printed only: at this size a shell of h/r = 0.5 is 3 beads thick (the change is
//! 33 %); `softdem validate` asserts it at the paper's bead count (R = 11.3 l: 9 %). At the
//! paper's bead count: the SC-HS cut-off holds at small deformation only (asserted), the soft-core
//! sphere (k_core = 0.2 N/m, h/r = 0.2) against Reissner's thin hard shell (`beads::shell`,
//! asserted), the soft-shell sphere (k_shell = 20 N/m, h/r = 0.2) against the layered-contact
//! continuum (`beads::layered_contact`, asserted), and the shell-bond rule and deformation study
//! of docs/beads.md (ignored, prints its table).

use softdem::validation::beads_core_shell::{force_at_5_percent, hr_sweep, sweep_checks, H_OVER_R};

#[test]
fn shell_thickness_sweep_orders_the_forces() {
    let hard = force_at_5_percent(None, 6.0, 200.0, 200.0, 0.2).unwrap();
    let (hcss, schs) = hr_sweep(None, 6.0, hard).unwrap();
    for (i, h) in H_OVER_R.iter().enumerate() {
        println!(
            "h/r = {h}: HC-SS {:.4}, SC-HS {:.4} of the hard sphere ({hard:.4e} N)",
            hcss[i] / hard,
            schs[i] / hard
        );
    }
    for c in sweep_checks(&hcss, &schs, hard, false) {
        println!(
            "{:<44} {:>10.4} ≤/≥ {} ± {} pass {} {:?}",
            c.name, c.measured, c.expected, c.tolerance, c.pass, c.kind
        );
        assert!(!c.fails(), "{c:?}");
    }
}

/// δ/2R at which `core_shell_forces` samples the force.
const MARKS: [f64; 5] = [0.01, 0.02, 0.03, 0.04, 0.05];

/// Forces at `MARKS` of the paper-size disordered sphere (R = 11.3 l, ~6,000 beads, seed 24,
/// plates at 2 m/s, b = 5 × 10⁻⁸ s · k as `validation::beads_core_shell`) with the bonds of the
/// shell (h/r = `h`) given `k_shell` by `rule`: "midpoint" (the generator's: the bond's middle
/// beyond R − h), "both" (both beads beyond), "either" (one bead beyond); None: homogeneous
/// k_core. Each force is the mean of the 5 samples (of 100) around the mark. Also returns the
/// number of shell bonds.
fn core_shell_forces(k_core: f64, k_shell: f64, h: f64, rule: Option<&str>) -> (Vec<f64>, usize) {
    let (s, r, n_shell) = core_shell_series(k_core, k_shell, h, rule, 100);
    let at = |m: f64| {
        let k = s.iter().position(|x| x.delta >= m * 2.0 * r).unwrap_or(s.len() - 1);
        let w = &s[k.saturating_sub(2)..(k + 3).min(s.len())];
        w.iter().map(|x| x.force()).sum::<f64>() / w.len() as f64
    };
    (MARKS.iter().map(|&m| at(m)).collect(), n_shell)
}

/// The run of `core_shell_forces` sampled `samples` times: the samples, the sphere's radius and
/// the number of shell bonds.
fn core_shell_series(
    k_core: f64,
    k_shell: f64,
    h: f64,
    rule: Option<&str>,
    samples: usize,
) -> (Vec<softdem::beads::scenes::CompressionSample>, f64, usize) {
    use softdem::beads::scenes::{compression_scene, run_compression, BeadRun};
    use softdem::validation::beads_core_shell::{core_shell_spec, CORE_SHELL_L, CORE_SHELL_TAU};
    let (l, tau) = (CORE_SHELL_L, CORE_SHELL_TAU);
    let radius = 11.3 * l;
    let spec = core_shell_spec(11.3, k_core, None);
    let (mut scene, body) = compression_scene(&spec);
    let pos: Vec<[f64; 3]> = scene.states.iter().map(|s| s.position()).collect();
    let inner = radius * (1.0 - h);
    let out = |p: [f64; 3]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() > inner;
    let mut n_shell = 0;
    if let Some(rule) = rule {
        for b in &mut scene.forces.bonds.bonds {
            let (a, c) = (pos[b.i as usize], pos[b.j as usize]);
            let mid = [0, 1, 2].map(|d| 0.5 * (a[d] + c[d]));
            let shell = match rule {
                "midpoint" => out(mid),
                "both" => out(a) && out(c),
                "either" => out(a) || out(c),
                _ => unreachable!(),
            };
            if shell {
                b.k = k_shell as f32;
                b.b = (tau * k_shell) as f32;
                n_shell += 1;
            }
        }
    }
    let r = body.outer_radius;
    let steps = (spec.stop_time(r) / spec.dt).ceil() as usize;
    let mut bead_run = BeadRun::cpu(scene);
    let s = run_compression(&mut bead_run, None, steps, (steps / samples).max(1)).unwrap();
    (s, r, n_shell)
}

/// Validation 6's cut-off for SC-HS at the paper's bead count (R = 11.3 l): a soft core
/// (k = 2 N/m) of radius R/2 under a hard shell (h/r = 0.5) leaves the force within 5 % of the
/// hard sphere's at δ/2R = 1 % (seen 1.9 %) and within 15 % at 2 % (seen 10 %): the paper's
/// "barely changes above h/r = 0.5" holds at small deformation. At 5 % it does not: the change
/// |F(1) − F(0.5)|/F(0.5) exceeds 15 % (seen 22 %), the contact zone (a ≈ 0.22 R, its stress
/// field a few a deep) reaching the core at depth R/2. Two runs of ~6,000 beads.
#[test]
fn soft_core_cut_off_holds_at_small_deformation_only() {
    let (hard, _) = core_shell_forces(200.0, 200.0, 1.0, None);
    let (schs, _) = core_shell_forces(2.0, 200.0, 0.5, Some("midpoint"));
    let change: Vec<f64> = hard.iter().zip(&schs).map(|(h, s)| (h - s).abs() / s).collect();
    println!("SC-HS h/r = 0.5: |F(1) − F(0.5)|/F(0.5) at δ/2R = {MARKS:?}: {change:.3?}");
    assert!(change[0] <= 0.05, "{change:?}");
    assert!(change[1] <= 0.15, "{change:?}");
    assert!(change[4] > 0.15, "{change:?}");
}

/// Validation 6's SC-HS statement against the continuum (docs/beads.md, "Core–shell"): at the
/// paper's bead count (R = 11.3 l) a hard shell (k_shell = 200 N/m, h/r = 0.2) over a soft core
/// (k_core = 0.2 N/m, the paper's text: k_core/k_shell = 10⁻³, a nearly void core) keeps the
/// force of a thin hard spherical shell, Reissner's (R1) over eq 1 (`beads::shell`, (R2)):
/// 0.67 of the hard sphere's at δ/2R = 1 % and 0.30 at 5 %. Asserted: the network's ratio within
/// 30 % of (R2) at both marks (seen 0.487 and 0.234: −27 % and −22 %; thin-shell theory at
/// h/R = 0.2 is itself good to ~10 % — the mid-surface radius alone moves it 11 % — and the
/// network shell is 2.3 spacings thick, (R2) ∝ h², so a shell thinner by 0.3 l gives −25 %),
/// and it falls with δ as (R2) does: ratio(1 %)/ratio(5 %) within 15 % of (R2)'s sqrt 5 = 2.24
/// (seen 2.08; the shell is linear there, w ≤ h/4). Two runs of ~6,000 beads (CPU, seed 24).
#[test]
fn soft_core_sphere_is_a_thin_hard_shell() {
    use softdem::beads::shell::thin_shell_force_ratio;
    let (hard, _) = core_shell_forces(200.0, 200.0, 1.0, None);
    let (schs, n) = core_shell_forces(0.2, 200.0, 0.2, Some("midpoint"));
    let ratio: Vec<f64> = schs.iter().zip(&hard).map(|(s, h)| s / h).collect();
    let shell: Vec<f64> = MARKS.iter().map(|&m| thin_shell_force_ratio(0.2, m, 0.25)).collect();
    println!("SC-HS k_core = 0.2, h/r = 0.2 ({n} shell bonds), δ/2R = {MARKS:?}");
    println!("  network F/F_hard: {ratio:.3?}");
    println!("  thin shell (R2):  {shell:.3?}");
    for i in [0, 4] {
        let off = ratio[i] / shell[i] - 1.0;
        println!("  at {}: network / thin shell − 1 = {off:+.3}", MARKS[i]);
        assert!(off.abs() <= 0.3, "δ/2R = {}: {} vs {}", MARKS[i], ratio[i], shell[i]);
    }
    assert!(ratio[0] > ratio[4], "{ratio:?}");
    let fall = ratio[0] / ratio[4];
    let fall_shell = shell[0] / shell[4];
    println!("  ratio(1 %)/ratio(5 %): network {fall:.3}, thin shell {fall_shell:.3}");
    assert!((fall / fall_shell - 1.0).abs() <= 0.15, "{fall} vs {fall_shell}");
}

/// Validation 6's HC-SS statement against the continuum (docs/beads.md, "Core–shell", *HC-SS's
/// "11 %"*): at the paper's bead count (R = 11.3 l) a soft shell (k_shell = 20 N/m, h/r = 0.2,
/// bond-middle rule) on a hard core (200 N/m), against a soft layer (E ratio 0.1, ν = 0.25,
/// thickness 0.2 R) bonded on a hard half-space under a rigid sphere of radius R at w = δ/2
/// (`beads::layered_contact`, Burmister's compliance and Sneddon's method): 0.155 of the hard
/// sphere at δ/2R = 1 % and 0.247 at 5 %. The network's F/F_hard is taken per sample while the
/// plates move (400 samples; the soft shell rings, 0.173–0.201 at 5 % with a period of ≈ 0.26 % in
/// δ/2R, and the dashpots' part leaves at the stop) and averaged over δ/2R ∈ [0.75, 1.25] % and
/// [4.5, 5) %. Asserted: within 30 % of the continuum at both (seen 0.152 and 0.184: −2 %, −25 %),
/// and higher at 5 % than at 1 % as the continuum's (the contact grows past the shell). Why 30 %:
/// the flat layered half-space stands for a curved shell on a finite core (a/R = 0.11–0.27
/// here); where the exact answer is known, h = R (every bond soft, ratio 0.1), that approximation
/// is +8 % at 1 % and +20 % at 5 %; and the network shell is 2.3 spacings thick, ±0.3 l of it
/// moving the continuum by +10 / −8 % at 5 %. The paper's 0.11 is the continuum's value at
/// δ/2R ≈ 0.07 % (`layered_contact` unit tests), 55 % below it at 5 %: printed, a finding against
/// the paper's reading, not against the network. Two runs of ~6,000 beads (CPU, seed 24).
#[test]
fn soft_shell_sphere_against_the_layered_contact() {
    use softdem::beads::layered_contact::soft_shell_force_ratio;
    use softdem::validation::beads_core_shell::LAYERED_BOUND;
    let (hard, r, _) = core_shell_series(200.0, 200.0, 1.0, None, 400);
    let (hcss, _, n) = core_shell_series(200.0, 20.0, 0.2, Some("midpoint"), 400);
    assert_eq!(hard.len(), hcss.len());
    // Per-sample ratios while loading (the last sample is the stop), over δ/2R in [lo, hi].
    let window = |lo: f64, hi: f64| -> (f64, f64, f64) {
        let v: Vec<f64> = hard[..hard.len() - 1]
            .iter()
            .zip(&hcss)
            .filter(|(a, _)| (lo..=hi).contains(&(a.delta / (2.0 * r))))
            .map(|(a, b)| b.force() / a.force())
            .collect();
        assert!(v.len() >= 10, "{lo}..{hi}: {} samples", v.len());
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        (
            mean,
            v.iter().cloned().fold(f64::MAX, f64::min),
            v.iter().cloned().fold(0.0, f64::max),
        )
    };
    println!("HC-SS k_shell = 20, h/r = 0.2 ({n} shell bonds), F/F_hard over δ/2R ± 0.25 % (5 %: 4.5–5 %):");
    let mut network = Vec::new();
    for &m in &MARKS {
        let (mean, lo, hi) = window(m - 0.0025, (m + 0.0025).min(0.05));
        let continuum = soft_shell_force_ratio(0.2, m, 0.1, 0.25);
        println!(
            "  {m}: network {mean:.3} (ring {lo:.3}–{hi:.3}), layered contact {continuum:.3}, network / continuum − 1 = {:+.3}",
            mean / continuum - 1.0
        );
        network.push((mean, continuum));
    }
    println!(
        "  the paper's 0.11 / continuum at 5 % − 1 = {:+.3}",
        0.11 / network[4].1 - 1.0
    );
    for i in [0, 4] {
        let (net, cont) = network[i];
        assert!(
            (net / cont - 1.0).abs() <= LAYERED_BOUND,
            "δ/2R = {}: {net} vs {cont}",
            MARKS[i]
        );
    }
    assert!(network[4].0 > network[0].0, "{network:?}");
}

/// Validation 6's open points (docs/beads.md, "Core–shell"): the paper's bead count (R = 11.3 l),
/// three readings of "a bond in the shell" (its middle beyond R − h, the generator's; both
/// beads; either bead) and the force ratio at δ/2R = 1–5 %, for SC-HS (k_core = 2, k_shell =
/// 200 N/m) and HC-SS (200 / 20 N/m) at h/r = 0.05, 0.2, 0.5, against the homogeneous hard sphere.
/// Prints the table (19 runs of ~6,000 beads, ~3 min). `cargo test --release --test
/// beads_core_shell -- --ignored --nocapture`.
#[test]
#[ignore = "validation 6's study: 19 runs of 6,000 beads (several minutes)"]
fn shell_rule_and_depth_study() {
    let (hard, _) = core_shell_forces(200.0, 200.0, 1.0, None);
    println!("hard sphere, F at δ/2R = {MARKS:?}: {hard:?} N");
    for (name, kc, ks) in [("SC-HS", 2.0, 200.0), ("HC-SS", 200.0, 20.0)] {
        for rule in ["midpoint", "both", "either"] {
            for h in [0.05, 0.2, 0.5] {
                let (f, n) = core_shell_forces(kc, ks, h, Some(rule));
                let ratio: Vec<String> = f.iter().zip(&hard).map(|(a, b)| format!("{:.3}", a / b)).collect();
                println!(
                    "{name} {rule:<8} h/r = {h:<4} shell bonds {n:>6}: F/F_hard at 1..5 % = {}",
                    ratio.join(" ")
                );
            }
        }
    }
}
