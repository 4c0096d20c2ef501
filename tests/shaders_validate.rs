//! Every WGSL kernel parses and validates with naga (no GPU needed), errors are reported as
//! `shaders/<file>.wgsl:<line>`, and no kernel file on disk is missing from `KERNELS`.

use softdem::gpu::context::{locate_in_parts, validate_kernel, validate_kernel_with, validate_parts};
use softdem::shaders::{compose, imports_of, parts, shader_source, COMMON, KERNELS, NEEDS_IMPORTER, NEEDS_SUBGROUPS};

#[test]
fn every_kernel_validates() {
    let failures: Vec<String> = KERNELS
        .iter()
        .filter(|(name, _)| !NEEDS_IMPORTER.contains(name))
        .filter_map(|(name, _)| validate_kernel(name).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} kernels fail naga validation:\n\n{}",
        failures.len(),
        KERNELS.len(),
        failures.join("\n\n")
    );
}

/// The subgroup kernels (`NEEDS_SUBGROUPS`: the `subgroup` modes of the slot allocation and the
/// displacement maximum, src/gpu/stepper.rs) validate with naga's `Capabilities::SUBGROUP` and
/// fail without it, so they are modules of their own; `every_kernel_validates` checks every other
/// kernel with the default capabilities, so none of those holds a subgroup operation (a device
/// without `Features::SUBGROUP` compiles them). The modes' entry points are in their modules.
#[test]
fn subgroup_kernels_validate_only_with_the_subgroup_capability() {
    use naga::valid::Capabilities as C;
    assert!(!NEEDS_SUBGROUPS.is_empty());
    for name in NEEDS_SUBGROUPS {
        assert!(KERNELS.iter().any(|(n, _)| n == name), "{name} not in KERNELS");
        if let Err(e) = validate_kernel_with(name, C::default() | C::SUBGROUP) {
            panic!("{name} fails with the SUBGROUP capability:\n{e}");
        }
        let err = validate_kernel_with(name, C::default())
            .expect_err(&format!("{name} validates without the SUBGROUP capability"));
        assert!(
            err.to_lowercase().contains("subgroup"),
            "{name}: unexpected error:\n{err}"
        );
    }
    for (shader, entry) in [
        ("integrate_subgroup", "integrate_subgroup"),
        ("node_forces_subgroup", "node_forces_integrate_subgroup"),
        ("contact_pairs_subgroup", "shell_forces_contact_pairs_subgroup"),
    ] {
        let module = naga::front::wgsl::parse_str(&shader_source(shader).unwrap()).unwrap();
        assert!(
            module.entry_points.iter().any(|e| e.name == entry),
            "no entry point {entry} in shaders/{shader}.wgsl"
        );
    }
}

/// First line (1-based) of each part in the joined module, computed independently of
/// `locate_in_parts`: count the newlines in front of it.
fn part_starts(parts: &[(&str, &str)]) -> Vec<usize> {
    (0..parts.len())
        .map(|k| {
            let before: Vec<&str> = parts[..k].iter().map(|p| p.1).collect();
            if k == 0 {
                1
            } else {
                format!("{}\n", before.join("\n")).matches('\n').count() + 1
            }
        })
        .collect()
}

