//! The records shared by the CPU twin and the WGSL kernels have the same size and field offsets
//! on both sides: naga's layouter (the WGSL/std430 rules) against Rust's `#[repr(C)]`.

use softdem::model::*;
use std::mem::{offset_of, size_of};

/// Size and field offsets of WGSL struct `name` as compiled in kernel `kernel`.
fn wgsl_layout_in(kernel: &str, name: &str) -> (u32, Vec<(String, u32)>) {
    let src = softdem::shaders::shader_source(kernel).unwrap();
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
    panic!("struct {name} not found in the WGSL sources of {kernel}");
}

macro_rules! check_record {
    ($ty:ty, $name:literal, [$($field:ident => $wgsl:literal),* $(,)?]) => {
        check_record!("node_forces" => $ty, $name, [$($field => $wgsl),*])
    };
    // `inside [..]`: WGSL fields that lie within a Rust array field (pad: [u32; 3] as pad0..pad2).
    ($kernel:expr => $ty:ty, $name:literal, [$($field:ident => $wgsl:literal),* $(,)?] $(, inside [$($extra:literal),*])?) => {{
        let (size, fields) = wgsl_layout_in($kernel, $name);
        assert_eq!(size as usize, size_of::<$ty>(), "size of {}", $name);
        $(
            let off = fields.iter().find(|(n, _)| n == $wgsl).unwrap_or_else(|| panic!("{}.{} missing in WGSL", $name, $wgsl)).1;
            assert_eq!(off as usize, offset_of!($ty, $field), "offset of {}.{}", $name, $wgsl);
        )*
        let listed = [$($wgsl),*].len() $(+ [$($extra),*].len())?;
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

/// The modal engine's records (src/modal/layout.rs) and the SPD–modal coupling's
/// (src/coupled/layout.rs) against the WGSL the coupled kernels compile (modal_lib, modal_body,
/// spd_records, modal_spd_contact).
#[test]
fn modal_and_coupled_records_have_identical_layouts() {
    use softdem::coupled::layout::*;
    use softdem::modal::layout::*;
    const K: &str = "modal_spd_contact";
    check_record!(K => ModalParams, "ModalParams", [dt => "dt", n_nodes => "n_nodes", n_bodies => "n_bodies",
        n_walls => "n_walls", slots => "slots", k_n => "k_n", c_n => "c_n", k_t => "k_t", mu => "mu",
        opaque_zero => "opaque_zero", gravity => "gravity"]);
    check_record!(K => ModalBodyRec, "ModalBodyRec", [node_first => "node_first", node_count => "node_count",
        n_modes => "n_modes", mode_first => "mode_first", ls_first => "ls_first", nx => "nx", ny => "ny",
        stiff_kind => "stiff_kind", origin => "origin", h => "h", mass => "mass", inertia => "inertia",
        rigid_damping => "rigid_damping", bound_radius => "bound_radius", table_first => "table_first",
        table_len => "table_len", pad => "pad", minv => "minv", k => "k", c => "c"]);
    check_record!(K => ModalModeRec, "ModalModeRec", [kind => "kind", grid_first => "grid_first", length => "length",
        x_left => "x_left", y_mid => "y_mid", pad => "pad0"], inside ["pad1", "pad2"]);
    check_record!(K => ModalNodeRec, "ModalNodeRec", [body => "body", pad => "pad", p => "p", phi => "phi"]);
    check_record!(K => ModalState, "ModalState", [x_hi => "x_hi", x_lo => "x_lo", v => "v", theta => "theta",
        omega => "omega", eps => "eps", eps_dot => "eps_dot"]);
    check_record!(K => ModalWallRec, "ModalWallRec", [kind => "kind", pad => "pad", p0 => "p0", normal => "normal",
        velocity => "velocity", radius => "radius", pad1 => "pad1"]);
    check_record!(K => ModalSlot, "ModalSlot", [force => "force", q => "q", p_ref => "p_ref", hist => "hist",
        partner => "partner", active => "flag"]);
    check_record!(K => ModalQueryRec, "ModalQueryRec", [kind => "kind", n_samples => "n_samples",
        samples_first => "samples_first", fields_first => "fields_first"]);
    check_record!(K => CoupleParams, "CoupleParams", [n_spd_nodes => "n_spd_nodes", n_cells => "n_cells",
        directions => "directions", pad => "pad", gravity => "gravity_x", pad1 => "pad1"],
        inside ["gravity_y", "pad2"]);
    check_record!(K => CellRec, "CellRec", [first => "first", count => "count", radius => "radius",
        coupled => "coupled"]);
    check_record!(K => SegSlot, "SegSlot", [force => "force", hist => "hist", seg => "seg", t => "t",
        partner => "partner", active => "flag"]);
    // The coupled kernels read the SPD node state through spd_records.wgsl: the same record.
    check_record!(K => NodeState, "NodeState", [pos_hi => "pos_hi", pos_lo => "pos_lo", vel => "vel",
        force => "force", seg_rest => "seg_rest", theta_p => "theta_p"]);
}
