//! Bounding-circle broad phase over bodies: modal level-set bodies against each other (circle:
//! X and `bound_radius`) and SPD cells against modal bodies (`coupled::broad_phase::cell_circles`).
//! The circles are binned in one uniform grid of side 2·r_bin + skin (r_bin: the largest owner
//! circle or twice the median of the others), so each owner looks at the 3×3 bins around its
//! own (O(n) at bounded density); the few circles larger than r_bin (SPD walls, long beams) are
//! checked against every owner instead of filling every bin. A pair is listed when the circles
//! are closer than the skin. Lists are sorted by index (deterministic), then padded to fixed
//! widths; the candidates over primitives within these pairs (`super::primitives`) are what the
//! contact passes walk.

use crate::model::NONE;
use std::collections::BTreeMap;

/// A body's bounding circle; a negative radius leaves the body out (SPD bodies not coupled).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    pub centre: [f32; 2],
    pub radius: f32,
}

/// Per owner circle, the sorted indices of the `others` closer than `skin`. `same`: owners and
/// others are one set (a circle does not list itself).
pub fn near_lists(owners: &[Circle], others: &[Circle], same: bool, skin: f32) -> Vec<Vec<u32>> {
    let mut radii: Vec<f32> = others.iter().map(|c| c.radius).filter(|r| *r >= 0.0).collect();
    radii.sort_by(f32::total_cmp);
    let median = radii.get(radii.len() / 2).copied().unwrap_or(0.0);
    let rbin = owners.iter().map(|c| c.radius).fold(2.0 * median, f32::max);
    let side = 2.0 * rbin + skin;
    let key = |p: [f32; 2]| ((p[0] / side).floor() as i64, (p[1] / side).floor() as i64);
    let mut bins: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    let mut large = Vec::new();
    for (i, c) in others.iter().enumerate() {
        if c.radius > rbin {
            large.push(i);
        } else if c.radius >= 0.0 {
            bins.entry(key(c.centre)).or_default().push(i);
        }
    }
    owners
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let mut list = Vec::new();
            if m.radius < 0.0 {
                return list;
            }
            let (kx, ky) = key(m.centre);
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let bin = bins.get(&(kx + dx, ky + dy)).map(|v| v.as_slice()).unwrap_or(&[]);
                    // The large circles once, with the centre bin.
                    let extra: &[usize] = if (dx, dy) == (0, 0) { &large } else { &[] };
                    for &j in bin.iter().chain(extra) {
                        if same && j == i {
                            continue;
                        }
                        let o = &others[j];
                        let d = ((m.centre[0] - o.centre[0]).powi(2) + (m.centre[1] - o.centre[1]).powi(2)).sqrt();
                        if d <= m.radius + o.radius + skin {
                            list.push(j as u32);
                        }
                    }
                }
            }
            list.sort_unstable();
            list
        })
        .collect()
}

fn too_many(what: &str, i: usize, n: usize, width: usize, limit: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "broad phase (src/broad_phase/circles.rs): {what} {i} is near {n} bodies (at most {limit} = {width})"
    )
}

/// Fixed-width lists of one set against itself (`near_lists(c, c, true, ..)`, symmetric):
/// `nb[i · width + s]` = partner, NONE-padded. `what`, `limit`: the body and the width's name,
/// for the error.
pub fn pad_symmetric(lists: &[Vec<u32>], width: usize, what: &str, limit: &str) -> anyhow::Result<Vec<u32>> {
    let mut nb = vec![NONE; lists.len() * width];
    for (i, list) in lists.iter().enumerate() {
        if list.len() > width {
            return Err(too_many(what, i, list.len(), width, limit));
        }
        nb[i * width..i * width + list.len()].copy_from_slice(list);
    }
    Ok(nb)
}

