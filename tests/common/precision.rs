//! Case 6: nodes ~100 R from the origin driven at 1e-9 R per step. One ulp of an f32 coordinate
//! at 100 is 7.6e-6, so a plain f32 position would never move; the double-f32 position must
//! accumulate the displacement exactly. Two bodies: a frozen line and a free (non-frozen) line
//! whose nodes carry the imposed velocity.

use super::*;

pub const DT: f32 = 1.0e-3;
pub const STEP_DISPLACEMENT: f64 = 1.0e-9;
pub const STEPS_CPU: u32 = 10_000;

pub fn velocity() -> f32 {
    (STEP_DISPLACEMENT / DT as f64) as f32
}

pub fn scene() -> Scene {
    let mut sc = Scene::default();
    let mat = sc.add_material(elastic(100.0, 1.0, 0.0));
    let a = sc.add_line([100.0, 100.0], [100.5, 100.0], 2, wall_body(mat, 0.01));
    let b = sc.add_line([-100.0, 100.0], [-100.0, 100.5], 3, free_body(mat, 0.01, Core::None));
    sc.impose_velocity(&NodeSet::Body(a), Some(velocity()), Some(0.0));
    sc.impose_velocity(&NodeSet::Body(b), Some(velocity()), Some(0.0));
    sc.time_step = TimeStep::Fixed(DT);
    sc
}

pub struct Measurements {
    pub steps: u32,
    /// Expected displacement: steps · (dt · v) with dt · v rounded as the kernel rounds it.
    pub expected: f64,
    /// x displacement of every node.
    pub displacement: Vec<f64>,
    /// The same driving accumulated in a plain f32 coordinate starting at 100.
    pub plain_f32: f64,
}

pub fn run(be: &mut dyn Backend, scene: &Scene, steps: u32) -> Measurements {
    be.step(steps).unwrap();
    let nodes = be.read_nodes().unwrap();
    let inc = DT * velocity();
    let mut x = 100.0f32;
    for _ in 0..steps {
        x += inc;
    }
    Measurements {
        steps,
        expected: steps as f64 * inc as f64,
        displacement: nodes
            .iter()
            .zip(&scene.init)
            .map(|(s, i)| s.pos()[0] - i.pos()[0])
            .collect(),
        plain_f32: x as f64 - 100.0,
    }
}

pub fn check(m: &Measurements) {
    let nominal = m.steps as f64 * STEP_DISPLACEMENT;
    println!(
        "precision: {} steps, expected {:e}, got {:?}, plain f32 {:e}",
        m.steps, m.expected, m.displacement, m.plain_f32
    );
    assert!((m.expected / nominal - 1.0).abs() < 1e-3);
    // Every node within 1 % of the expected displacement.
    for (i, d) in m.displacement.iter().enumerate() {
        assert!(
            (d / m.expected - 1.0).abs() < 0.01,
            "node {i}: displacement {d:e} vs {:e} (limit 1 %)",
            m.expected
        );
    }
    // A plain f32 coordinate fails the same criterion (it does not move at all).
    assert!(
        (m.plain_f32 / m.expected - 1.0).abs() > 0.01,
        "plain f32 accumulation unexpectedly passes"
    );
}
