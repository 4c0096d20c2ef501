//! The records shared by the CPU twin and the WGSL kernels have the same size and field offsets
//! on both sides: naga's layouter (the WGSL/std430 rules) against Rust's `#[repr(C)]`.

use softdem::model::*;
use std::mem::{offset_of, size_of};

/// Size and field offsets of WGSL struct `name` as compiled in kernel `kernel`, if it has one.
fn wgsl_layout_in(kernel: &str, name: &str) -> Option<(u32, Vec<(String, u32)>)> {
    let src = softdem::shaders::shader_source(kernel).unwrap();
    let module = naga::front::wgsl::parse_str(&src).unwrap();
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    for (h, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name) {
            if let naga::TypeInner::Struct { members, .. } = &ty.inner {
                let fields = members.iter().map(|m| (m.name.clone().unwrap(), m.offset)).collect();
                return Some((layouter[h].size, fields));
            }
        }
    }
    None
}

/// Kernels whose compiled modules hold every shared record: the 2D records (node_forces) and
/// the 3D sphere records and law parameters (sphere_contact).
const RECORD_KERNELS: [&str; 2] = ["node_forces", "sphere_contact"];

fn wgsl_layout(name: &str) -> (u32, Vec<(String, u32)>) {
    RECORD_KERNELS
        .iter()
        .find_map(|k| wgsl_layout_in(k, name))
        .unwrap_or_else(|| panic!("struct {name} not found in the WGSL sources of {RECORD_KERNELS:?}"))
}

macro_rules! check_record {
    ($ty:ty, $name:literal, [$($field:ident => $wgsl:literal),* $(,)?]) => {{
        let layout = wgsl_layout($name);
        check_record!(@check layout, $ty, $name, [$($field => $wgsl),*])
    }};
    // `inside [..]`: WGSL fields that lie within a Rust array field (pad: [u32; 3] as pad0..pad2).
    ($kernel:expr => $ty:ty, $name:literal, [$($field:ident => $wgsl:literal),* $(,)?] $(, inside [$($extra:literal),*])?) => {{
        let layout = wgsl_layout_in($kernel, $name).unwrap_or_else(|| panic!("struct {} not in kernel {}", $name, $kernel));
        check_record!(@check layout, $ty, $name, [$($field => $wgsl),*] $(, inside [$($extra),*])?)
    }};
    (@check $layout:ident, $ty:ty, $name:literal, [$($field:ident => $wgsl:literal),* $(,)?] $(, inside [$($extra:literal),*])?) => {{
        let (size, fields) = $layout;
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
        core_a0_hi => "core_a0_hi", core_a0_lo => "core_a0_lo", contact_material => "contact_material"]);
    check_record!(ContactLaw, "ContactLaw", [k_n => "k_n", k_t => "k_t", mu => "mu", c_n => "c_n"]);
    check_record!(Material, "Material", [k_s => "k_s", f_s_yield => "f_s_yield", c_s => "c_s", k_b => "k_b",
        m_b_yield => "m_b_yield", c_b => "c_b", k_core => "k_core", depth => "depth"]);
    check_record!(SimParams, "SimParams", [n_nodes => "n_nodes", n_bodies => "n_bodies", max_entries => "max_entries",
        grid_buckets => "grid_buckets", dt => "dt", viscous_damping => "viscous_damping",
        local_damping => "local_damping", skin => "skin", gravity => "gravity", cell_size => "cell_size",
        cutoff => "cutoff", self_exclusion => "self_exclusion", opaque_zero => "opaque_zero",
        contact_reach => "contact_reach", n_contact_materials => "n_contact_materials"]);
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

/// The SPD GPU stepper's step flags: the Rust record against both WGSL views of it (atomic words
/// for the kernels that write them, plain words for those that only read), in the modules of a
/// writer (broad_phase) and a reader (node_forces).
#[test]
fn step_flags_have_identical_layouts() {
    for (kernel, name) in [("broad_phase", "StepFlags"), ("node_forces", "StepFlagsView")] {
        let layout = wgsl_layout_in(kernel, name).unwrap_or_else(|| panic!("struct {name} not in kernel {kernel}"));
        check_record!(@check layout, StepFlags, "StepFlags", [max_disp => "max_disp", stop => "stop",
            force_rebuild => "force_rebuild", rebuilds => "rebuilds",
            longest_free_segment => "longest_free_segment", step => "step", pool_used => "pool_used",
            pool_overflow => "pool_overflow", grid_overflow => "grid_overflow", cut_short => "cut_short",
            rebuild_due => "rebuild_due"]);
    }
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
        opaque_zero => "opaque_zero", gravity => "gravity", n_materials => "n_materials", pad => "pad"]);
    check_record!(K => ModalBodyRec, "ModalBodyRec", [node_first => "node_first", node_count => "node_count",
        n_modes => "n_modes", mode_first => "mode_first", ls_first => "ls_first", nx => "nx", ny => "ny",
        stiff_kind => "stiff_kind", origin => "origin", h => "h", mass => "mass", inertia => "inertia",
        rigid_damping => "rigid_damping", bound_radius => "bound_radius", table_first => "table_first",
        table_len => "table_len", contact_material => "contact_material", minv => "minv", k => "k", c => "c"]);
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
        directions => "directions", spd_start_at => "spd_start_at", gravity => "gravity_x",
        mnode_start_at => "mnode_start_at", lever_at => "lever_at", rx_at => "rx_at", seg_at => "seg_at",
        pad1 => "pad1", pad2 => "pad2"], inside ["gravity_y"]);
    check_record!(K => CellRec, "CellRec", [first => "first", count => "count", radius => "radius",
        coupled => "coupled", contact_material => "contact_material"]);
    check_record!(K => SegSlot, "SegSlot", [force => "force", hist => "hist", seg => "seg", t => "t",
        partner => "partner", active => "flag"]);
    // The coupled kernels read the SPD node state through spd_records.wgsl: the same record.
    check_record!(K => NodeState, "NodeState", [pos_hi => "pos_hi", pos_lo => "pos_lo", vel => "vel",
        force => "force", seg_rest => "seg_rest", theta_p => "theta_p"]);
}

