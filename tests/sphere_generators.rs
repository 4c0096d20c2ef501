//! 3D sphere generators (src/spheres/generators.rs): lattices have their nearest-neighbour
//! distance, coordination and number density; random packings have no overlap and stay inside
//! their region; CSV files are read with errors that name the line and the column.

use softdem::spheres::generators::*;

fn min_gap_and_overlaps(s: &[Sphere]) -> (f64, usize) {
    // All pairs: the oracle of this test only (the generator itself uses a grid).
    let (mut min_d, mut overlaps) = (f64::INFINITY, 0);
    for i in 0..s.len() {
        for j in i + 1..s.len() {
            let d = (0..3)
                .map(|k| (s[i].center[k] - s[j].center[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            min_d = min_d.min(d);
            overlaps += usize::from(d < s[i].radius + s[j].radius - 1e-12);
        }
    }
    (min_d, overlaps)
}

fn neighbours_within(s: &[Sphere], i: usize, r: f64) -> usize {
    (0..s.len())
        .filter(|&j| {
            j != i
                && (0..3)
                    .map(|k| (s[i].center[k] - s[j].center[k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
                    <= r
        })
        .count()
}

#[test]
fn lattices_have_their_spacing_coordination_and_density() {
    let region = Region::Box {
        min: [0.0; 3],
        max: [8.0; 3],
    };
    // (kind, coordination, lattice periods along x, y, z, sites per period cell)
    let (h, v) = (3f64.sqrt() / 2.0, (2.0 / 3.0f64).sqrt());
    for (kind, z, period, sites) in [
        (Lattice::SimpleCubic, 6, [1.0, 1.0, 1.0], 1),
        (Lattice::Fcc, 12, [2f64.sqrt(); 3], 4),
        (Lattice::Hcp, 12, [1.0, 2.0 * h, 2.0 * v], 4),
    ] {
        let s = lattice(kind, 0.5, 1.0, &region);
        assert!(s.iter().all(|p| region.contains(p.center, p.radius)), "{kind:?}");
        let (min_d, overlaps) = min_gap_and_overlaps(&s);
        assert!((min_d - 1.0).abs() < 1e-9 && overlaps == 0, "{kind:?}: nearest {min_d}");
        let interior: Vec<usize> = (0..s.len())
            .filter(|&i| s[i].center.iter().all(|&x| (2.5..=5.5).contains(&x)))
            .collect();
        assert!(!interior.is_empty());
        for &i in &interior {
            assert_eq!(
                neighbours_within(&s, i, 1.0 + 1e-9),
                z,
                "{kind:?} coordination at {:?}",
                s[i].center
            );
        }
        // Number density: a window of 3×3×3 periods from the lattice origin (0.5, 0.5, 0.5) holds
        // 27 period cells' sites exactly; both SC and the close packings then give their
        // density, 1/d³ and √2/d³.
        let inside = s
            .iter()
            .filter(|p| (0..3).all(|d| p.center[d] >= 0.5 - 1e-9 && p.center[d] < 0.5 - 1e-9 + 3.0 * period[d]))
            .count();
        assert_eq!(inside, 27 * sites, "{kind:?}");
        let density = sites as f64 / period.iter().product::<f64>();
        let expected = if kind == Lattice::SimpleCubic { 1.0 } else { 2f64.sqrt() };
        assert!((density - expected).abs() < 1e-12, "{kind:?}: {density}");
    }
}

#[test]
fn a_cubic_lattice_ball_has_the_ball_volume_in_sites() {
    // The bonded-bead paper's body: a ball cut from a simple cubic lattice (137,059 beads at
    // R ≈ 32 l). Sites inside a ball of radius R (sphere radius 0.5 l inside R + 0.5 l): ≈ 4/3 π R³.
    let big = 10.0;
    let region = Region::Ball {
        center: [0.0; 3],
        radius: big + 0.5,
    };
    let s = lattice(Lattice::SimpleCubic, 0.5, 1.0, &region);
    let expected = 4.0 / 3.0 * std::f64::consts::PI * big.powi(3);
    assert!(
        (s.len() as f64 / expected - 1.0).abs() < 0.02,
        "{} sites, {expected:.0} expected",
        s.len()
    );
    assert!(s.iter().all(|p| region.contains(p.center, p.radius)));
}

#[test]
fn random_packings_do_not_overlap_and_stay_inside() {
    for region in [
        Region::Box {
            min: [0.0; 3],
            max: [12.0, 12.0, 12.0],
        },
        Region::Cylinder {
            axis: [0.0, 0.0],
            radius: 6.0,
            z: [0.0, 14.0],
        },
    ] {
        let spec = RandomPacking {
            region,
            count: 400,
            r_min: 0.4,
            r_max: 0.6,
            seed: 7,
            attempts: 10_000,
        };
        let s = random_packing(&spec).unwrap();
        assert_eq!(s.len(), 400);
        assert!(s
            .iter()
            .all(|p| region.contains(p.center, p.radius) && (0.4..=0.6).contains(&p.radius)));
        assert_eq!(min_gap_and_overlaps(&s).1, 0, "{region:?}");
        let fraction = volume_fraction(&s, &region);
        assert!(fraction > 0.1 && fraction < 0.3, "{fraction}");
        assert_eq!(random_packing(&spec).unwrap(), s, "same seed, same packing");
        let other = random_packing(&RandomPacking { seed: 8, ..spec }).unwrap();
        assert_ne!(other, s);
    }
}

#[test]
fn an_impossible_random_packing_is_refused_with_what_was_reached() {
    // 300 unit spheres in a 10³ box would fill 1.26 of it.
    let spec = RandomPacking {
        region: Region::Box {
            min: [0.0; 3],
            max: [10.0; 3],
        },
        count: 300,
        r_min: 1.0,
        r_max: 1.0,
        seed: 1,
        attempts: 2_000,
    };
    let e = random_packing(&spec).unwrap_err();
    assert!(e.contains("of 300 spheres") && e.contains("volume fraction"), "{e}");
    let bad = RandomPacking { r_min: 0.0, ..spec };
    assert!(random_packing(&bad).unwrap_err().contains("r_min"));
}

#[test]
fn csv_spheres_are_read_with_located_errors() {
    let text = "# spheres\nid,r,x,y,z\n1,0.5,0,0,0\n2,0.25,1.5,0,0\n\n3,1e-1,0,2,-1\n";
    let s = parse_spheres_csv(text).unwrap();
    assert_eq!(s.len(), 3);
    assert_eq!(
        s[1],
        Sphere {
            center: [1.5, 0.0, 0.0],
            radius: 0.25
        }
    );
    assert_eq!(s[2].center, [0.0, 2.0, -1.0]);

    let e = parse_spheres_csv("x,y,r\n0,0,1\n").unwrap_err();
    assert!(e.starts_with("1: ") && e.contains("column `z`"), "{e}");
    let e = parse_spheres_csv("x,y,z,r\n0,0,0,1\n0,zero,0,1\n").unwrap_err();
    assert!(e.starts_with("3: column `y`: `zero`"), "{e}");
    let e = parse_spheres_csv("x,y,z,r\n0,0,0,-1\n").unwrap_err();
    assert!(e.starts_with("2: column `r`"), "{e}");
    let e = parse_spheres_csv("x,y,z,r\n0,0,0\n").unwrap_err();
    assert!(e.starts_with("2: 3 fields"), "{e}");

    let dir = std::env::temp_dir().join(format!("softdem-spheres-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    std::fs::write(&path, "x,y,z,r\n1,2,3,nan\n").unwrap();
    let e = read_spheres_csv(&path).unwrap_err();
    assert!(e.starts_with(&format!("{}:2: column `r`", path.display())), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
