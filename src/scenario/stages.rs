//! Loading protocol: `[[stages]]` resolved against the named bodies into actions (what the
//! stage imposes) and stop conditions (when it ends). The driver (`run/`) executes them.

// `!(x > 0.0)` on purpose: NaN must fail these checks too.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::geometry::Geometry;
use super::Problem;
use crate::model::Scene;
use serde::{Deserialize, Serialize};

/// `[[stages]]`: one loading stage, selected by `kind`, with its stop condition.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StageSpec {
    /// deposit | gravity | move_wall | hold | unload | servo | force
    pub kind: String,
    pub name: Option<String>,
    // Stop conditions (the first one met ends the stage).
    pub steps: Option<u64>,
    pub time: Option<f64>,
    pub ke_below: Option<f64>,
    pub strain: Option<f64>,
    pub stress: Option<f64>,
    pub displacement: Option<f64>,
    pub tolerance: Option<f64>,
    /// Ends the stage when its wall first carries a contact force (first contact); only `true`.
    pub touch: Option<bool>,
    pub min_steps: Option<u64>,
    pub max_steps: Option<u64>,
    // What the stage does.
    /// A pair (x, y); a triple in a `[spheres]` scenario.
    pub gravity: Option<Vec<f64>>,
    pub wall: Option<String>,
    /// A pair (x, y); a triple in a `[spheres]` scenario.
    pub velocity: Option<Vec<f64>>,
    pub target_stress: Option<f64>,
    pub gain: Option<f64>,
    pub max_speed: Option<f64>,
    pub target: Option<String>,
    pub nodes: Option<Vec<i64>>,
    pub force: Option<[f64; 2]>,
    pub total_force: Option<[f64; 2]>,
    pub persist: Option<bool>,
    /// σ_c of the membrane (`[spheres.membrane]`) at the end of `ramp_time` (then held).
    pub confining_pressure: Option<f64>,
    /// Time over which σ_c goes linearly to `confining_pressure` (default 0: at once).
    pub ramp_time: Option<f64>,
}

/// Which side of the sample a wall bounds (`[measure]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Side {
    Top,
    Bottom,
    Left,
    Right,
}

impl Side {
    /// Unit vector from the wall into the sample (the compressive direction of motion); the
    /// vertical axis is y in 2D and z in 3D.
    pub fn inward(self, dimension: u32) -> [f64; 3] {
        let up = if dimension == 3 {
            [0.0, 0.0, 1.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        match self {
            Side::Top => up.map(|x| -x),
            Side::Bottom => up,
            Side::Left => [1.0, 0.0, 0.0],
            Side::Right => [-1.0, 0.0, 0.0],
        }
    }

    pub fn vertical(self) -> bool {
        matches!(self, Side::Top | Side::Bottom)
    }
}

/// The walls bounding the sample, as body ids.
#[derive(Clone, Copy, Debug, Default)]
pub struct MeasureWalls {
    pub top: Option<u32>,
    pub bottom: Option<u32>,
    pub left: Option<u32>,
    pub right: Option<u32>,
}

impl MeasureWalls {
    pub fn side_of(&self, wall: u32) -> Option<Side> {
        [
            (self.top, Side::Top),
            (self.bottom, Side::Bottom),
            (self.left, Side::Left),
            (self.right, Side::Right),
        ]
        .into_iter()
        .find(|(w, _)| *w == Some(wall))
        .map(|(_, s)| s)
    }
}

/// What a stage imposes while it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Let the sample settle (optionally under a new gravity).
    Deposit { gravity: Option<[f64; 3]> },
    /// Set gravity from now on (no steps).
    Gravity([f64; 3]),
    /// Move a wall at constant velocity.
    MoveWall { wall: u32, velocity: [f64; 3] },
    /// Keep every wall still.
    Hold,
    /// Move a wall back (default: the reverse of its last `move_wall` velocity).
    Unload { wall: u32, velocity: [f64; 3] },
    /// Move a wall so that the stress on it approaches a target.
    Servo {
        wall: u32,
        side: Side,
        target: f64,
        gain: f64,
        max_speed: f64,
    },
    /// Add a force to every node of a set.
    Force {
        nodes: Vec<u32>,
        force: [f64; 2],
        persist: bool,
    },
}

/// When a stage ends: the first condition met (after `min_steps`), or `max_steps`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stop {
    pub steps: Option<u64>,
    pub time: Option<f64>,
    pub ke_below: Option<f64>,
    pub strain: Option<f64>,
    pub stress: Option<f64>,
    pub displacement: Option<f64>,
    pub tolerance: Option<f64>,
    /// Ends at the first contact force on the stage's wall (`touch = true`).
    pub touch: bool,
    pub min_steps: u64,
    pub max_steps: Option<u64>,
}

