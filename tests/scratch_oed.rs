use softdem::backend::BackendKind;
use softdem::validation::{spheres_oedometer, spheres_plates, Extent};
#[test]
fn scratch() {
    for r in [spheres_plates::run(BackendKind::Cpu, Extent::Full).unwrap(), spheres_oedometer::run(BackendKind::Cpu, Extent::Full).unwrap()] {
        println!("{}", r.setup);
        for c in &r.checks { println!("{:<64} {:>13.6e} {:>13.6e} tol {:<8} {} {}", c.name, c.measured, c.expected, c.tolerance, c.pass, c.kind.as_str()); }
        for f in &r.figures { println!("{}", f.caption); }
        println!("{} s", r.seconds);
        softdem::validation::report::write(std::path::Path::new("/tmp/oedplots"), &[r]).unwrap();
    }
}