#[test]
fn sphere_records_have_identical_layouts() {
    use softdem::laws::hertz::HertzParams;
    use softdem::laws::linear_spring_dashpot::LinearSpringDashpotParams;
    use softdem::laws::mindlin::MindlinParams;
    use softdem::laws::rolling_resistance::RollingParams;
    use softdem::spheres::*;
    check_record!(SphereState, "SphereState", [pos_hi => "pos_hi", radius => "radius", pos_lo => "pos_lo",
        mass => "mass", vel => "vel", inertia => "inertia", omega => "omega", material => "material"]);
    check_record!(SphereForce, "SphereForce", [force => "force", _pad0 => "_pad0", torque => "torque",
        _pad1 => "_pad1"]);
    check_record!(SphereParams, "SphereParams", [gravity => "gravity", dt => "dt", n_spheres => "n_spheres",
        n_items => "n_items", n_walls => "n_walls", opaque_zero => "opaque_zero",
        global_damping => "global_damping", local_damping => "local_damping", skin => "skin",
        cell_size => "cell_size", grid_origin => "grid_origin", n_cells => "n_cells",
        grid_dims => "grid_dims", n_materials => "n_materials"]);
    check_record!(PlaneWall, "PlaneWall", [point_hi => "point_hi", material => "material", point_lo => "point_lo",
        kind => "kind", normal => "normal", size => "size", velocity => "velocity", target_stress => "target_stress",
        force => "force", gain => "gain", torque => "torque", max_speed => "max_speed"]);
    check_record!(HertzParams, "HertzParams", [e_star => "e_star", beta_e => "beta_e"]);
    check_record!(MindlinParams, "MindlinParams", [g_star => "g_star", mu => "mu", beta_e => "beta_e",
        _pad => "_pad"]);
    check_record!(LinearSpringDashpotParams, "LinearSpringDashpotParams", [k_n => "k_n", k_t => "k_t",
        beta_e => "beta_e", mu => "mu"]);
    check_record!(RollingParams, "RollingParams", [mu_r => "mu_r", _pad => "_pad"]);
    check_record!(PairLaw, "PairLaw", [kind => "kind", _pad0 => "_pad0", hertz => "hertz", mindlin => "mindlin",
        linear => "linear", rolling => "rolling", mc => "mc"]);
    check_record!(softdem::laws::mc_stress::McStressParams, "McStressParams", [beta => "beta", nu => "nu",
        pressure_factor => "pressure_factor", options => "options"]);
    check_record!(ContactGeometry, "ContactGeometry", [normal => "normal", delta => "delta", v_rel => "v_rel",
        r_star => "r_star", w_rel => "w_rel", m_star => "m_star"]);
    check_record!(ContactHistory, "ContactHistory", [tangential => "tangential", _pad0 => "_pad0",
        rolling => "rolling", _pad1 => "_pad1"]);
    check_record!(softdem::spheres::cpu_stepper::PairOut, "PairOut", [force => "force", f_n => "f_n",
        torque_i => "torque_i", energy => "energy", torque_j => "torque_j", _pad => "_pad"]);
    check_record!(PairForce, "PairForce", [force => "force", f_n => "f_n", rolling_torque => "rolling_torque",
        energy => "energy"]);
    // A uniform buffer's size must be a multiple of 16 bytes.
    assert_eq!(std::mem::size_of::<SphereParams>() % 16, 0);
}

#[test]
fn bead_records_have_identical_layouts() {
    use softdem::beads::gpu::{BeadParams, BeadPlaneRec, LoadRec};
    use softdem::beads::Bond;
    check_record!("beads" => Bond, "Bond", [i => "i", j => "j", rest => "rest", k => "k", b => "b",
        broken_step => "broken_step", break_stretch => "break_stretch", _pad => "_pad"]);
    check_record!("beads" => BeadParams, "BeadParams", [n_beads => "n_beads", n_bonds => "n_bonds", n_planes => "n_planes",
        n_loads => "n_loads", break_stretch => "break_stretch", evaluation => "evaluation", slot => "slot", _pad1 => "_pad1"]);
    check_record!("beads" => BeadPlaneRec, "BeadPlaneRec", [point_hi => "point_hi", s => "s", point_lo => "point_lo",
        _pad0 => "_pad0", normal => "normal", _pad1 => "_pad1"]);
    check_record!("beads" => LoadRec, "LoadRec", [force => "force", bead => "bead"]);
    assert_eq!(std::mem::size_of::<BeadParams>() % 16, 0);
}
