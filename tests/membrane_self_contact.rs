//! Issue 25: self-contact of the membrane through vertex–patch contacts (docs/membrane.md). A
//! strip of Table 2 membrane (s = 2 mm, 8 × 9 vertices, vertex radius r_v = 0.5 mm) folded about
//! its middle row, the upper part at 30° above the pinned lower part and closing onto it at
//! 100 rad/s (tip speed 0.7 m/s), 4000 steps of 2 µs (8 ms: without contact it would turn 46°,
//! 16° past the lower part). With self-contact no upper vertex ever goes below the lower part
//! (height z > 0.25 r_v throughout: the fold stops at about one vertex radius less the Hertz
//! overlap; seen z = 0.468 mm = r_v − 0.032 mm), the fold did close to contact (z < r_v), and at rest
//! before closing no contact was selected (no vertex touches its neighbours' patches); without
//! self-contact the same fold passes through (z < −r_v), so the test can fail.

use softdem::membrane::cases::folded_sheet;
use softdem::membrane::MembraneSpheres;

/// The lowest height of an upper vertex over the run, and the number of contacts selected at the start.
fn lowest(self_contact: bool) -> (f64, usize, usize) {
    let f = folded_sheet(8, 9, 4, 2e-3, 30f64.to_radians(), 100.0, 0.5e-3, self_contact);
    let c = &f.case;
    let mut sys = MembraneSpheres::new(c.params, c.grains.clone(), &c.materials, Vec::new(), &c.spec);
    sys.pin(&c.pinned, [0.0; 3]);
    let at_rest = sys.membrane.patch_out.iter().filter(|o| o.active != 0).count();
    for (v, u) in f.upper.iter().zip(&f.velocity) {
        let s = sys.vertex_sphere(*v);
        sys.spheres.states[s].vel = u.map(|x| x as f32);
    }
    let mut low = f64::MAX;
    let mut most = 0;
    for _ in 0..4000 {
        sys.step();
        for v in &f.upper {
            low = low.min(sys.spheres.states[sys.vertex_sphere(*v)].position()[2]);
        }
        most = most.max(sys.membrane.patch_out.iter().filter(|o| o.active != 0).count());
    }
    (low, at_rest, most)
}

#[test]
fn a_folded_sheet_does_not_pass_through_itself() {
    let r_v = 0.5e-3;
    let (low, at_rest, most) = lowest(true);
    println!("self-contact: lowest upper vertex z = {low:.4e} m (r_v = {r_v:.1e}), {at_rest} contacts at rest, at most {most} selected");
    assert_eq!(at_rest, 0, "contacts at rest");
    assert!(
        low > 0.25 * r_v,
        "the fold passed through or sank too far: z = {low:.3e}"
    );
    assert!(low < r_v, "the fold never closed to contact: z = {low:.3e}");
    assert!(most > 0);
    let (low_off, _, most_off) = lowest(false);
    println!("without self-contact: lowest z = {low_off:.4e} m, {most_off} contacts");
    assert_eq!(most_off, 0);
    assert!(
        low_off < -r_v,
        "without self-contact the fold should pass through: z = {low_off:.3e}"
    );
}
