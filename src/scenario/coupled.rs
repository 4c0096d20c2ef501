//! Scenario files that mix SPD bodies (`[[bodies]]`) and modal bodies (`[modal]`): resolved into a
//! `coupled::stepper::CoupledScene` (contact between the two kinds both ways, docs/modal.md) plus
//! the SPD `Built` the run driver uses for stages, measures and outputs.
//!
//! What the coupled stepper cannot do is refused here, located (file, line, key), before a run
//! starts: modes that move the centre of mass under gravity, from `[simulation]` or a stage
//! (gravity acts on a modal body's rigid part only), `[modal]` keys that belong to modal-only
//! runs (`dt`, `duration`, `steps`: the common dt and the stages decide) and initial velocities
//! of modal bodies (the coupled stepper starts them at rest), a modal body that overlaps an SPD
//! body in the initial state, and a `[[modal.walls]]` name that an SPD wall has.
//!
//! Walls: SPD walls (`box`, `wall`) act on SPD cells and, unless `[modal] spd_walls = false`, on
//! modal bodies too (`coupled::DIR_SPD_WALLS`: modal surface nodes vs the walls' segments, at
//! most `coupled::MAX_MB` modal bodies near one wall); `[[modal.walls]]` act on modal bodies only.
//! [`CoupledBuilt::warnings`] says so when a scene has modal walls, or nothing that holds its
//! modal bodies. Stages move walls of both kinds by name (`move_wall`, `unload`, `touch`,
//! `displacement`, as in SPD-only and modal-only runs): the modal walls follow the SPD walls in
//! `Built::geometry.walls` (so in `series.csv` and the driver's measures), with ids tagged by
//! [`MODAL_WALL`] (`engine::coupled` moves them as `engine::modal` does).

use super::modal::ModalBuilt;
use super::{Built, Problem, Scenario, ScenarioError};
use crate::coupled::stepper::CoupledScene;
use crate::coupled::DIR_SPD_WALLS;
use crate::model::{TimeStep, BODY_FROZEN};

/// The bit that marks a `[[modal.walls]]` id among a coupled run's walls
/// (`Built::geometry.walls`, `engine::Controls::wall`): the wall's index with this bit set, so
/// that it never equals an SPD body id.
pub const MODAL_WALL: u32 = 1 << 31;

/// The `[[modal.walls]]` index of wall id `id` of a coupled run (none for an SPD wall).
pub fn modal_wall(id: u32) -> Option<usize> {
    (id & MODAL_WALL != 0).then_some((id & !MODAL_WALL) as usize)
}

/// A mixed scenario built.
#[derive(Clone, Debug)]
pub struct CoupledBuilt {
    /// The SPD side as the run driver sees it: time step = the common dt, gravity applied by the
    /// stepper (`scene.gravity`), not by the driver (`settings.gravity` = 0).
    pub built: Built,
    pub modal: ModalBuilt,
    /// What `coupled::stepper::cpu` / `gpu` step.
    pub scene: CoupledScene,
    /// Walls of one kind only (they do not act on the other kind).
    pub warnings: Vec<String>,
}

impl CoupledBuilt {
    /// The SPD walls (the first ones of `built.geometry.walls`; the modal walls follow).
    pub fn spd_walls(&self) -> usize {
        self.built.geometry.walls.len() - self.modal.scene.walls.len()
    }
}

impl Scenario {
    /// True when the file has SPD bodies and a `[modal]` section.
    pub fn is_mixed(&self) -> bool {
        self.file.modal.is_some() && !self.file.bodies.is_empty()
    }

