//! Every WGSL file of the crate, embedded at compile time, and the `#import` resolver that
//! composes a kernel's module from them.
//!
//! A WGSL file names the files it needs in `#import <stem>` lines (one per line, before its
//! code; naga_oil's spelling, without its name mangling). A kernel is compiled as one module: its
//! imports, depth first and each file once, in the order they are first named, then the file
//! itself. An `#import` line is turned into a `// #import` comment in place, so every line keeps
//! its number and `gpu::context::locate_in_parts` maps a line of the module back to its file.

/// Helpers shared by the kernels (`linear_id`, `NONE`); imported by `model`, `modal_lib`,
/// `sphere_state`, `prefix_scan` and `precision_probe`.
pub const COMMON: &str = include_str!("../shaders/common.wgsl");

/// (stem, source) of every file in `shaders/` except `common.wgsl`; each is validated as a
/// kernel of its own (with its imports) by tests/shaders_validate.rs.
pub const KERNELS: &[(&str, &str)] = &[
    ("prefix_scan", include_str!("../shaders/prefix_scan.wgsl")),
    ("fixed_reduce", include_str!("../shaders/fixed_reduce.wgsl")),
    ("df32", include_str!("../shaders/df32.wgsl")),
    ("spd_records", include_str!("../shaders/spd_records.wgsl")),
    ("model", include_str!("../shaders/model.wgsl")),
    ("stretch", include_str!("../shaders/stretch.wgsl")),
    ("bending", include_str!("../shaders/bending.wgsl")),
    ("core_pressure", include_str!("../shaders/core_pressure.wgsl")),
    ("contact", include_str!("../shaders/contact.wgsl")),
    ("integrate", include_str!("../shaders/integrate.wgsl")),
    ("core_area", include_str!("../shaders/core_area.wgsl")),
    ("history", include_str!("../shaders/history.wgsl")),
    ("broad_phase", include_str!("../shaders/broad_phase.wgsl")),
    ("contact_pairs", include_str!("../shaders/contact_pairs.wgsl")),
    ("shell_forces", include_str!("../shaders/shell_forces.wgsl")),
    ("node_forces", include_str!("../shaders/node_forces.wgsl")),
    ("subgroup", include_str!("../shaders/subgroup.wgsl")),
    ("integrate_subgroup", include_str!("../shaders/integrate_subgroup.wgsl")),
    (
        "node_forces_subgroup",
        include_str!("../shaders/node_forces_subgroup.wgsl"),
    ),
    (
        "contact_pairs_subgroup",
        include_str!("../shaders/contact_pairs_subgroup.wgsl"),
    ),
    ("cohesive_link", include_str!("../shaders/cohesive_link.wgsl")),
    ("modal_lib", include_str!("../shaders/modal_lib.wgsl")),
    ("modal_contact", include_str!("../shaders/modal_contact.wgsl")),
    ("modal_body", include_str!("../shaders/modal_body.wgsl")),
    ("modal_spd_contact", include_str!("../shaders/modal_spd_contact.wgsl")),
    ("precision_probe", include_str!("../shaders/precision_probe.wgsl")),
    ("dispatch_probe", include_str!("../shaders/dispatch_probe.wgsl")),
    ("hertz", include_str!("../shaders/hertz.wgsl")),
    ("mindlin", include_str!("../shaders/mindlin.wgsl")),
    (
        "linear_spring_dashpot",
        include_str!("../shaders/linear_spring_dashpot.wgsl"),
    ),
    ("rolling_resistance", include_str!("../shaders/rolling_resistance.wgsl")),
    ("mc_stress", include_str!("../shaders/mc_stress.wgsl")),
    ("mc_strain", include_str!("../shaders/mc_strain.wgsl")),
    ("sphere_state", include_str!("../shaders/sphere_state.wgsl")),
    ("sphere_contact", include_str!("../shaders/sphere_contact.wgsl")),
    ("grid3d", include_str!("../shaders/grid3d.wgsl")),
    ("sphere_cell_list", include_str!("../shaders/sphere_cell_list.wgsl")),
    ("sphere_law_batch", include_str!("../shaders/sphere_law_batch.wgsl")),
    ("sphere_wall", include_str!("../shaders/sphere_wall.wgsl")),
    ("sphere_step", include_str!("../shaders/sphere_step.wgsl")),
    ("membrane_stretch", include_str!("../shaders/membrane_stretch.wgsl")),
    ("membrane_bending", include_str!("../shaders/membrane_bending.wgsl")),
    ("membrane_pressure", include_str!("../shaders/membrane_pressure.wgsl")),
    ("patch_contact", include_str!("../shaders/patch_contact.wgsl")),
    ("membrane_step", include_str!("../shaders/membrane_step.wgsl")),
    (
        "membrane_patch_list",
        include_str!("../shaders/membrane_patch_list.wgsl"),
    ),
    ("membrane_rims", include_str!("../shaders/membrane_rims.wgsl")),
    ("kelvin_voigt", include_str!("../shaders/kelvin_voigt.wgsl")),
    ("plane_repulsion", include_str!("../shaders/plane_repulsion.wgsl")),
    ("beads", include_str!("../shaders/beads.wgsl")),
];