/// A stage's confining stress on a membrane (`confining_pressure`, `ramp_time`): σ_c goes
/// linearly from its value at the stage's start to `target` over `ramp_time`, then holds (and
/// keeps its value after the stage).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Confining {
    pub target: f64,
    pub ramp_time: f64,
}

/// One resolved stage.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub name: String,
    pub kind: String,
    pub action: Action,
    pub stop: Stop,
    /// σ_c of a membrane (3D scenarios with `[spheres.membrane]` only).
    pub confining: Option<Confining>,
}

impl Stage {
    /// The wall a stage moves, if any.
    pub fn wall(&self) -> Option<u32> {
        match &self.action {
            Action::MoveWall { wall, .. } | Action::Unload { wall, .. } | Action::Servo { wall, .. } => Some(*wall),
            _ => None,
        }
    }

    /// Stages that take no steps.
    pub fn instant(&self) -> bool {
        matches!(self.action, Action::Gravity(_))
    }
}

const STOPS: &[&str] = &[
    "steps",
    "time",
    "ke_below",
    "strain",
    "stress",
    "displacement",
    "tolerance",
    "touch",
];

/// Allowed keys of each stage kind (besides `kind` and `name`).
pub const STAGE_KINDS: &[(&str, &[&str])] = &[
    (
        "deposit",
        &[
            "gravity",
            "steps",
            "time",
            "ke_below",
            "min_steps",
            "max_steps",
            "confining_pressure",
            "ramp_time",
        ],
    ),
    ("gravity", &["gravity"]),
    (
        "move_wall",
        &[
            "wall",
            "velocity",
            "steps",
            "time",
            "strain",
            "stress",
            "displacement",
            "touch",
            "min_steps",
            "max_steps",
            "confining_pressure",
            "ramp_time",
        ],
    ),
    (
        "hold",
        &[
            "steps",
            "time",
            "ke_below",
            "min_steps",
            "max_steps",
            "confining_pressure",
            "ramp_time",
        ],
    ),
    (
        "unload",
        &[
            "wall",
            "velocity",
            "steps",
            "time",
            "strain",
            "stress",
            "displacement",
            "touch",
            "min_steps",
            "max_steps",
            "confining_pressure",
            "ramp_time",
        ],
    ),
    (
        "servo",
        &[
            "wall",
            "target_stress",
            "gain",
            "max_speed",
            "tolerance",
            "ke_below",
            "steps",
            "time",
            "min_steps",
            "max_steps",
            "confining_pressure",
            "ramp_time",
        ],
    ),
    (
        "force",
        &[
            "target",
            "nodes",
            "force",
            "total_force",
            "persist",
            "steps",
            "time",
            "ke_below",
            "min_steps",
            "max_steps",
        ],
    ),
];

