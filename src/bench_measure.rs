//! What the benches measure with: the process's CPU time (on a machine shared with other work the
//! wall time measures the load as much as the code, the CPU time much less) and the log-log slope
//! of cost against size (linear scaling reads 1).

/// User + system CPU seconds of this process, all threads, from /proc/self/stat (Linux, 100 ticks
/// a second; None elsewhere).
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses): utime and stime are the 12th and
    // 13th of them (fields 14 and 15 of the line).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Least-squares slope of ln(cost) against ln(size), from (size, cost) pairs.
pub fn loglog_slope(cost: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = cost.iter().map(|(n, c)| (n.ln(), c.ln())).collect();
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    sxy / sxx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_power_law_and_a_cpu_time() {
        let c: Vec<(f64, f64)> = [1e3f64, 1e4, 1e5].iter().map(|&n| (n, 3.0 * n.powf(1.1))).collect();
        assert!((loglog_slope(&c) - 1.1).abs() < 1e-12);
        let t = process_cpu_seconds().expect("Linux /proc/self/stat");
        assert!(t >= 0.0);
    }
}
