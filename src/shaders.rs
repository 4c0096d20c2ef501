//! Every WGSL file of the crate, embedded at compile time.
//!
//! A kernel is compiled as one module: `common.wgsl` (records and helpers shared with
//! `model::layout`/`model::df32`), then the force-law libraries it includes (`INCLUDES`), then the
//! kernel file itself. `gpu::context::locate_in_parts` maps a line of that module back to its file.

/// Shared WGSL helpers prepended to every kernel.
pub const COMMON: &str = include_str!("../shaders/common.wgsl");

/// (name, source) of every file in `shaders/` except `common.wgsl`.
pub const KERNELS: &[(&str, &str)] = &[
    ("prefix_scan", include_str!("../shaders/prefix_scan.wgsl")),
    ("model", include_str!("../shaders/model.wgsl")),
    ("stretch", include_str!("../shaders/stretch.wgsl")),
    ("bending", include_str!("../shaders/bending.wgsl")),
    ("core_pressure", include_str!("../shaders/core_pressure.wgsl")),
    ("contact", include_str!("../shaders/contact.wgsl")),
    ("integrate", include_str!("../shaders/integrate.wgsl")),
    ("core_area", include_str!("../shaders/core_area.wgsl")),
    ("broad_phase", include_str!("../shaders/broad_phase.wgsl")),
    ("contact_pairs", include_str!("../shaders/contact_pairs.wgsl")),
    ("shell_forces", include_str!("../shaders/shell_forces.wgsl")),
    ("node_forces", include_str!("../shaders/node_forces.wgsl")),
    ("cohesive_link", include_str!("../shaders/cohesive_link.wgsl")),
    ("modal_lib", include_str!("../shaders/modal_lib.wgsl")),
    ("modal_contact", include_str!("../shaders/modal_contact.wgsl")),
    ("modal_body", include_str!("../shaders/modal_body.wgsl")),
    ("modal_spd_contact", include_str!("../shaders/modal_spd_contact.wgsl")),
    ("hertz", include_str!("../shaders/hertz.wgsl")),
    ("mindlin", include_str!("../shaders/mindlin.wgsl")),
    (
        "linear_spring_dashpot",
        include_str!("../shaders/linear_spring_dashpot.wgsl"),
    ),
    ("rolling_resistance", include_str!("../shaders/rolling_resistance.wgsl")),
    ("mc_stress", include_str!("../shaders/mc_stress.wgsl")),
    ("sphere_state", include_str!("../shaders/sphere_state.wgsl")),
    ("sphere_contact", include_str!("../shaders/sphere_contact.wgsl")),
    ("sphere_cell_list", include_str!("../shaders/sphere_cell_list.wgsl")),
    ("sphere_law_batch", include_str!("../shaders/sphere_law_batch.wgsl")),
    ("sphere_wall", include_str!("../shaders/sphere_wall.wgsl")),
    ("sphere_step", include_str!("../shaders/sphere_step.wgsl")),
];

/// Force-law libraries (function-only files) compiled in front of a kernel.
pub const INCLUDES: &[(&str, &[&str])] = &[
    ("stretch", &["model"]),
    ("bending", &["model"]),
    ("core_pressure", &["model"]),
    ("contact", &["model"]),
    ("integrate", &["model"]),
    ("core_area", &["model"]),
    ("broad_phase", &["model"]),
    ("contact_pairs", &["model", "contact"]),
    ("shell_forces", &["model", "stretch", "bending", "core_pressure"]),
    ("node_forces", &["model"]),
    ("cohesive_link", &["model"]),
    ("modal_contact", &["modal_lib"]),
    ("modal_body", &["modal_lib"]),
    ("modal_spd_contact", &["modal_lib", "modal_body"]),
    ("mindlin", &["hertz"]),
    ("rolling_resistance", &["hertz", "mindlin"]),
    (
        "sphere_contact",
        &[
            "sphere_state",
            "hertz",
            "mindlin",
            "linear_spring_dashpot",
            "rolling_resistance",
            "mc_stress",
        ],
    ),
    ("sphere_cell_list", &["sphere_state"]),
    ("sphere_law_batch", SPHERE_LAWS),
    ("sphere_wall", SPHERE_LAWS),
    (
        "sphere_step",
        &[
            "sphere_state",
            "hertz",
            "mindlin",
            "linear_spring_dashpot",
            "rolling_resistance",
            "mc_stress",
            "sphere_contact",
            "sphere_wall",
        ],
    ),
];

/// The sphere records and every sphere law, in front of the sphere kernels.
const SPHERE_LAWS: &[&str] = &[
    "sphere_state",
    "hertz",
    "mindlin",
    "linear_spring_dashpot",
    "rolling_resistance",
    "mc_stress",
    "sphere_contact",
];

fn source_of(name: &str) -> Option<&'static str> {
    KERNELS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The files making up kernel `name`, in order: ("common", …), includes…, (name, …).
pub fn parts(name: &str) -> Option<Vec<(&'static str, &'static str)>> {
    let src = source_of(name)?;
    let mut v = vec![("common", COMMON)];
    if let Some((_, inc)) = INCLUDES.iter().find(|(n, _)| *n == name) {
        for i in inc.iter() {
            v.push((i, source_of(i)?));
        }
    }
    let own = KERNELS.iter().find(|(n, _)| *n == name)?.0;
    v.push((own, src));
    Some(v)
}

/// Number of lines `COMMON` adds in front of a kernel without includes.
pub fn common_lines() -> usize {
    COMMON.lines().count()
}

/// Full source of kernel `name` as compiled.
pub fn shader_source(name: &str) -> Option<String> {
    Some(parts(name)?.iter().map(|(_, s)| *s).collect::<Vec<_>>().join("\n"))
}