/// Libraries that call a function their importer provides (`df32` calls `opaque_zero()`,
/// `history` calls `sorted_key(i)`, `grid3d` calls `grid_of()`, `item_point(i)`, `is_near(i, j)`
/// and the others its header lists): not valid alone, validated within every kernel that
/// imports them.
pub const NEEDS_IMPORTER: &[&str] = &["df32", "history", "grid3d"];

/// Kernels that use subgroup operations: valid only with naga's `Capabilities::SUBGROUP`, created
/// only on a device with `wgpu::Features::SUBGROUP` (the `subgroup` modes of
/// `gpu::stepper::SlotAllocation` and `DisplacementMax`). Every other kernel validates with the
/// default capabilities, so no device without subgroups is handed one
/// (`gpu::context::kernel_capabilities`, tests/shaders_validate.rs).
pub const NEEDS_SUBGROUPS: &[&str] = &[
    "subgroup",
    "integrate_subgroup",
    "node_forces_subgroup",
    "contact_pairs_subgroup",
];

/// `common.wgsl` and every file of [`KERNELS`]: the files `#import` can name.
pub fn all_files() -> Vec<(&'static str, &'static str)> {
    std::iter::once(("common", COMMON))
        .chain(KERNELS.iter().copied())
        .collect()
}

/// The `#import` lines of a WGSL source: (1-based line, imported stem), in order.
pub fn imports_of(src: &str) -> Vec<(usize, &str)> {
    src.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let rest = line.trim_start().strip_prefix("#import")?;
            Some((i + 1, rest.trim()))
        })
        .collect()
}

/// `src` with each `#import` line made a comment (same lines, so the line mapping holds).
fn without_import_lines(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + 64);
    for piece in src.split_inclusive('\n') {
        if piece.trim_start().starts_with("#import") {
            out.push_str("// ");
        }
        out.push_str(piece);
    }
    out
}

/// Composes file `name` of `files` ((stem, source) pairs): depth first, the files it imports,
/// each once and in the order first named, then `name` itself; each part's `#import` lines are
/// commented out. Errors name the importing file and line, or the chain of a cycle.
pub fn compose<'a>(name: &str, files: &[(&'a str, &'a str)]) -> Result<Vec<(&'a str, String)>, String> {
    fn visit<'a>(
        k: usize,
        files: &[(&'a str, &'a str)],
        stack: &mut Vec<usize>,
        done: &mut Vec<(usize, String)>,
    ) -> Result<(), String> {
        if done.iter().any(|(d, _)| *d == k) {
            return Ok(());
        }
        if stack.contains(&k) {
            let chain: Vec<&str> = stack.iter().chain(std::iter::once(&k)).map(|&i| files[i].0).collect();
            return Err(format!("#import cycle: {}", chain.join(" -> ")));
        }
        let (stem, src) = files[k];
        stack.push(k);
        for (line, import) in imports_of(src) {
            let j = files.iter().position(|(n, _)| *n == import).ok_or_else(|| {
                format!("shaders/{stem}.wgsl:{line}: #import {import}: no file shaders/{import}.wgsl is listed in softdem::shaders::KERNELS")
            })?;
            visit(j, files, stack, done)?;
        }
        stack.pop();
        done.push((k, without_import_lines(src)));
        Ok(())
    }
    let k = files
        .iter()
        .position(|(n, _)| *n == name)
        .ok_or_else(|| format!("unknown shader {name:?}: not listed in softdem::shaders::KERNELS"))?;
    let mut done = Vec::new();
    visit(k, files, &mut Vec::new(), &mut done)?;
    Ok(done.into_iter().map(|(k, text)| (files[k].0, text)).collect())
}

/// The files making up kernel `name`, in compile order (see [`compose`]).
pub fn parts(name: &str) -> Result<Vec<(&'static str, String)>, String> {
    compose(name, &all_files())
}

/// Lines of `common.wgsl` (a module importing only `common` starts after them and one more).
pub fn common_lines() -> usize {
    COMMON.lines().count()
}

/// Full source of kernel `name` as compiled.
pub fn shader_source(name: &str) -> Result<String, String> {
    Ok(parts(name)?
        .iter()
        .map(|(_, s)| s.as_str())
        .collect::<Vec<_>>()
        .join("\n"))
}