fn wall_id(i: usize, name: &Option<String>, geo: &Geometry) -> Result<u32, Problem> {
    let name = name
        .as_ref()
        .ok_or_else(|| Problem::new(format!("stages[{i}]"), "missing field `wall`"))?;
    geo.walls
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, id)| *id)
        .ok_or_else(|| {
            Problem::new(
                format!("stages[{i}].wall"),
                format!(
                    "no wall named \"{name}\" (walls: {})",
                    geo.walls.iter().map(|w| w.0.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )
        })
}

/// Resolves every stage; `check_every` sets the default `min_steps` of `ke_below`. Vectors
/// (checked to have the scenario's dimension when the file was read) become (x, y, z).
pub fn resolve(
    specs: &[StageSpec],
    geo: &Geometry,
    measure: &MeasureWalls,
    scene: &Scene,
    check_every: u64,
) -> Result<Vec<Stage>, Problem> {
    let mut out: Vec<Stage> = vec![];
    for (i, s) in specs.iter().enumerate() {
        let p = format!("stages[{i}]");
        let name = s.name.clone().unwrap_or_else(|| format!("{}{}", s.kind, i));
        for (key, v) in [
            ("time", s.time),
            ("ke_below", s.ke_below),
            ("displacement", s.displacement),
            ("tolerance", s.tolerance),
            ("gain", s.gain),
            ("max_speed", s.max_speed),
        ] {
            if let Some(x) = v {
                if !(x >= 0.0) {
                    return Err(Problem::new(format!("{p}.{key}"), format!("{key} = {x} must be ≥ 0")));
                }
            }
        }
        let v3 = |v: &Vec<f64>| super::vector3(v);
        let action = match s.kind.as_str() {
            "deposit" => Action::Deposit {
                gravity: s.gravity.as_ref().map(v3),
            },
            "gravity" => Action::Gravity(
                s.gravity
                    .as_ref()
                    .map(v3)
                    .ok_or_else(|| Problem::new(p.clone(), "missing field `gravity`"))?,
            ),
            "move_wall" => Action::MoveWall {
                wall: wall_id(i, &s.wall, geo)?,
                velocity: s
                    .velocity
                    .as_ref()
                    .map(v3)
                    .ok_or_else(|| Problem::new(p.clone(), "missing field `velocity`"))?,
            },
            "hold" => Action::Hold,
            "unload" => {
                let wall = wall_id(i, &s.wall, geo)?;
                let velocity = match &s.velocity {
                    Some(v) => v3(v),
                    None => out
                        .iter()
                        .rev()
                        .find_map(|st| match st.action {
                            Action::MoveWall { wall: w, velocity } if w == wall => Some(velocity.map(|x| -x)),
                            _ => None,
                        })
                        .ok_or_else(|| {
                            Problem::new(
                                p.clone(),
                                "missing field `velocity` (no earlier move_wall of this wall to reverse)",
                            )
                        })?,
                };
                Action::Unload { wall, velocity }
            }
            "servo" => {
                let wall = wall_id(i, &s.wall, geo)?;
                let side = measure.side_of(wall).ok_or_else(|| {
                    Problem::new(
                        format!("{p}.wall"),
                        "a servo wall must be one of the [measure] walls (top, bottom, left, right)",
                    )
                })?;
                let target = s
                    .target_stress
                    .ok_or_else(|| Problem::new(p.clone(), "missing field `target_stress`"))?;
                if !(target > 0.0) {
                    return Err(Problem::new(
                        format!("{p}.target_stress"),
                        "target_stress must be > 0 (compression)",
                    ));
                }
                let gain = s.gain.ok_or_else(|| Problem::new(p.clone(), "missing field `gain`"))?;
                Action::Servo {
                    wall,
                    side,
                    target,
                    gain,
                    max_speed: s.max_speed.unwrap_or(gain),
                }
            }
            "force" => {
                let target = s
                    .target
                    .as_ref()
                    .ok_or_else(|| Problem::new(p.clone(), "missing field `target`"))?;
                let bodies = geo.groups.get(target).ok_or_else(|| {
                    Problem::new(
                        format!("{p}.target"),
                        format!(
                            "no bodies named \"{target}\" (names: {})",
                            geo.groups.keys().cloned().collect::<Vec<_>>().join(", ")
                        ),
                    )
                })?;
                let mut nodes = vec![];
                for &b in bodies {
                    let body = scene.bodies[b as usize];
                    match &s.nodes {
                        None => nodes.extend(body.first..body.first + body.count),
                        Some(list) => {
                            for &k in list {
                                let local = if k < 0 { body.count as i64 + k } else { k };
                                if local < 0 || local >= body.count as i64 {
                                    return Err(Problem::new(
                                        format!("{p}.nodes"),
                                        format!("node {k} is outside 0..{} of \"{target}\"", body.count),
                                    ));
                                }
                                nodes.push(body.first + local as u32);
                            }
                        }
                    }
                }
                let force = match (s.force, s.total_force) {
                    (Some(f), None) => f,
                    (None, Some(f)) => [f[0] / nodes.len() as f64, f[1] / nodes.len() as f64],
                    (Some(_), Some(_)) => {
                        return Err(Problem::new(
                            format!("{p}.total_force"),
                            "give either force or total_force, not both",
                        ))
                    }
                    (None, None) => return Err(Problem::new(p.clone(), "missing field `force` (or `total_force`)")),
                };
                Action::Force {
                    nodes,
                    force,
                    persist: s.persist.unwrap_or(false),
                }
            }
            other => {
                return Err(Problem::new(
                    format!("{p}.kind"),
                    format!(
                        "kind = \"{other}\" is not one of {}",
                        STAGE_KINDS.iter().map(|k| k.0).collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        };
        let stop = Stop {
            steps: s.steps,
            time: s.time,
            ke_below: s.ke_below,
            strain: s.strain,
            stress: s.stress,
            displacement: s.displacement,
            tolerance: s.tolerance,
            touch: s.touch.unwrap_or(false),
            min_steps: s
                .min_steps
                .unwrap_or(if s.ke_below.is_some() { 10 * check_every } else { 0 }),
            max_steps: s.max_steps,
        };
        let has_stop = [
            stop.steps.is_some(),
            stop.time.is_some(),
            stop.ke_below.is_some(),
            stop.strain.is_some(),
            stop.stress.is_some(),
            stop.displacement.is_some(),
            stop.tolerance.is_some(),
            stop.touch,
        ]
        .iter()
        .any(|&b| b);
        if s.touch == Some(false) {
            return Err(Problem::new(
                format!("{p}.touch"),
                "touch = false is not a stop condition: set it to true (end at the wall's first contact) or remove it",
            ));
        }
        if !has_stop && !matches!(action, Action::Gravity(_)) {
            return Err(Problem::new(
                p.clone(),
                format!(
                    "stage \"{name}\" has no stop condition: give one of {}",
                    STOPS.join(", ")
                ),
            ));
        }
        if (stop.strain.is_some() || stop.stress.is_some()) && measure.top.is_none() && measure.left.is_none() {
            let key = if stop.strain.is_some() { "strain" } else { "stress" };
            return Err(Problem::new(
                format!("{p}.{key}"),
                format!("{key} needs the sample walls: add a [measure] table or a box"),
            ));
        }
        let confining = match (s.confining_pressure, s.ramp_time) {
            (None, None) => None,
            (None, Some(_)) => {
                return Err(Problem::new(
                    format!("{p}.ramp_time"),
                    "ramp_time needs confining_pressure (the σ_c it ramps to)",
                ))
            }
            (Some(target), ramp) => {
                if !(target >= 0.0) || !target.is_finite() {
                    return Err(Problem::new(
                        format!("{p}.confining_pressure"),
                        format!("confining_pressure = {target} must be ≥ 0"),
                    ));
                }
                let ramp_time = ramp.unwrap_or(0.0);
                if !(ramp_time >= 0.0) || !ramp_time.is_finite() {
                    return Err(Problem::new(
                        format!("{p}.ramp_time"),
                        format!("ramp_time = {ramp_time} must be ≥ 0"),
                    ));
                }
                Some(Confining { target, ramp_time })
            }
        };
        out.push(Stage {
            name,
            kind: s.kind.clone(),
            action,
            stop,
            confining,
        });
    }
    Ok(out)
}

/// Refuses `confining_pressure` in a scenario without a membrane (it sets a membrane's σ_c).
pub fn refuse_confining(stages: &[Stage]) -> Result<(), Problem> {
    match stages.iter().position(|s| s.confining.is_some()) {
        None => Ok(()),
        Some(i) => Err(Problem::new(
            format!("stages[{i}].confining_pressure"),
            "confining_pressure sets the σ_c of a membrane: this scenario has no [spheres.membrane]",
        )),
    }
}
