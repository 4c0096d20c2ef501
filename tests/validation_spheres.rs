//! Issue 23, validation rows `spheres_*` (src/validation/spheres_*.rs): the cheap cases on the
//! CPU (every asserted row passes) and on the GPU (lavapipe; the same rows, and the recorded
//! series within a stated tolerance of the CPU's). A GPU test fails without an adapter.

use softdem::backend::BackendKind;
use softdem::validation::sphere_sim::relative_gap;
use softdem::validation::{
    spheres_collisions, spheres_eq11, spheres_hertz, spheres_mindlin, spheres_plates, CaseReport, Extent,
};

/// Every trace of `cpu` against `gpu`: largest difference relative to the largest CPU value.
fn compare(cpu: &CaseReport, gpu: &CaseReport, tol: f64) {
    assert_eq!(cpu.traces.len(), gpu.traces.len());
    for t in &cpu.traces {
        let g = gpu.trace(&t.name);
        let gap = relative_gap(&t.values, &g.values);
        println!("{} {}: GPU vs CPU {gap:.2e}", cpu.case, t.name);
        assert!(
            gap <= tol,
            "{} {}: GPU vs CPU differ by {gap:e} (tolerance {tol:e})",
            cpu.case,
            t.name
        );
    }
}

fn show(r: &CaseReport) {
    for c in &r.checks {
        println!(
            "{:<64} {:>13.6e} {:>13.6e} tol {:<8} {} {}",
            c.name,
            c.measured,
            c.expected,
            c.tolerance,
            c.pass,
            c.kind.as_str()
        );
    }
    println!("{}: {:.1} s", r.case, r.seconds);
}

#[test]
fn spheres_hertz_cpu_and_gpu() {
    let cpu = spheres_hertz::run(BackendKind::Cpu, Extent::Full).unwrap();
    show(&cpu);
    cpu.assert_all_pass();
    let gpu = spheres_hertz::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    show(&gpu);
    gpu.assert_all_pass();
    compare(
        &spheres_hertz::run(BackendKind::Cpu, Extent::Prefix).unwrap(),
        &gpu,
        1e-5,
    );
}

#[test]
fn spheres_mindlin_cpu_and_gpu() {
    let cpu = spheres_mindlin::run(BackendKind::Cpu, Extent::Full).unwrap();
    show(&cpu);
    cpu.assert_all_pass();
    let gpu = spheres_mindlin::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    show(&gpu);
    gpu.assert_all_pass();
    compare(
        &spheres_mindlin::run(BackendKind::Cpu, Extent::Prefix).unwrap(),
        &gpu,
        1e-4,
    );
}

#[test]
fn spheres_eq11_cpu_and_gpu() {
    let cpu = spheres_eq11::run(BackendKind::Cpu, Extent::Full).unwrap();
    show(&cpu);
    cpu.assert_all_pass();
    let gpu = spheres_eq11::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    show(&gpu);
    gpu.assert_all_pass();
    let cpu2 = spheres_eq11::run(BackendKind::Cpu, Extent::Prefix).unwrap();
    compare(&cpu2, &gpu, 1e-4);
}

#[test]
fn spheres_collisions_cpu_and_gpu() {
    let cpu = spheres_collisions::run(BackendKind::Cpu, Extent::Full).unwrap();
    show(&cpu);
    cpu.assert_all_pass();
    let gpu = spheres_collisions::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    show(&gpu);
    gpu.assert_all_pass();
    let cpu2 = spheres_collisions::run(BackendKind::Cpu, Extent::Prefix).unwrap();
    compare(&cpu2, &gpu, 1e-4);
}

#[test]
fn spheres_plates_cpu_and_gpu() {
    let cpu = spheres_plates::run(BackendKind::Cpu, Extent::Full).unwrap();
    show(&cpu);
    cpu.assert_all_pass();
    let gpu = spheres_plates::run(BackendKind::Gpu, Extent::Prefix).unwrap();
    show(&gpu);
    gpu.assert_all_pass();
    compare(&cpu, &gpu, 1e-5);
}
