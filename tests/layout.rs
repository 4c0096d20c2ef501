//! The records shared by the CPU twin and the WGSL kernels have the same size and field offsets
//! on both sides: naga's layouter (the WGSL/std430 rules) against Rust's `#[repr(C)]`.

use softdem::model::*;
use std::mem::{offset_of, size_of};

fn wgsl_layout(name: &str) -> (u32, Vec<(String, u32)>) {
    let src = softdem::shaders::shader_source("node_forces").unwrap();
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
    panic!("struct {name} not found in the WGSL sources");
}

macro_rules! check_record {
    ($ty:ty, $name:literal, [$($field:ident => $wgsl:literal),* $(,)?]) => {{
        let (size, fields) = wgsl_layout($name);
        assert_eq!(size as usize, size_of::<$ty>(), "size of {}", $name);
        $(
            let off = fields.iter().find(|(n, _)| n == $wgsl).unwrap_or_else(|| panic!("{}.{} missing in WGSL", $name, $wgsl)).1;
            assert_eq!(off as usize, offset_of!($ty, $field), "offset of {}.{}", $name, $wgsl);
        )*
        let listed = [$($wgsl),*].len();
        assert_eq!(fields.len(), listed, "{}: WGSL has {} fields, the test lists {}", $name, fields.len(), listed);
    }};
}

#[test]
fn shared_records_have_identical_layouts() {
    check_record!(NodeRecord, "NodeRecord", [body => "body", prev => "prev", next => "next", local => "local_index",
        mass => "mass", bc => "bc"]);
    check_record!(NodeBc, "NodeBc", [mode => "mode", _pad => "_pad", velocity => "velocity", force => "force"]);
    check_record!(Body, "Body", [first => "first", count => "count", material => "material", flags => "flags",
        radius => "radius", core_model => "core_model", core_p0 => "core_p0", core_v0 => "core_v0",
        core_a0_hi => "core_a0_hi", core_a0_lo => "core_a0_lo"]);
    check_record!(Material, "Material", [k_s => "k_s", f_s_yield => "f_s_yield", c_s => "c_s", k_b => "k_b",
        m_b_yield => "m_b_yield", c_b => "c_b", k_core => "k_core", depth => "depth"]);
    check_record!(SimParams, "SimParams", [n_nodes => "n_nodes", n_bodies => "n_bodies", max_entries => "max_entries",
        grid_buckets => "grid_buckets", dt => "dt", viscous_damping => "viscous_damping",
        local_damping => "local_damping", skin => "skin", gravity => "gravity", cell_size => "cell_size",
        cutoff => "cutoff", k_n => "k_n", k_t => "k_t", mu => "mu", c_n => "c_n",
        self_exclusion => "self_exclusion", opaque_zero => "opaque_zero", contact_reach => "contact_reach",
        _pad2 => "_pad2"]);
    check_record!(NodeState, "NodeState", [pos_hi => "pos_hi", pos_lo => "pos_lo", vel => "vel", force => "force",
        seg_rest => "seg_rest", theta_p => "theta_p"]);
    check_record!(BodyState, "BodyState", [area => "area", pressure => "pressure",
        area_change => "area_change"]);
    check_record!(ShellForce, "ShellForce", [stretch => "stretch", pressure => "pressure", bend_a => "bend_a",
        bend_c => "bend_c", seg_rest => "seg_rest", theta_p => "theta_p"]);
    check_record!(Entry, "Entry", [neighbor => "neighbor"]);
    check_record!(ContactSlot, "ContactSlot", [seg_force => "seg_force", cap_force => "cap_force", seg_w => "seg_w",
        seg_fn => "seg_fn", cap_fn => "cap_fn", flags => "flags", hist => "hist"]);
    // A uniform buffer's size must be a multiple of 16 bytes.
    assert_eq!(size_of::<SimParams>() % 16, 0);
}
