//! The position precision decision for spheres (docs/spheres.md, `spheres::precision`):
//! double-f32 positions keep increments of 1e-7 of the coordinate and below, where plain f32
//! rounds them by tens of per cent or drops them (stalls).

use softdem::spheres::cpu_stepper::CpuSpheres;
use softdem::spheres::pair_law::{LawTable, SphereMaterial};
use softdem::spheres::wall::wall_geometry;
use softdem::spheres::{PlaneWall, SphereParams, SphereState};

#[test]
fn slow_drift_of_spheres_and_walls_does_not_stall() {
    let dt = 1e-5f32;
    let x0 = 0.1f64;
    // Per-step increments of 1e-7 and 1e-8 of the coordinate (1e-8 m and 1e-9 m at 0.1 m;
    // ulp(0.1f32) = 7.45e-9 m).
    for rel in [1e-7, 1e-8] {
        let v = (rel * x0 / dt as f64) as f32;
        let mut s = SphereState::solid([x0, x0, x0], 0.01, 1000.0, 0);
        s.vel = [v, -v, v];
        let mut wall = PlaneWall::new([0.0, 0.0, x0 + 0.0099], [0.0, 0.0, -1.0], [0.0, 0.0, -(v as f64)], 0);
        let p = SphereParams {
            dt,
            skin: 1e-3,
            ..Default::default()
        };
        let mut sys = CpuSpheres::new(p, vec![s], LawTable::hertz_mindlin(&[SphereMaterial::RUBBER]), vec![]);
        let mut naive = x0 as f32;
        let n = 100_000;
        let (g0, _, _) = wall_geometry(&wall, &sys.states[0]);
        for _ in 0..n {
            sys.step();
            wall.advance(dt);
            naive += v * dt;
        }
        let travelled = n as f64 * (v as f64) * dt as f64;
        let x = sys.states[0].position();
        let err = (x[0] - x0 - travelled).abs() / travelled;
        let err_y = (x0 - x[1] - travelled).abs() / travelled;
        let naive_err = ((naive as f64 - x0) - travelled).abs() / travelled;
        // The wall (not part of the system) closes in at v while the sphere moves towards it at v:
        // the overlap the law sees, from the two double-f32 positions, grows by 2 v t.
        let wall_z = wall.point_hi[2] as f64 + wall.point_lo[2] as f64;
        let wall_err = ((x0 + 0.0099 - wall_z) - travelled).abs() / travelled;
        let (g1, _, _) = wall_geometry(&wall, &sys.states[0]);
        let gap_change = (g1.delta - g0.delta) as f64;
        println!(
            "rel {rel:e}: double-f32 error {err:.2e} (y {err_y:.2e}, wall {wall_err:.2e}), plain f32 error {naive_err:.2e}, overlap change {gap_change:.2e} of {:.2e}",
            2.0 * travelled
        );
        assert!(
            err < 1e-4 && err_y < 1e-4 && wall_err < 1e-4,
            "double-f32 drift error {err} {err_y} {wall_err}"
        );
        assert!(
            (gap_change / (2.0 * travelled) - 1.0).abs() < 1e-3,
            "overlap follows the approach"
        );
        // The reason for the decision: plain f32 is off by more than 10 % (or stalls).
        assert!(
            naive_err > 0.1,
            "plain f32 unexpectedly kept the increments ({naive_err})"
        );
    }
}