/// Every line of every part of every kernel maps back to its own file and line.
#[test]
fn line_mapping_matches_the_compiled_source() {
    for (name, _) in KERNELS {
        let parts = parts(name).expect("listed kernel has parts");
        let parts: Vec<(&str, &str)> = parts.iter().map(|(n, s)| (*n, s.as_str())).collect();
        let full = shader_source(name).unwrap();
        let joined = parts.iter().map(|p| p.1).collect::<Vec<_>>().join("\n");
        assert_eq!(full, joined, "{name}: shader_source is not the parts joined with \\n");
        let full_lines: Vec<&str> = full.lines().collect();
        for ((file, src), start) in parts.iter().zip(part_starts(&parts)) {
            for (i, line) in src.lines().enumerate() {
                let global = start + i;
                assert_eq!(full_lines[global - 1], line, "{name}: {file}.wgsl line {}", i + 1);
                assert_eq!(
                    locate_in_parts(&parts, global),
                    (format!("shaders/{file}.wgsl"), i + 1),
                    "{name}: compiled line {global}"
                );
            }
        }
    }
    // With common.wgsl alone in front (no includes), the kernel starts after common's lines plus
    // the empty line the joining newline adds (common.wgsl ends with a newline).
    assert!(COMMON.ends_with('\n'));
    let p = [("common", COMMON), ("k", "fn f() {}\n")];
    assert_eq!(
        locate_in_parts(&p, softdem::shaders::common_lines() + 2),
        ("shaders/k.wgsl".to_string(), 1)
    );
}

#[test]
fn broken_kernel_is_reported_at_its_file_and_line() {
    // Line 4 uses an undefined identifier (a parse-stage error).
    let broken = "// deliberately broken\n\
                  @compute @workgroup_size(64)\n\
                  fn main() {\n    let x: u32 = not_defined + 1u;\n}\n";
    let err = validate_parts(&[("common", COMMON), ("broken", broken)]).unwrap_err();
    assert!(
        err.starts_with("shaders/broken.wgsl:4: broken: parse error"),
        "unexpected report:\n{err}"
    );
    assert!(err.contains("not_defined"), "{err}");

    // A validation-stage error (not a parse error): storing through a read-only binding.
    let invalid = "@group(0) @binding(0) var<storage, read> d: array<u32>;\n\
                   @compute @workgroup_size(64)\n\
                   fn main() {\n\
                   \x20   d[0] = 1u;\n}\n";
    let err = validate_parts(&[("common", COMMON), ("invalid", invalid)]).unwrap_err();
    assert!(
        err.starts_with("shaders/invalid.wgsl:4: invalid: validation error"),
        "unexpected report:\n{err}"
    );

    // An error in an included library (a part without a final newline, then the kernel).
    let lib = "fn lib_ok() -> u32 { return 1u; }\nfn lib_bad() -> u32 { return 1.5; }";
    let kernel = "@compute @workgroup_size(1)\nfn main() {}\n";
    let err = validate_parts(&[("common", COMMON), ("lib", lib), ("k", kernel)]).unwrap_err();
    assert!(err.starts_with("shaders/lib.wgsl:2: k:"), "unexpected report:\n{err}");
    let bad_kernel = "@compute @workgroup_size(1)\nfn main() { let a: i32 = 1u; }\n";
    let good_lib = "fn lib_ok() -> u32 { return 1u; }\nfn lib_ok2() -> u32 { return 2u; }";
    let err = validate_parts(&[("common", COMMON), ("lib", good_lib), ("k", bad_kernel)]).unwrap_err();
    assert!(err.starts_with("shaders/k.wgsl:2: k:"), "unexpected report:\n{err}");

    // An error inside common.wgsl is attributed to common.wgsl.
    let bad_common = format!("{COMMON}fn oops() -> u32 {{ return 1.5; }}\n");
    let line = bad_common.lines().count();
    let err = validate_parts(&[("common", &bad_common), ("k", kernel)]).unwrap_err();
    assert!(
        err.starts_with(&format!("shaders/common.wgsl:{line}: k:")),
        "unexpected report:\n{err}"
    );
}

#[test]
fn every_shader_file_is_listed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("read shaders/") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("wgsl") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        if stem == "common" {
            continue;
        }
        match KERNELS.iter().find(|(n, _)| *n == stem) {
            None => missing.push(format!("shaders/{stem}.wgsl")),
            Some((_, src)) => {
                let on_disk = std::fs::read_to_string(&path).unwrap();
                assert_eq!(
                    *src, on_disk,
                    "KERNELS entry {stem:?} does not embed shaders/{stem}.wgsl"
                );
            }
        }
    }
    assert!(
        missing.is_empty(),
        "kernel files not listed in softdem::shaders::KERNELS (src/shaders.rs): {missing:?}"
    );
}

