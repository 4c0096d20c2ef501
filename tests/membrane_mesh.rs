//! The membrane's topology (Fig. 1): the cylinder generator (closed rings, outward patches,
//! Euler characteristic 0 of an open tube, six edges at every interior vertex, one hinge per
//! interior edge, enclosed volume), and the mesh file (OBJ subset): a written cylinder reads back
//! identical, and malformed lines are reported with file and line.

use softdem::membrane::MembraneMesh;

#[test]
fn cylinder_topology_orientation_and_volume() {
    let (r, s) = (0.025, 4e-3);
    let m = MembraneMesh::cylinder([0.0; 3], r, 0.03, s);
    let n = (2.0 * std::f64::consts::PI * r / s).round() as usize;
    let rings = m.vertices.len() / n;
    assert_eq!(m.vertices.len(), n * rings);
    let (v, e, f) = (
        m.vertices.len() as i64,
        m.edges().len() as i64,
        m.triangles.len() as i64,
    );
    assert_eq!(v - e + f, 0, "an open tube has Euler characteristic 0");
    // Interior edges (all but the rims' n + n) each have one hinge.
    assert_eq!(m.hinges().len() as i64, e - 2 * n as i64);
    let mut degree = vec![0usize; m.vertices.len()];
    for [a, b] in m.edges() {
        degree[a as usize] += 1;
        degree[b as usize] += 1;
    }
    assert!(
        degree[n..degree.len() - n].iter().all(|&d| d == 6),
        "interior vertices have 6 edges"
    );
    for t in &m.triangles {
        let [a, b, c] = t.map(|i| m.vertices[i as usize]);
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let nrm = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2]];
        let cx = (a[0] + b[0] + c[0]) / 3.0;
        let cy = (a[1] + b[1] + c[1]) / 3.0;
        assert!(nrm[0] * cx + nrm[1] * cy > 0.0, "patch {t:?} faces inward");
    }
    let vol = MembraneMesh::volume_about_z(&m.vertices, &m.triangles, [0.0, 0.0]);
    let cyl = std::f64::consts::PI * r * r * 0.03;
    assert!((vol / cyl - 1.0).abs() < 0.01, "volume {vol} vs {cyl}");
}

#[test]
fn mesh_file_round_trip_and_errors() {
    let m = MembraneMesh::cylinder([0.001, -0.002, 0.0], 0.01, 0.012, 3e-3);
    let mut text = String::from("# membrane\n");
    for v in &m.vertices {
        text += &format!("v {} {} {}\n", v[0], v[1], v[2]);
    }
    for t in &m.triangles {
        text += &format!("f {} {}/1 {}//2\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    let dir = std::env::temp_dir().join(format!("softdem_membrane_mesh_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cyl.obj");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(MembraneMesh::from_file(&path).unwrap(), m);
    let err = |t: &str| format!("{:#}", MembraneMesh::parse(t, "m.obj").unwrap_err());
    assert!(err("v 0 0 0\nv 1 0 0\nf 1 2\n").contains("m.obj:3: a face needs 3 vertices"));
    assert!(err("v 0 0 0\nf 1 2 3\n").contains("m.obj:2: face index 2"));
    assert!(err("v 0 0 x\n").contains("m.obj:1: vertex coordinates"));
    assert!(err("vt 0 0\n").contains("m.obj:1: unknown record 'vt'"));
    assert!(err("v 0 0 0\n").contains("m.obj: no faces"));
    std::fs::remove_dir_all(&dir).ok();
}
