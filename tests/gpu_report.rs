//! `softdem bench --gpu-report` (src/gpu/report.rs), run small on the test adapter.

/// The lent-GPU harness (src/gpu/report.rs) on a small size: every section is printed, the
/// throughput row parses, and two runs from the same scene are bit-identical on this device.
#[test]
fn the_gpu_report_measures_and_checks_reruns() {
    let mut out = Vec::new();
    let (results, _) = softdem::gpu::report::gpu_report(&mut out, &[12], 0.3).unwrap();
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
}