/// `#import` composes depth first, each file once, imports before importers; import lines become
/// comments in place (same line count), and errors name the importing file and line.
#[test]
fn imports_resolve_depth_first_once_and_report_errors() {
    let files = [
        ("a", "// a\nfn a() {}\n"),
        ("b", "#import a\nfn b() { a(); }\n"),
        ("c", "#import a\n#import b\nfn c() { b(); }\n"),
        ("k", "// kernel\n#import c\n  #import b\nfn k() { c(); }\n"),
    ];
    let composed = compose("k", &files).unwrap();
    let order: Vec<&str> = composed.iter().map(|p| p.0).collect();
    assert_eq!(order, ["a", "b", "c", "k"]);
    assert_eq!(
        composed[3].1,
        "// kernel\n// #import c\n//   #import b\nfn k() { c(); }\n"
    );
    for ((_, text), (_, src)) in composed.iter().zip([files[0], files[1], files[2], files[3]]) {
        assert_eq!(text.lines().count(), src.lines().count());
        assert!(imports_of(text).is_empty(), "{text}");
    }

    let missing = [("k", "// kernel\n#import nowhere\nfn k() {}\n")];
    let err = compose("k", &missing).unwrap_err();
    assert!(err.starts_with("shaders/k.wgsl:2: #import nowhere:"), "{err}");

    let cycle = [("x", "#import y\n"), ("y", "#import z\n"), ("z", "#import x\n")];
    assert_eq!(compose("x", &cycle).unwrap_err(), "#import cycle: x -> y -> z -> x");
    assert!(compose("nothing", &files).unwrap_err().contains("unknown shader"));
}

/// The kernels' modules in the order they compile: `common` first, the double-f32 helpers (one
/// copy, df32.wgsl) before the records that use them, each library once.
#[test]
fn kernel_modules_share_one_copy_of_each_library() {
    let order = |k: &str| parts(k).unwrap().iter().map(|p| p.0).collect::<Vec<_>>();
    assert_eq!(
        order("shell_forces"),
        [
            "common",
            "df32",
            "spd_records",
            "model",
            "stretch",
            "bending",
            "core_pressure",
            "shell_forces"
        ]
    );
    // contact_pairs runs shell_forces per node first (`shell_forces_contact_pairs`).
    assert_eq!(
        order("contact_pairs"),
        [
            "common",
            "df32",
            "spd_records",
            "model",
            "stretch",
            "bending",
            "core_pressure",
            "shell_forces",
            "contact",
            "contact_pairs"
        ]
    );
    assert_eq!(
        order("node_forces"),
        [
            "common",
            "df32",
            "spd_records",
            "model",
            "integrate",
            "history",
            "node_forces"
        ]
    );
    assert_eq!(
        order("modal_spd_contact"),
        [
            "common",
            "df32",
            "spd_records",
            "modal_lib",
            "fixed_reduce",
            "modal_body",
            "modal_spd_contact"
        ]
    );
    // The wall, plane and load-cell reductions share one tree (fixed_reduce.wgsl).
    for k in ["sphere_step", "beads", "modal_body", "membrane_rims"] {
        assert!(order(k).contains(&"fixed_reduce"), "{k} imports fixed_reduce");
    }
    // One search of the sorted history (history.wgsl) for the remap and the mirror entries.
    for k in ["broad_phase", "node_forces", "sphere_cell_list"] {
        assert!(order(k).contains(&"history"), "{k} imports history");
    }
    for (name, _) in KERNELS.iter().filter(|(n, _)| !NEEDS_IMPORTER.contains(n)) {
        let source = shader_source(name).unwrap();
        for f in [
            "fn opaque(",
            "fn df_add(",
            "fn linear_id(",
            "struct NodeState {",
            "fn find_sorted(",
        ] {
            assert!(source.matches(f).count() <= 1, "{name}: {f} defined twice");
        }
    }
}
