//! Quick smoke run: two colliding rings on both backends, printing the CPU/GPU deviation.
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
    let a = sc.add_ring([100.0, 100.0], 1.0, 32, o);
    let b = sc.add_ring([102.3, 100.05], 1.0, 32, o);
    sc.contact = ContactLaw {
        k_n: 1000.0,
        k_t: 500.0,
        mu: 0.3,
        c_n: 0.0,
    };
    sc.set_initial_velocity(&NodeSet::Body(a), [0.5, 0.0]);
    sc.set_initial_velocity(&NodeSet::Body(b), [-0.5, 0.0]);
    let steps: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(2000);
    let mut cpu = CpuBackend::new(&sc).unwrap();
    let ctx = Arc::new(GpuContext::new().unwrap());
    let mut gpu = GpuBackend::new(ctx, &sc).unwrap();
    let t = std::time::Instant::now();
    cpu.step(steps).unwrap();
    let tc = t.elapsed();
    let t = std::time::Instant::now();
    gpu.step(steps).unwrap();
    let gn = gpu.read_nodes().unwrap();
    let tg = t.elapsed();
    let cn = cpu.read_nodes().unwrap();
    let mut worst = 0.0f64;
    let mut bits = 0;
    for (c, g) in cn.iter().zip(&gn) {
        let (pc, pg) = (c.pos(), g.pos());
        worst = worst.max(((pc[0] - pg[0]).powi(2) + (pc[1] - pg[1]).powi(2)).sqrt());
        if c != g {
            bits += 1;
        }
    }
    let cc = cpu.read_contacts().unwrap();
    let gc = gpu.read_contacts().unwrap();
    println!(
        "steps {steps}: cpu {tc:?}, gpu {tg:?}; max dev {worst:e}; nodes differing in bits {bits}/{}",
        cn.len()
    );
    println!(
        "contacts cpu {} gpu {}; entries cpu {} gpu {}; rebuilds cpu {} gpu {}",
        cc.active_count(),
        gc.active_count(),
        cc.entries.len(),
        gc.entries.len(),
        cpu.rebuilds(),
        gpu.rebuilds()
    );
    let e = softdem::diagnostics::energies(&sc, &cn, &cpu.read_bodies().unwrap(), &cc);
    println!(
        "cpu energy {:.6} p {:?} c0 {:?}",
        e.total(),
        softdem::diagnostics::momentum(&sc, &cn),
        softdem::diagnostics::centroid(&sc, &cn, 0)
    );
}