    /// Builds a mixed scenario (an error when it is not one).
    pub fn build_coupled(&self) -> Result<CoupledBuilt, ScenarioError> {
        if !self.is_mixed() {
            return Err(self.error(Problem::new(
                "modal",
                "not a mixed scene: a coupled scene needs [[bodies]] and a [modal] section",
            )));
        }
        let modal = self.build_modal()?;
        // Stages name the modal walls too (after the SPD walls, ids tagged by MODAL_WALL).
        let modal_walls: Vec<(String, u32)> = modal
            .wall_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), MODAL_WALL | i as u32))
            .collect();
        let mut built = self.build_with_walls(&modal_walls)?;
        let n_spd_walls = built.geometry.walls.len() - modal_walls.len();
        for (i, name) in modal.wall_names.iter().enumerate() {
            if built.geometry.walls[..n_spd_walls].iter().any(|(n, _)| n == name) {
                return Err(self.error(Problem::new(
                    format!("modal.walls[{i}].name"),
                    format!(
                        "an SPD wall is named \"{name}\" too: stages move walls by name, give the modal wall \
                         another name (SPD walls: {})",
                        built.geometry.walls[..n_spd_walls]
                            .iter()
                            .map(|w| w.0.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )));
            }
        }
        // Gravity is the coupled steppers' (SPD `SimParams`, modal `CoupleParams`); the driver
        // starts from it and a gravity stage replaces it (`engine::coupled`).
        let g = built.settings.gravity;
        built.scene.gravity = [g[0] as f32, g[1] as f32];
        let mut scene = CoupledScene::new(built.scene.clone(), modal.scene.clone());
        let spd_walls = self.file.modal.as_ref().and_then(|m| m.spd_walls).unwrap_or(true);
        if spd_walls {
            scene.directions |= DIR_SPD_WALLS;
        }
        scene.spd.time_step = TimeStep::Fixed(scene.dt());
        built.scene.time_step = scene.spd.time_step;
        overlaps(self, &built, &modal, spd_walls).map_err(|p| self.error(p))?;
        let mut warnings = vec![];
        let modal_walls = modal.scene.walls.len();
        if n_spd_walls > 0 && modal_walls == 0 && !spd_walls {
            warnings.push(format!(
                "{n_spd_walls} SPD walls, [modal] spd_walls = false and no [[modal.walls]]: nothing holds the \
                 modal bodies (give [[modal.walls]] where they can reach the SPD walls)"
            ));
        }
        if modal_walls > 0 {
            warnings.push(format!(
                "{modal_walls} [[modal.walls]]: they act on modal bodies only, SPD cells pass through them \
                 (hold cells with SPD walls, a `box` or `wall` body)"
            ));
        }
        Ok(CoupledBuilt {
            built,
            modal,
            scene,
            warnings,
        })
    }
}

/// A modal body and an SPD body closer than the node's half-thickness in the initial state (a
/// node of the SPD body inside the modal body's level set, ε = 0): refused, as overlapping SPD
/// bodies are. SPD walls too (with `spd_walls = false` a modal body would pass through them).
fn overlaps(sc: &Scenario, built: &Built, modal: &ModalBuilt, spd_walls: bool) -> Result<(), Problem> {
    let scene = &built.scene;
    for (i, b) in modal.scene.bodies.iter().enumerate() {
        let (s, c) = (b.theta.sin() as f64, b.theta.cos() as f64);
        let reach = b.reference_radius() as f64;
        for (n, st) in scene.nodes.iter().zip(&scene.init) {
            let body = &scene.bodies[n.body as usize];
            let r = body.radius as f64;
            let p = st.pos();
            let d = [p[0] - b.position[0], p[1] - b.position[1]];
            if d[0].hypot(d[1]) > reach + r {
                continue;
            }
            // The node in the body's frame: Rᵀ d.
            let q = [c * d[0] + s * d[1], -s * d[0] + c * d[1]];
            if (b.level_set.bilinear([q[0] as f32, q[1] as f32]) as f64) < r {
                let k = n.body as usize;
                let from = built.geometry.origin[k];
                let frozen = body.flags & BODY_FROZEN != 0;
                return Err(Problem::new(
                    format!("modal.bodies[{i}].center"),
                    format!(
                        "modal body {} overlaps SPD body {k} (from bodies[{from}], {}) in the initial state{}",
                        modal.body_names[i],
                        sc.file.bodies[from].kind,
                        if frozen && !spd_walls {
                            " (with [modal] spd_walls = false SPD walls do not act on modal bodies: it would \
                             pass through)"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
    }
    Ok(())
}