/// Fixed-width lists between two sets A and B from A's lists (`near_lists(a, b, false, ..)`):
/// `a_side[a · wa + t]` = b, `b_side[b · wb + u]` = a; B's lists come out sorted because A is
/// visited in index order. `what_*`, `limit_*`: the two sides' names and widths' names, for the
/// errors.
pub fn pad_cross(
    a_lists: &[Vec<u32>],
    n_b: usize,
    (wa, what_a, limit_a): (usize, &str, &str),
    (wb, what_b, limit_b): (usize, &str, &str),
) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    let mut a_side = vec![NONE; a_lists.len() * wa];
    let mut b_side = vec![NONE; n_b * wb];
    let mut b_len = vec![0usize; n_b];
    for (a, list) in a_lists.iter().enumerate() {
        if list.len() > wa {
            return Err(too_many(what_a, a, list.len(), wa, limit_a));
        }
        for (t, &b) in list.iter().enumerate() {
            let u = b_len[b as usize];
            if u == wb {
                let n = a_lists.iter().filter(|l| l.contains(&b)).count();
                return Err(too_many(what_b, b as usize, n, wb, limit_b));
            }
            b_len[b as usize] += 1;
            a_side[a * wa + t] = b;
            b_side[b as usize * wb + u] = a as u32;
        }
    }
    Ok((a_side, b_side))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(owners: &[Circle], others: &[Circle], same: bool, skin: f32) -> Vec<Vec<u32>> {
        owners
            .iter()
            .enumerate()
            .map(|(i, m)| {
                (0..others.len())
                    .filter(|&j| {
                        let o = others[j];
                        let d = ((m.centre[0] - o.centre[0]).powi(2) + (m.centre[1] - o.centre[1]).powi(2)).sqrt();
                        !(same && i == j) && m.radius >= 0.0 && o.radius >= 0.0 && d <= m.radius + o.radius + skin
                    })
                    .map(|j| j as u32)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn one_set_lists_match_brute_force_and_are_symmetric() {
        let c: Vec<Circle> = (0..30)
            .map(|i| Circle {
                centre: [(i % 6) as f32 * 2.1, (i / 6) as f32 * 2.1],
                radius: 1.0,
            })
            .collect();
        let lists = near_lists(&c, &c, true, 0.2);
        assert_eq!(lists, brute(&c, &c, true, 0.2));
        assert!(lists.iter().any(|l| l.len() == 4), "a grid point has four neighbours");
        let nb = pad_symmetric(&lists, 6, "modal body", "MAX_NB").unwrap();
        for i in 0..30 {
            for s in 0..6 {
                let j = nb[i * 6 + s];
                if j != NONE {
                    assert!(nb[j as usize * 6..][..6].contains(&(i as u32)), "{j} lists {i}");
                }
            }
        }
        let e = pad_symmetric(&lists, 3, "modal body", "MAX_NB")
            .unwrap_err()
            .to_string();
        assert!(e.contains("is near 4 bodies (at most MAX_NB = 3)"), "{e}");
    }

    #[test]
    fn two_set_lists_match_brute_force_and_are_symmetric() {
        let cells: Vec<Circle> = (0..40)
            .map(|i| Circle {
                centre: [(i % 8) as f32 * 1.7, (i / 8) as f32 * 1.9],
                // Not coupled, a few walls (large circles, checked against every owner), cells.
                radius: if i % 7 == 3 {
                    -1.0
                } else if i % 19 == 5 {
                    2.5
                } else {
                    0.8
                },
            })
            .collect();
        let modal: Vec<Circle> = (0..6)
            .map(|i| Circle {
                centre: [1.0 + i as f32 * 2.3, 3.1],
                radius: 1.2,
            })
            .collect();
        let lists = near_lists(&modal, &cells, false, 0.1);
        assert_eq!(lists, brute(&modal, &cells, false, 0.1));
        assert!(
            lists.iter().flatten().any(|&c| c == 5),
            "a large circle (not binned) is listed"
        );
        let (wa, wb) = (16, 4);
        let (a, b) = pad_cross(
            &lists,
            cells.len(),
            (wa, "modal body", "MAX_CELLS"),
            (wb, "SPD cell", "MAX_MB"),
        )
        .unwrap();
        for (m, list) in lists.iter().enumerate() {
            for (t, &c) in list.iter().enumerate() {
                assert_eq!(a[m * wa + t], c);
                assert!(b[c as usize * wb..][..wb].contains(&(m as u32)), "cell {c} lists {m}");
            }
        }
        for c in 0..cells.len() {
            let got: Vec<u32> = (0..wb).map(|u| b[c * wb + u]).filter(|&m| m != NONE).collect();
            assert!(got.windows(2).all(|w| w[0] < w[1]), "cell {c}'s list is sorted");
        }
        let e = pad_cross(
            &lists,
            cells.len(),
            (wa, "modal body", "MAX_CELLS"),
            (1, "SPD cell", "MAX_MB"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("SPD cell") && e.contains("MAX_MB = 1"), "{e}");
    }
}
