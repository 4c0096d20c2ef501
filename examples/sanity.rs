use softdem::cpu::CpuBackend;
use softdem::model::*;
use softdem::Backend;
fn main() {
    let mut sc = Scene::default();
    let mat = sc.add_material(Material {
        k_s: 1000.0,
        f_s_yield: f32::INFINITY,
        c_s: 0.0,
        k_b: 1.0,
        m_b_yield: f32::INFINITY,
        c_b: 0.0,
        k_core: 0.0,
        depth: 1.0,
    });
    let n = 32;
    sc.add_ring(
        [100.0, 100.0],
        1.0,
        n,
        BodyOptions {
            material: mat,
            radius: 0.02,
            node_mass: 1.0,
            frozen: false,
            self_contact: true,
            core: Core::Drained { p0: 1.0 },
        },
    );
    sc.viscous_damping = 2.0;
    let mut be = CpuBackend::new(&sc).unwrap();
    be.step(6000).unwrap();
    let nodes = be.read_nodes().unwrap();
    let bs = be.read_bodies().unwrap();
    let a0 = sc.bodies[0].core_v0 as f64;
    let dv = (bs[0].area as f64 - a0) / a0;
    let l0 = sc.init[0].seg_rest as f64;
    let r = softdem::diagnostics::mean_radius(&sc, &nodes, 0);
    let l = l0 * r / 1.0;
    let k = 2.0 * 1000.0 * l0 / (l + l0) * (std::f64::consts::PI / n as f64).tan();
    println!(
        "dV/V0 = {dv:.6}, p/K = {:.6}, ratio {:.5}, rebuilds {}",
        1.0 / k,
        dv * k,
        be.rebuilds()
    );
    let e = softdem::diagnostics::energies(&sc, &nodes, &bs, &be.read_contacts().unwrap());
    println!("{e:?}");
}
