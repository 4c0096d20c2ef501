//! The membrane records shared by the CPU twin and `shaders/membrane_step.wgsl` (and the
//! bending parameters of `membrane_bending.wgsl`) have the same size and field offsets on both
//! sides: naga's layouter (WGSL/std430) against Rust's `#[repr(C)]`.

use softdem::laws::membrane_bending::BendingParams;
use softdem::membrane::records::*;
use softdem::membrane::rims::{LoadCell, RimParams, RimPin};
use std::mem::{offset_of, size_of};

fn wgsl_layout(name: &str) -> (u32, Vec<(String, u32)>) {
    let file = match name {
        "PatchListParams" => "membrane_patch_list",
        "RimPin" | "RimParams" | "LoadCell" => "membrane_rims",
        _ => "membrane_step",
    };
    let src = softdem::shaders::shader_source(file).unwrap();
    let module = naga::front::wgsl::parse_str(&src).unwrap();
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    for (h, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name) {
            if let naga::TypeInner::Struct { members, .. } = &ty.inner {
                let fields = members.iter().map(|m| (m.name.clone().unwrap(), m.offset)).collect();
                return (layouter[h].size, fields);
            }
        }
    }
    panic!("struct {name} not in {file}.wgsl")
}

/// Size, then (Rust offset, WGSL field) pairs; `extra` WGSL fields lie inside a Rust array.
fn check(name: &str, size: usize, fields: &[(usize, &str)], extra: usize) {
    let (wsize, wfields) = wgsl_layout(name);
    assert_eq!(wsize as usize, size, "size of {name}");
    for (off, f) in fields {
        let w = wfields
            .iter()
            .find(|(n, _)| n == f)
            .unwrap_or_else(|| panic!("{name}.{f} missing in WGSL"))
            .1;
        assert_eq!(w as usize, *off, "offset of {name}.{f}");
    }
    assert_eq!(wfields.len(), fields.len() + extra, "{name}: field count");
}

#[test]
fn membrane_records_have_identical_layouts() {
    type P = MembraneParams;
    check(
        "MembraneParams",
        size_of::<P>(),
        &[
            (offset_of!(P, k), "k"),
            (offset_of!(P, gamma), "gamma"),
            (offset_of!(P, k_el), "k_el"),
            (offset_of!(P, k_diss), "k_diss"),
            (offset_of!(P, sigma), "sigma"),
            (offset_of!(P, dt), "dt"),
            (offset_of!(P, first), "first"),
            (offset_of!(P, n_vertices), "n_vertices"),
            (offset_of!(P, n_edges), "n_edges"),
            (offset_of!(P, n_hinges), "n_hinges"),
            (offset_of!(P, n_patches), "n_patches"),
            (offset_of!(P, n_spheres), "n_spheres"),
            (offset_of!(P, flags), "flags"),
            (offset_of!(P, opaque_zero), "opaque_zero"),
            (offset_of!(P, _pad), "_pad0"),
        ],
        1,
    );
    assert_eq!(size_of::<P>() % 16, 0, "a uniform's size is a multiple of 16");
    type E = MembraneEdge;
    check(
        "MembraneEdge",
        size_of::<E>(),
        &[
            (offset_of!(E, i), "i"),
            (offset_of!(E, j), "j"),
            (offset_of!(E, rest), "rest"),
            (offset_of!(E, _pad), "_pad"),
        ],
        0,
    );
    type H = MembraneHinge;
    check(
        "MembraneHinge",
        size_of::<H>(),
        &[
            (offset_of!(H, v), "v"),
            (offset_of!(H, sin_half_rest), "sin_half_rest"),
            (offset_of!(H, _pad), "_pad0"),
        ],
        2,
    );
    type T = MembranePatch;
    check(
        "MembranePatch",
        size_of::<T>(),
        &[(offset_of!(T, v), "v"), (offset_of!(T, _pad), "_pad")],
        0,
    );
    type O = PatchOut;
    check(
        "PatchOut",
        size_of::<O>(),
        &[
            (offset_of!(O, force), "force"),
            (offset_of!(O, f_n), "f_n"),
            (offset_of!(O, weights), "weights"),
            (offset_of!(O, active), "selected"),
            (offset_of!(O, torque), "torque"),
            (offset_of!(O, energy), "energy"),
        ],
        0,
    );
    check("HingeOut", size_of::<[[f32; 4]; 4]>(), &[(0, "f")], 0);
    type B = BendingParams;
    check(
        "BendingParams",
        size_of::<B>(),
        &[
            (offset_of!(B, k_el), "k_el"),
            (offset_of!(B, k_diss), "k_diss"),
            (offset_of!(B, _pad), "_pad0"),
        ],
        1,
    );
    type L = PatchListParams;
    check(
        "PatchListParams",
        size_of::<L>(),
        &[
            (offset_of!(L, grid_origin), "grid_origin"),
            (offset_of!(L, cell_size), "cell_size"),
            (offset_of!(L, grid_dims), "grid_dims"),
            (offset_of!(L, n_cells), "n_cells"),
            (offset_of!(L, first), "first"),
            (offset_of!(L, n_vertices), "n_vertices"),
            (offset_of!(L, n_patches), "n_patches"),
            (offset_of!(L, n_spheres), "n_spheres"),
            (offset_of!(L, skin), "skin"),
            (offset_of!(L, n_candidates), "n_candidates"),
            (offset_of!(L, flags), "flags"),
            (offset_of!(L, _pad), "_pad0"),
        ],
        0,
    );
    assert_eq!(size_of::<L>() % 16, 0, "a uniform's size is a multiple of 16");
}

/// The rim kernel's records and the load cell's uniform (`shaders/membrane_rims.wgsl`, twin
/// `membrane::rims`).
#[test]
fn rim_records_have_identical_layouts() {
    type R = RimPin;
    check(
        "RimPin",
        size_of::<R>(),
        &[
            (offset_of!(R, sphere), "sphere"),
            (offset_of!(R, wall), "wall"),
            (offset_of!(R, mode), "mode"),
            (offset_of!(R, wall_b), "wall_b"),
            (offset_of!(R, offset_hi), "offset_hi"),
            (offset_of!(R, cap_radius), "cap_radius"),
            (offset_of!(R, offset_lo), "offset_lo"),
            (offset_of!(R, _pad2), "_pad2"),
        ],
        0,
    );
    type Q = RimParams;
    check(
        "RimParams",
        size_of::<Q>(),
        &[
            (offset_of!(Q, n_pins), "n_pins"),
            (offset_of!(Q, area_wall), "area_wall"),
            (offset_of!(Q, n_area), "n_area"),
            (offset_of!(Q, particles), "particles"),
            (offset_of!(Q, vertex_radius), "vertex_radius"),
            (offset_of!(Q, _pad0), "_pad0"),
            (offset_of!(Q, _pad1), "_pad1"),
            (offset_of!(Q, _pad2), "_pad2"),
        ],
        0,
    );
    assert_eq!(size_of::<Q>() % 16, 0, "a uniform's size is a multiple of 16");
    type L = LoadCell;
    check(
        "LoadCell",
        size_of::<L>(),
        &[
            (offset_of!(L, wall), "wall"),
            (offset_of!(L, _pad0), "_pad0"),
            (offset_of!(L, sigma), "sigma"),
            (offset_of!(L, _pad1), "_pad1"),
        ],
        0,
    );
    assert_eq!(size_of::<L>() % 16, 0, "a uniform's size is a multiple of 16");
}
