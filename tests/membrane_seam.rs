//! The membrane as a force source of the sphere stepper (`spheres::extra_force`, issue 22's one
//! seam): the same membrane lent at every step by `MembraneSpheres` or attached to the stepper
//! with `add_extra` moves the spheres bit for bit alike; and the forces do not depend on when
//! the membrane's candidate list is rebuilt (the reason its list may follow the stepper's
//! rebuilds: a contact with force or history is a candidate in every valid list, rows are in
//! patch order, and only such contacts enter the sums), so extra rebuilds change no bit.

use softdem::membrane::cases::confined_ring;
use softdem::spheres::cpu_stepper::CpuSpheres;

fn ring() -> softdem::membrane::MembraneSpheres {
    // Grains pressed into a confined cylinder with bending: every membrane pass acts.
    let mut sys = confined_ring(0.012, 4e-3, 2e3, 3e-3, 0.2e-3, 10);
    sys.pins.clear();
    sys
}

#[test]
fn an_attached_membrane_steps_as_the_lent_one() {
    let mut lent = ring();
    let s = &lent.spheres;
    let mut attached = CpuSpheres::new(s.params, s.states.clone(), s.laws.clone(), s.walls.clone());
    attached.add_extra(Box::new(lent.membrane.clone()));
    assert_eq!(attached.forces, lent.spheres.forces, "initial forces differ");
    for _ in 0..300 {
        lent.step();
        attached.step();
    }
    assert_eq!(attached.states, lent.spheres.states);
    let active = lent.membrane.patch_out.iter().filter(|o| o.active != 0).count();
    assert!(active > 0, "no patch contact");
}

#[test]
fn forces_do_not_depend_on_when_the_patch_list_is_rebuilt() {
    let mut a = ring();
    let mut b = ring();
    for k in 0..400 {
        a.step();
        b.step();
        if k % 3 == 0 {
            // An extra build between steps, history carried by key.
            let states = b.spheres.states.clone();
            b.membrane.rebuild(&states);
        }
    }
    println!(
        "patch list builds: {} vs {}; sphere list builds {}",
        a.membrane.list_builds, b.membrane.list_builds, a.spheres.rebuilds
    );
    assert!(b.membrane.list_builds > a.membrane.list_builds + 100);
    assert_eq!(a.spheres.states, b.spheres.states);
    assert_eq!(a.spheres.forces, b.spheres.forces);
}
