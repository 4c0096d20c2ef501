use softdem::cpu::CpuBackend;
use softdem::gpu::{context::GpuContext, stepper::GpuBackend};
use softdem::model::*;
use softdem::Backend;
use std::sync::Arc;
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
    let o = BodyOptions {
        material: mat,
        radius: 0.05,
        node_mass: 1.0,
        frozen: false,
        self_contact: true,
        core: Core::Drained { p0: 1.0 },
    };
    sc.add_ring([100.0, 100.0], 1.0, 8, o);
    let mut cpu = CpuBackend::new(&sc).unwrap();
    let ctx = Arc::new(GpuContext::new().unwrap());
    let mut gpu = GpuBackend::new(ctx, &sc).unwrap();
    for s in 0..2 {
        let (c, g) = (cpu.read_nodes().unwrap(), gpu.read_nodes().unwrap());
        for i in 0..3 {
            println!("step {s} node {i}\n cpu {:?}\n gpu {:?}", c[i], g[i]);
        }
        println!(
            "bodies cpu {:?} gpu {:?}",
            cpu.read_bodies().unwrap(),
            gpu.read_bodies().unwrap()
        );
        cpu.step(1).unwrap();
        gpu.step(1).unwrap();
    }
}
