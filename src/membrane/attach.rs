//! A membrane in a driven sphere run (`[spheres.membrane]`): the source attached to either
//! stepper (the CPU's `Membrane`, the GPU's `GpuMembraneSource` behind a `RefCell` as
//! `SharedGpuMembrane`, so that a restore and the σ_c ramp can reach it through the stepper's
//! `extra()`), its rims kept on their platens after every step, its confining stress set by the
//! stages, and its contact history saved and restored for checkpoints.
//!
//! **Pins.** A pinned vertex follows its wall: x = x₀ + (w − w₀) (w the wall's point, x₀ and w₀
//! at the start), with the wall's velocity, after every step (as `MembraneSpheres::step` does
//! with its own pins): `rims.rs` on the CPU (f64, the reference), `shaders/membrane_rims.wgsl` on
//! the device (`attach_gpu_rims`: no host round trip per step).
//!
//! **Checkpoint.** As for sphere pairs (`spheres::backend`): the (grain, patch) candidates with
//! non-zero history, as sorted keys, and their history. A restore puts them in the membrane as
//! its candidate list before the stepper's rebuild, which carries them into the new list by key;
//! a candidate apart has no history, so the moment of a rebuild does not change a result.

use super::gpu_rims::GpuRims;
use super::gpu_source::GpuMembraneSource;
use super::model::Membrane;
use super::patch_list::PatchList;
use super::rims::{pin_vertex, Rims};
use crate::gpu::context::GpuContext;
use crate::spheres::contact::ContactHistory;
use crate::spheres::cpu_stepper::CpuSpheres;
use crate::spheres::extra_force::SharedGpuSource;
use crate::spheres::gpu_stepper::GpuSpheres;
use crate::spheres::{PlaneWall, SphereState};
use std::cell::RefCell;

/// `GpuMembraneSource` as a source a restore can reach (see the module doc).
pub type SharedGpuMembrane = SharedGpuSource<GpuMembraneSource>;

/// Attaches the membrane to the CPU stepper (first evaluation, candidate list built).
pub fn attach_cpu(sys: &mut CpuSpheres, m: Membrane) {
    sys.add_extra(Box::new(m));
}

/// Attaches the membrane to the GPU stepper (bound, candidate list built on the GPU, first
/// evaluation force only).
pub fn attach_gpu(ctx: &GpuContext, sys: &mut GpuSpheres, m: Membrane) -> anyhow::Result<()> {
    let src = GpuMembraneSource::new(ctx, m)?;
    sys.add_extra(ctx, Box::new(SharedGpuSource(RefCell::new(src))))
}

fn gpu_source(sys: &GpuSpheres) -> Option<&SharedGpuMembrane> {
    sys.extra()
        .iter()
        .find_map(|s| s.as_any().downcast_ref::<SharedGpuMembrane>())
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
/// vertices' and walls' points at the start. The CPU twin of the rim kernel (`rims::pin_vertex`).
pub fn apply_pins(sys: &mut CpuSpheres, pins: &[(u32, u32)], x0: &[[f64; 3]], w0: &[[f64; 3]]) {
    for (k, &(s, w)) in pins.iter().enumerate() {
        pin_vertex(
            &mut sys.states[s as usize],
            x0[k],
            w0[w as usize],
            &sys.walls[w as usize],
        );
    }
}

/// Attaches the pinned rims to the GPU stepper (after the membrane): the device puts them on
/// their walls after every step (`gpu_rims`, `shaders/membrane_rims.wgsl`); x₀ from `states`
/// and w₀ from `walls`, the run's first ones.
pub fn attach_gpu_rims(
    ctx: &GpuContext,
    sys: &mut GpuSpheres,
    pins: &[(u32, u32)],
    states: &[SphereState],
    walls: &[PlaneWall],
) -> anyhow::Result<()> {
    let rims = GpuRims::new(ctx, Rims::pinned(pins, states, walls))?;
    sys.add_extra(ctx, Box::new(rims))
}

/// Whether the GPU stepper holds the rims on the device (`attach_gpu_rims`).
pub fn has_gpu_rims(sys: &GpuSpheres) -> bool {
    sys.extra().iter().any(|s| s.as_any().is::<GpuRims>())
}

/// Sets the confining stress σ of the attached membrane (CPU or GPU stepper), from the next
/// force evaluation on.
pub fn set_sigma(cpu: Option<&mut CpuSpheres>, gpu: Option<&GpuSpheres>, sigma: f64) -> anyhow::Result<()> {
    if let Some(sys) = cpu {
        let k = source(sys).ok_or_else(|| anyhow::anyhow!("this run has no membrane"))?;
        let m = sys.extra[k]
            .as_any_mut()
            .and_then(|a| a.downcast_mut::<Membrane>())
            .expect("checked");
        m.params.sigma = sigma as f32;
    } else if let Some(sys) = gpu {
        let s = gpu_source(sys).ok_or_else(|| anyhow::anyhow!("this run has no membrane"))?;
        s.0.borrow_mut().set_sigma(sigma as f32);
    }
    Ok(())
}

/// The GPU twin of `saved_history` on the attached source (its list read back).
pub fn saved_history_gpu(ctx: &GpuContext, sys: &GpuSpheres) -> Option<(Vec<[u32; 2]>, Vec<ContactHistory>)> {
    let s = gpu_source(sys)?;
    let (list, history) = s.0.borrow().list(ctx);
    Some(keys_with_history(&list, &history))
}

/// The candidates with non-zero history: keys (sphere, patch), sorted, and their history.
pub fn saved_history(m: &Membrane) -> (Vec<[u32; 2]>, Vec<ContactHistory>) {
    keys_with_history(&m.list, &m.patch_history)
}

fn keys_with_history(l: &PatchList, history: &[ContactHistory]) -> (Vec<[u32; 2]>, Vec<ContactHistory>) {
    let (mut keys, mut hist) = (vec![], vec![]);
    for s in 0..l.start.len().saturating_sub(1) {
        let (a, b) = (l.start[s] as usize, l.start[s + 1] as usize);
        for (&h, &patch) in history[a..b].iter().zip(&l.patch[a..b]) {
            if h != ContactHistory::default() {
                keys.push([s as u32, patch]);
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
    check_keys(keys, history, n, cur.params.n_patches)?;
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

fn check_keys(keys: &[[u32; 2]], history: &[ContactHistory], n: usize, n_patches: u32) -> anyhow::Result<()> {
    anyhow::ensure!(
        keys.len() == history.len()
            && keys.iter().all(|k| (k[0] as usize) < n && k[1] < n_patches)
            && keys.windows(2).all(|w| w[0] < w[1]),
        "the checkpoint's membrane contacts are not sorted (sphere, patch) keys of this scenario"
    );
    Ok(())
}

/// The GPU twin of `restore_cpu`: the saved candidates become the source's list before the
/// stepper's restore, whose rebuild carries them.
pub fn restore_gpu(
    ctx: &GpuContext,
    sys: &GpuSpheres,
    keys: &[[u32; 2]],
    history: &[ContactHistory],
) -> anyhow::Result<()> {
    let s = gpu_source(sys).ok_or_else(|| anyhow::anyhow!("this run has no membrane"))?;
    let mut src = s.0.borrow_mut();
    check_keys(
        keys,
        history,
        src.host.params.n_spheres as usize,
        src.host.params.n_patches,
    )?;
    src.restore_list(ctx, keys, history)
}
