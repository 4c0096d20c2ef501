//! CPU twin of `shaders/prefix_scan.wgsl` / [`crate::gpu::scan::PrefixScan`].

/// Exclusive prefix sum of `data` in place, with wrapping `u32` addition (as in WGSL); returns the
/// grand total (what the GPU scan writes to `data[n]`).
pub fn prefix_scan(data: &mut [u32]) -> u32 {
    let mut sum = 0u32;
    for x in data.iter_mut() {
        let v = *x;
        *x = sum;
        sum = sum.wrapping_add(v);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small() {
        let mut v = [3, 0, 2, 5];
        assert_eq!(prefix_scan(&mut v), 10);
        assert_eq!(v, [0, 3, 3, 5]);
        assert_eq!(prefix_scan(&mut []), 0);
        let mut w = [u32::MAX, 2, 1];
        assert_eq!(prefix_scan(&mut w), 2);
        assert_eq!(w, [0, u32::MAX, 1]);
    }
}
