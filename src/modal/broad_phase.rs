//! Broad phase between modal bodies: bounding circles (radius = reference extent + deformation
//! room) binned in a uniform cell list of cell size 2·r_max + skin, so each body only looks at the
//! 3×3 cells around its own (O(n) for bounded density, not all pairs). Lists are sorted by
//! partner index (deterministic). Runs on the host between batches for both backends (bodies are
//! few; the per-node work stays on the device).

use super::layout::NONE;
use super::MAX_NB;
use std::collections::BTreeMap;

/// Per body, up to MAX_NB partner indices (NONE-padded), and for each entry the slot of this body
/// in the partner's list.
pub fn neighbour_lists(centres: &[[f32; 2]], radii: &[f32], skin: f32) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    let n = centres.len();
    let rmax = radii.iter().cloned().fold(0.0, f32::max);
    let cell = 2.0 * rmax + skin;
    let key = |p: [f32; 2]| ((p[0] / cell).floor() as i64, (p[1] / cell).floor() as i64);
    let mut cells: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    for (i, c) in centres.iter().enumerate() {
        cells.entry(key(*c)).or_default().push(i);
    }
    let mut nb = vec![NONE; n * MAX_NB];
    for i in 0..n {
        let (cx, cy) = key(centres[i]);
        let mut list = Vec::new();
        for dy in -1..=1 {
            for dx in -1..=1 {
                if let Some(v) = cells.get(&(cx + dx, cy + dy)) {
                    for &j in v {
                        if j == i {
                            continue;
                        }
                        let d =
                            ((centres[i][0] - centres[j][0]).powi(2) + (centres[i][1] - centres[j][1]).powi(2)).sqrt();
                        if d <= radii[i] + radii[j] + skin {
                            list.push(j as u32);
                        }
                    }
                }
            }
        }
        list.sort_unstable();
        anyhow::ensure!(
            list.len() <= MAX_NB,
            "modal broad phase: body {i} has {} neighbours (at most {MAX_NB})",
            list.len()
        );
        for (s, j) in list.iter().enumerate() {
            nb[i * MAX_NB + s] = *j;
        }
    }
    let mut back = vec![NONE; n * MAX_NB];
    for i in 0..n {
        for s in 0..MAX_NB {
            let j = nb[i * MAX_NB + s];
            if j != NONE {
                let t = (0..MAX_NB)
                    .find(|&t| nb[j as usize * MAX_NB + t] == i as u32)
                    .expect("symmetric lists");
                back[i * MAX_NB + s] = t as u32;
            }
        }
    }
    Ok((nb, back))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_match_brute_force() {
        let centres: Vec<[f32; 2]> = (0..30).map(|i| [(i % 6) as f32 * 2.1, (i / 6) as f32 * 2.1]).collect();
        let radii = vec![1.0; 30];
        let (nb, back) = neighbour_lists(&centres, &radii, 0.2).unwrap();
        for i in 0..30 {
            let mut brute: Vec<u32> = (0..30)
                .filter(|&j| {
                    j != i && {
                        let d =
                            ((centres[i][0] - centres[j][0]).powi(2) + (centres[i][1] - centres[j][1]).powi(2)).sqrt();
                        d <= 2.2
                    }
                })
                .map(|j| j as u32)
                .collect();
            brute.sort();
            let got: Vec<u32> = nb[i * MAX_NB..(i + 1) * MAX_NB]
                .iter()
                .cloned()
                .filter(|&j| j != NONE)
                .collect();
            assert_eq!(got, brute, "body {i}");
            for (s, j) in got.iter().enumerate() {
                assert_eq!(nb[*j as usize * MAX_NB + back[i * MAX_NB + s] as usize], i as u32);
            }
        }
    }
}
