//! `softdem bench --gpu-report` (src/gpu/report.rs), run small on the test adapter.

/// The lent-GPU harness (src/gpu/report.rs) on a small size: every section is printed, the
/// throughput rows parse, the per-kernel times and the memory table are there, and two runs from
/// the same scene (cells, spheres) are bit-identical on this device.
#[test]
fn the_gpu_report_measures_and_checks_reruns() {
    let mut out = Vec::new();
    let (results, spheres, _) = softdem::gpu::report::gpu_report(&mut out, &[12], &[4], 0.3).unwrap();
    let text = String::from_utf8(out).unwrap();
    for section in [
        "## floating point",
        "## dispatch cost",
        "## SPD compaction bench",
        "## targets",
    ] {
        assert!(text.contains(section), "missing {section}:\n{text}");
    }
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert!(r.nodes > 300 && r.steps > 0 && r.seconds >= 0.3, "{r:?}");
    assert!(r.node_steps_per_s() > 0.0 && r.bytes_per_node > 100.0, "{r:?}");
    assert_eq!(r.hashes[0], r.hashes[1], "two GPU runs differ");
    assert!(text.contains(&format!(
        "PASS two runs of 100 steps bit-identical at {} nodes",
        r.nodes
    )));
    assert!(softdem::gpu::report::wgpu_version().starts_with("30."));
    // Per-kernel times (timestamp queries; lavapipe has them): every kernel of a step, each
    // positive, their sum within a factor of the wall time of the same steps (not a timing
    // assertion: a GPU's kernels cannot take longer than the steps, and they are most of them).
    assert!(text.contains("## per-kernel GPU time"), "{text}");
    let p = r
        .kernels
        .as_ref()
        .expect("lavapipe has TIMESTAMP_QUERY: per-kernel times measured");
    let entries: Vec<&str> = p.kernels.iter().map(|k| k.entry.as_str()).collect();
    for kernel in [
        "node_forces_integrate",
        "core_area",
        "rebuild_check",
        "shell_forces_contact_pairs",
    ] {
        // shell_forces_contact_pairs: `_direct` on a CPU adapter (SlotAllocation).
        assert!(
            entries.iter().any(|e| e.starts_with(kernel)),
            "{kernel} not timed: {entries:?}"
        );
        let line = format!("{},{kernel}", r.nodes);
        assert!(text.contains(&line), "no line {line}:\n{text}");
    }
    assert!(p.kernels.iter().all(|k| k.ns > 0.0 && k.dispatches > 0), "{p:?}");
    let (kernels, wall) = (p.kernel_us_per_step(), p.wall_us_per_step());
    assert!(
        kernels <= 1.5 * wall && kernels >= wall / 100.0,
        "kernels {kernels} µs/step against wall {wall} µs/step"
    );
    // The memory table adds up to the bytes per node.
    assert!(text.contains("## GPU memory by buffer"), "{text}");
    let sum: u64 = r.buffers.iter().map(|(_, b)| b).sum();
    assert_eq!(sum as f64, r.bytes_per_node * r.nodes as f64);
    let s = &spheres[0];
    assert_eq!(s.spheres, 64);
    assert!(
        s.steps > 0 && s.sphere_steps_per_s() > 0.0 && s.bytes_per_sphere > 0.0,
        "{s:?}"
    );
    assert_eq!(s.hashes[0], s.hashes[1], "two GPU sphere runs differ");
    assert!(text.contains("PASS two runs of 100 steps bit-identical at 64 spheres"));
}
