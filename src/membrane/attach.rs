//! A membrane in a driven sphere run (`[spheres.membrane]`): the source attached to the CPU
//! stepper, its rims kept on their platens after every step, read back for the outputs, and its
//! contact history saved and restored for checkpoints.
//!
//! **Pins.** A pinned vertex follows its wall: x = x₀ + (w − w₀) (w the wall's point, x₀ and w₀
//! at the start), with the wall's velocity, after every step (as `MembraneSpheres::step` does
//! with its own pins).
//!
//! **Checkpoint.** As for sphere pairs (`spheres::backend`): the (grain, patch) candidates with
//! non-zero history, as sorted keys, and their history. A restore puts them in the membrane as
//! its candidate list before the stepper's rebuild, which carries them into the new list by key;
//! a candidate apart has no history, so the moment of a rebuild does not change a result.

use super::model::Membrane;
use super::patch_list::PatchList;
use crate::spheres::contact::ContactHistory;
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::precision::{df3_split, df3_value};

/// Attaches the membrane to the CPU stepper (first evaluation, candidate list built).
pub fn attach_cpu(sys: &mut CpuSpheres, m: Membrane) {
    sys.add_extra(Box::new(m));
}

fn source(sys: &CpuSpheres) -> Option<usize> {
    sys.extra.iter().position(|s| s.as_any().is::<Membrane>())
}

/// The attached membrane (a copy), or None.
pub fn read_cpu(sys: &CpuSpheres) -> Option<Membrane> {
    source(sys).map(|k| {
        sys.extra[k]
            .as_any()
            .downcast_ref::<Membrane>()
            .expect("checked")
            .clone()
    })
}

/// Puts every pinned vertex (sphere, wall) on its wall's path (module doc); `x0`, `w0`: the
/// vertices' and walls' points at the start.
pub fn apply_pins(sys: &mut CpuSpheres, pins: &[(u32, u32)], x0: &[[f64; 3]], w0: &[[f64; 3]]) {
    for (k, &(s, w)) in pins.iter().enumerate() {
        let wall = &sys.walls[w as usize];
        let now = df3_value(wall.point_hi, wall.point_lo);
        let x = [0, 1, 2].map(|c| x0[k][c] + (now[c] - w0[w as usize][c]));
        let st = &mut sys.states[s as usize];
        (st.pos_hi, st.pos_lo) = df3_split(x);
        st.vel = wall.velocity;
        st.omega = [0.0; 3];
    }
}

/// The candidates with non-zero history: keys (sphere, patch), sorted, and their history.
pub fn saved_history(m: &Membrane) -> (Vec<[u32; 2]>, Vec<ContactHistory>) {
    let (mut keys, mut hist) = (vec![], vec![]);
    let l = &m.list;
    for s in 0..l.start.len().saturating_sub(1) {
        for k in l.start[s] as usize..l.start[s + 1] as usize {
            let h = m.patch_history[k];
            if h != ContactHistory::default() {
                keys.push([s as u32, l.patch[k]]);
                hist.push(h);
            }
        }
    }
    (keys, hist)
}

/// Restores saved history into the attached membrane as its candidate list (module doc); call
/// before the stepper's own restore, whose rebuild carries it.
pub fn restore_cpu(sys: &mut CpuSpheres, keys: &[[u32; 2]], history: &[ContactHistory]) -> anyhow::Result<()> {
    let k = source(sys).ok_or_else(|| anyhow::anyhow!("this run has no membrane"))?;
    let n = sys.states.len();
    let cur = sys.extra[k].as_any().downcast_ref::<Membrane>().expect("checked");
    anyhow::ensure!(
        keys.len() == history.len()
            && keys.iter().all(|k| (k[0] as usize) < n && k[1] < cur.params.n_patches)
            && keys.windows(2).all(|w| w[0] < w[1]),
        "the checkpoint's membrane contacts are not sorted (sphere, patch) keys of this scenario"
    );
    let mut start = vec![0u32; n + 1];
    for key in keys {
        start[key[0] as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut m = cur.clone();
    m.list = PatchList {
        start,
        patch: keys.iter().map(|k| k[1]).collect(),
        corner_start: vec![],
        corner: vec![],
    };
    m.patch_history = history.to_vec();
    sys.extra[k] = Box::new(m);
    Ok(())
}
