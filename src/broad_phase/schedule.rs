//! The Verlet check of a list built with a skin: a pair is missed only if its two sides closed
//! more than the skin since the build, which cannot happen while every point moved at most
//! skin/2. Both the modal and the coupled lists are checked this way before each rebuild.

/// Fails when one of the points `which` moved farther than skin/2 from where it was at the last
/// build (`then`), naming the point (`what` and its index) and the keys to change.
pub fn check_moved(
    what: &str,
    now: &[[f32; 2]],
    then: &[[f32; 2]],
    which: impl IntoIterator<Item = usize>,
    skin: f32,
    rebuild_every: u32,
) -> anyhow::Result<()> {
    for i in which {
        let (a, b) = (now[i], then[i]);
        let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
        anyhow::ensure!(
            d <= 0.5 * skin,
            "broad phase (src/broad_phase): {what} {i} moved {d} > skin/2 = {} in {rebuild_every} steps; raise \
             `skin` or lower `rebuild_every`",
            0.5 * skin
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_past_half_the_skin_is_named() {
        let then = [[0.0, 0.0], [1.0, 1.0]];
        let now = [[0.04, 0.0], [1.0, 1.06]];
        assert!(check_moved("body", &now, &then, 0..2, 0.1, 10).is_err());
        assert!(check_moved("body", &now, &then, 0..1, 0.1, 10).is_ok());
        let e = check_moved("modal body", &now, &then, [1], 0.1, 10)
            .unwrap_err()
            .to_string();
        assert!(e.contains("modal body 1 moved"), "{e}");
    }
}
