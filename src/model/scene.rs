//! `Scene`: bodies, nodes, materials and the initial state, built by the generators below and
//! handed unchanged to either backend.

use super::df32::{atan2_det, cross, df_sub, dot};
use super::layout::*;

// `NodeState` and `BodyState`, the per-step records, are in `layout.rs` with the other records.

impl NodeState {
    /// Position as f64 (for output and tests).
    pub fn pos(&self) -> [f64; 2] {
        [
            self.pos_hi[0] as f64 + self.pos_lo[0] as f64,
            self.pos_hi[1] as f64 + self.pos_lo[1] as f64,
        ]
    }

    // Runs of consecutive fields as arrays, which the CPU's lane passes move into lanes four (or
    // two) fields at a time (`Lanes::transpose4`, `store_rows4`, `store_rows2`).

    /// [x_hi, y_hi, x_lo, y_lo].
    #[inline(always)]
    pub fn pos_row(&self) -> &[f32; 4] {
        self.fields::<0, 4>()
    }

    #[inline(always)]
    pub fn pos_row_mut(&mut self) -> &mut [f32; 4] {
        self.fields_mut::<0, 4>()
    }

    /// [v_x, v_y, f_x, f_y].
    #[inline(always)]
    pub fn vel_force_row(&self) -> &[f32; 4] {
        self.fields::<4, 4>()
    }

    #[inline(always)]
    pub fn vel_force_row_mut(&mut self) -> &mut [f32; 4] {
        self.fields_mut::<4, 4>()
    }

    /// [f_x, f_y, ℓ_p, θ_p] (the plastic state is its end).
    #[inline(always)]
    pub fn plastic_row(&self) -> &[f32; 4] {
        self.fields::<6, 4>()
    }

    /// [ℓ_p, θ_p].
    #[inline(always)]
    pub fn plastic_mut(&mut self) -> &mut [f32; 2] {
        self.fields_mut::<8, 2>()
    }

    /// Fields FROM … FROM + N − 1 of the ten (`NodeState` is ten f32 in a row, `repr(C)`).
    #[inline(always)]
    fn fields<const FROM: usize, const N: usize>(&self) -> &[f32; N] {
        let all: &[f32; 10] = bytemuck::cast_ref(self);
        all[FROM..FROM + N].try_into().expect("fields of a node state")
    }

    #[inline(always)]
    fn fields_mut<const FROM: usize, const N: usize>(&mut self) -> &mut [f32; N] {
        let all: &mut [f32; 10] = bytemuck::cast_mut(self);
        (&mut all[FROM..FROM + N]).try_into().expect("fields of a node state")
    }
}

/// Core model of a closed shell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Core {
    None,
    /// p = p0 − K_Ω (V − V0)/V0 with K_Ω from the material.
    Undrained {
        p0: f32,
    },
    /// p = p0.
    Drained {
        p0: f32,
    },
    /// p V = p0 V0.
    Gas {
        p0: f32,
    },
}

/// A set of nodes for boundary conditions.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeSet {
    Body(u32),
    /// Nodes whose initial position lies in [min, max].
    Box {
        min: [f32; 2],
        max: [f32; 2],
    },
    Indices(Vec<u32>),
}

/// How dt is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeStep {
    Fixed(f32),
    /// dt = fraction · sqrt(m_min / k_max) (§2.4).
    FractionOfCritical(f32),
}

/// Default Verlet skin as a fraction of the mean segment length ℓ̄ (see `Scene::sim_params`).
pub const DEFAULT_SKIN_FRACTION: f32 = 0.2;

/// The whole simulation input, backend-independent.
#[derive(Clone, Debug)]
pub struct Scene {
    pub nodes: Vec<Node>,
    pub bodies: Vec<Body>,
    pub materials: Vec<Material>,
    pub init: Vec<NodeState>,
    /// Contact material 0 (the scenario's `[contact]`): every body's unless it names another.
    pub contact: ContactLaw,
    /// Contact materials 1, 2, … (`[contact_materials.NAME]`; `add_contact_material`), chosen per
    /// body by `Body::contact_material`; pairs mix by `contact_table::mix`.
    pub contact_materials: Vec<ContactLaw>,
    pub gravity: [f32; 2],
    pub viscous_damping: f32,
    pub local_damping: f32,
    pub time_step: TimeStep,
    /// Verlet skin as a length; `None` picks half the mean segment length.
    pub skin: Option<f32>,
    /// Self-contact skips node pairs at most this far apart along a shell; `None` picks the
    /// smallest safe value, max(1, ⌈2 r_max / ℓ_min⌉): nodes two segments apart are then only
    /// paired where they cannot touch at rest, and a hairpin fold still meets resistance.
    pub self_exclusion: Option<u32>,
    /// Cohesive links (§7) and their laws.
    pub links: Vec<Link>,
    pub link_laws: Vec<LinkLaw>,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            nodes: vec![],
            bodies: vec![],
            materials: vec![],
            init: vec![],
            contact: ContactLaw {
                k_n: 1.0,
                k_t: 0.0,
                mu: 0.0,
                c_n: 0.0,
            },
            contact_materials: vec![],
            gravity: [0.0, 0.0],
            viscous_damping: 0.0,
            local_damping: 0.0,
            time_step: TimeStep::FractionOfCritical(0.1),
            skin: None,
            self_exclusion: None,
            links: vec![],
            link_laws: vec![],
        }
    }
}

/// Options of one body added to a scene.
#[derive(Clone, Copy, Debug)]
pub struct BodyOptions {
    pub material: u32,
    /// Half-thickness r.
    pub radius: f32,
    /// Mass of each node.
    pub node_mass: f32,
    pub frozen: bool,
    pub self_contact: bool,
    pub core: Core,
}

/// Node k of a body whose `count` nodes start at `first`: its previous and next node along the
/// shell (`add_body`'s layout; on an open line `NONE` before the first and after the last).
pub fn ring_neighbours(first: u32, count: u32, k: u32, closed: bool) -> (u32, u32) {
    let prev = if k > 0 {
        first + k - 1
    } else if closed {
        first + count - 1
    } else {
        NONE
    };
    let next = if k + 1 < count {
        first + k + 1
    } else if closed {
        first
    } else {
        NONE
    };
    (prev, next)
}

impl Scene {
    pub fn add_material(&mut self, m: Material) -> u32 {
        self.materials.push(m);
        (self.materials.len() - 1) as u32
    }

    /// Adds a contact material and returns its index (≥ 1; 0 is `contact`).
    pub fn add_contact_material(&mut self, law: ContactLaw) -> u32 {
        self.contact_materials.push(law);
        self.contact_materials.len() as u32
    }

    /// Contact material `i`: 0 is `contact`, then `contact_materials`.
    pub fn contact_material(&self, i: u32) -> Option<&ContactLaw> {
        match i {
            0 => Some(&self.contact),
            i => self.contact_materials.get(i as usize - 1),
        }
    }

    /// Number of contact materials (`contact` and `contact_materials`).
    pub fn n_contact_materials(&self) -> u32 {
        1 + self.contact_materials.len() as u32
    }

    /// The pair law of every ordered pair of contact materials, mixed by `contact_table::mix`
    /// (row-major: entry a·n + b, n = `n_contact_materials`). Both backends read it.
    pub fn contact_law_table(&self) -> Vec<ContactLaw> {
        let all: Vec<ContactLaw> = std::iter::once(self.contact)
            .chain(self.contact_materials.iter().copied())
            .collect();
        super::contact_table::law_table(&all)
    }

    /// Adds a body through the given points; `closed` makes it a shell (cell), otherwise an open line.
    /// Rest lengths and reference angles are those of the given shape (stress-free).
    pub fn add_body(&mut self, points: &[[f64; 2]], closed: bool, o: BodyOptions) -> u32 {
        assert!(points.len() >= 2, "a body needs at least two nodes");
        let first = self.nodes.len() as u32;
        let n = points.len() as u32;
        let body = self.bodies.len() as u32;
        for (k, p) in points.iter().enumerate() {
            let k = k as u32;
            let (prev, next) = ring_neighbours(first, n, k, closed);
            let (bc_mode, bc_velocity) = if o.frozen {
                (BC_VX | BC_VY, [0.0, 0.0])
            } else {
                (0, [0.0, 0.0])
            };
            self.nodes.push(Node {
                body,
                prev,
                next,
                local: k,
                mass: o.node_mass,
                bc_mode,
                bc_velocity,
                bc_force: [0.0, 0.0],
            });
            let (hi, lo) = super::df32::df_split(*p);
            self.init.push(NodeState {
                pos_hi: hi,
                pos_lo: lo,
                ..Default::default()
            });
        }
        // Reference (stress-free) rest lengths and vertex angles.
        for k in first..first + n {
            let nd = self.nodes[k as usize];
            if nd.next != NONE {
                self.init[k as usize].seg_rest = self.length(k, nd.next);
            }
            if nd.prev != NONE && nd.next != NONE {
                self.init[k as usize].theta_p = self.vertex_angle(nd.prev, k, nd.next);
            }
        }
        let mut flags = if closed { BODY_CLOSED } else { 0 };
        if o.frozen {
            flags |= BODY_FROZEN;
        }
        if o.self_contact {
            flags |= BODY_SELF_CONTACT;
        }
        let (core_model, core_p0) = match o.core {
            Core::None => (CORE_NONE, 0.0),
            Core::Undrained { p0 } => (CORE_UNDRAINED, p0),
            Core::Drained { p0 } => (CORE_DRAINED, p0),
            Core::Gas { p0 } => (CORE_GAS, p0),
        };
        let depth = self.materials[o.material as usize].depth;
        let area = if closed { self.signed_area(first, n) } else { 0.0 };
        // A0 as hi + lo, so core_area can form |A| − A0 far below one f32 ulp of A0.
        let a0_hi = area.abs() as f32;
        self.bodies.push(Body {
            first,
            count: n,
            material: o.material,
            flags,
            radius: o.radius,
            core_model,
            core_p0,
            core_v0: depth * area.abs() as f32,
            core_a0_hi: a0_hi,
            core_a0_lo: (area.abs() - a0_hi as f64) as f32,
            contact_material: 0,
        });
        body
    }

    /// A regular polygon of `n` nodes on a circle of radius `r0` (counter-clockwise).
    pub fn add_ring(&mut self, center: [f64; 2], r0: f64, n: usize, o: BodyOptions) -> u32 {
        let pts: Vec<[f64; 2]> = (0..n)
            .map(|k| {
                let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                [center[0] + r0 * a.cos(), center[1] + r0 * a.sin()]
            })
            .collect();
        self.add_body(&pts, true, o)
    }

    /// A straight open line from `a` to `b` with `n` nodes.
    pub fn add_line(&mut self, a: [f64; 2], b: [f64; 2], n: usize, o: BodyOptions) -> u32 {
        let pts: Vec<[f64; 2]> = (0..n)
            .map(|k| {
                let t = k as f64 / (n - 1) as f64;
                [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
            })
            .collect();
        self.add_body(&pts, false, o)
    }

    pub fn add_link_law(&mut self, law: LinkLaw) -> u32 {
        self.link_laws.push(law);
        (self.link_laws.len() - 1) as u32
    }

    /// Links nodes `a` and `b` (of different bodies) with law `law`; the reference distance is
    /// their current distance.
    pub fn add_link(&mut self, a: u32, b: u32, law: u32, interface_length: f32) -> u32 {
        assert!(
            a != b && self.nodes[a as usize].body != self.nodes[b as usize].body,
            "a link joins two bodies"
        );
        let (a, b) = (a.min(b), a.max(b));
        // d0 exactly as the kernels compute d, so a fresh link carries no force.
        let (pa, pb) = (&self.init[a as usize], &self.init[b as usize]);
        let off = df_sub(pa.pos_hi, pa.pos_lo, pb.pos_hi, pb.pos_lo);
        let d0 = dot(off, off).sqrt();
        self.links.push(Link {
            a,
            b,
            law,
            _pad: 0,
            d0,
            interface_length,
        });
        (self.links.len() - 1) as u32
    }

    /// Per-node list of the links touching each node (CSR): entry = link index · 2 + side, side 0
    /// when the node is the link's `a`, 1 when it is `b`; sorted, so the gather order is fixed.
    pub fn link_csr(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.nodes.len();
        let mut per: Vec<Vec<u32>> = vec![vec![]; n];
        for (l, link) in self.links.iter().enumerate() {
            per[link.a as usize].push(2 * l as u32);
            per[link.b as usize].push(2 * l as u32 + 1);
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(2 * self.links.len());
        start.push(0);
        for v in per {
            list.extend(v);
            start.push(list.len() as u32);
        }
        (start, list)
    }

    /// Node indices of a set.
    pub fn resolve(&self, set: &NodeSet) -> Vec<u32> {
        match set {
            NodeSet::Body(b) => {
                let b = self.bodies[*b as usize];
                (b.first..b.first + b.count).collect()
            }
            NodeSet::Box { min, max } => (0..self.nodes.len() as u32)
                .filter(|&i| {
                    let p = self.init[i as usize].pos();
                    p[0] >= min[0] as f64 && p[0] <= max[0] as f64 && p[1] >= min[1] as f64 && p[1] <= max[1] as f64
                })
                .collect(),
            NodeSet::Indices(v) => v.clone(),
        }
    }

    /// Imposes velocity components (None leaves a component free) on a node set.
    pub fn impose_velocity(&mut self, set: &NodeSet, vx: Option<f32>, vy: Option<f32>) {
        for i in self.resolve(set) {
            let nd = &mut self.nodes[i as usize];
            if let Some(v) = vx {
                nd.bc_mode |= BC_VX;
                nd.bc_velocity[0] = v;
            }
            if let Some(v) = vy {
                nd.bc_mode |= BC_VY;
                nd.bc_velocity[1] = v;
            }
        }
    }

    /// Adds a constant force to every node of a set.
    pub fn add_force(&mut self, set: &NodeSet, f: [f32; 2]) {
        for i in self.resolve(set) {
            let nd = &mut self.nodes[i as usize];
            nd.bc_force[0] += f[0];
            nd.bc_force[1] += f[1];
        }
    }

    /// Sets the initial velocity of a node set.
    pub fn set_initial_velocity(&mut self, set: &NodeSet, v: [f32; 2]) {
        for i in self.resolve(set) {
            self.init[i as usize].vel = v;
        }
    }

    fn length(&self, a: u32, b: u32) -> f32 {
        let (pa, pb) = (&self.init[a as usize], &self.init[b as usize]);
        let d = df_sub(pb.pos_hi, pb.pos_lo, pa.pos_hi, pa.pos_lo);
        dot(d, d).sqrt()
    }

    /// Turning angle at vertex k between segments (k−1 → k) and (k → k+1), as in `cpu::bending`.
    fn vertex_angle(&self, km: u32, k: u32, kp: u32) -> f32 {
        let (a, b, c) = (&self.init[km as usize], &self.init[k as usize], &self.init[kp as usize]);
        let e1 = df_sub(b.pos_hi, b.pos_lo, a.pos_hi, a.pos_lo);
        let e2 = df_sub(c.pos_hi, c.pos_lo, b.pos_hi, b.pos_lo);
        atan2_det(cross(e1, e2), dot(e1, e2))
    }

    /// Signed shoelace area in f64, relative to the first node (as `core_area`), so a body far
    /// from the origin loses no digits to cancellation.
    fn signed_area(&self, first: u32, n: u32) -> f64 {
        let o = self.init[first as usize].pos();
        let p: Vec<[f64; 2]> = (first..first + n)
            .map(|i| {
                let q = self.init[i as usize].pos();
                [q[0] - o[0], q[1] - o[1]]
            })
            .collect();
        let mut a = 0.0;
        for k in 0..p.len() {
            let (u, v) = (p[k], p[(k + 1) % p.len()]);
            a += u[0] * v[1] - u[1] * v[0];
        }
        0.5 * a
    }

    /// Largest stiffness of the scene, for the critical time step sqrt(m/k_max) (§2.4).
    /// Bending and core stiffnesses are converted to node-level springs: 4 k_b/ℓ² and the core's
    /// breathing-mode stiffness K_Ω s² ℓ² N / V0.
    pub fn k_max(&self) -> f32 {
        let mut k = 0.0f32;
        for law in self.contact_law_table() {
            k = k.max(law.k_n).max(law.k_t);
        }
        for law in &self.link_laws {
            k = k.max(law.k_n).max(law.k_t);
        }
        for b in &self.bodies {
            if b.flags & BODY_FROZEN != 0 {
                continue;
            }
            let m = self.materials[b.material as usize];
            let l = self.min_segment_length(b);
            k = k.max(m.k_s).max(4.0 * m.k_b / (l * l));
            if b.core_model == CORE_UNDRAINED && b.core_v0 > 0.0 {
                // Breathing mode: all N nodes move out by δ, dV = s N ℓ δ, and each node feels
                // s ℓ dp = s ℓ K_Ω dV/V0, i.e. a stiffness K_Ω s² ℓ² N / V0 per node.
                k = k.max(m.k_core * m.depth * m.depth * l * l * b.count as f32 / b.core_v0);
            }
        }
        k
    }

    fn min_segment_length(&self, b: &Body) -> f32 {
        (b.first..b.first + b.count)
            .filter(|&i| self.nodes[i as usize].next != NONE)
            .map(|i| self.init[i as usize].seg_rest)
            .fold(f32::INFINITY, f32::min)
    }

    /// Smallest mass among free nodes.
    pub fn m_min(&self) -> f32 {
        self.nodes
            .iter()
            .filter(|n| n.bc_mode != (BC_VX | BC_VY))
            .map(|n| n.mass)
            .fold(f32::INFINITY, f32::min)
    }

    /// Critical time step sqrt(m_min / k_max) (§2.4).
    pub fn critical_dt(&self) -> f32 {
        (self.m_min() / self.k_max()).sqrt()
    }

    pub fn dt(&self) -> f32 {
        match self.time_step {
            TimeStep::Fixed(dt) => dt,
            TimeStep::FractionOfCritical(f) => f * self.critical_dt(),
        }
    }

    /// Longest segment and largest half-thickness (for the neighbour cut-off).
    pub fn longest_segment(&self) -> f32 {
        self.init
            .iter()
            .zip(&self.nodes)
            .filter(|(_, n)| n.next != NONE)
            .map(|(s, _)| s.seg_rest)
            .fold(0.0, f32::max)
    }

    /// Longest segment of the free (not frozen) bodies: the grid cell side is this plus
    /// `contact_reach` (wall segments go into the segment grid, `cpu::broad_phase`).
    pub fn longest_free_segment(&self) -> f32 {
        self.init
            .iter()
            .zip(&self.nodes)
            .filter(|(_, n)| n.next != NONE && self.bodies[n.body as usize].flags & BODY_FROZEN == 0)
            .map(|(s, _)| s.seg_rest)
            .fold(0.0, f32::max)
    }

    pub fn mean_segment(&self) -> f32 {
        let v: Vec<f32> = self
            .init
            .iter()
            .zip(&self.nodes)
            .filter(|(_, n)| n.next != NONE)
            .map(|(s, _)| s.seg_rest)
            .collect();
        v.iter().sum::<f32>() / v.len().max(1) as f32
    }

    /// max(1, ⌈2 r_max / ℓ_min⌉) over the shells with self-contact (see `self_exclusion`).
    pub fn auto_self_exclusion(&self) -> u32 {
        let mut n = 1u32;
        for b in self.bodies.iter().filter(|b| b.flags & BODY_SELF_CONTACT != 0) {
            let l = self.min_segment_length(b);
            if l > 0.0 && l.is_finite() {
                n = n.max((2.0 * b.radius / l).ceil() as u32);
            }
        }
        n
    }

    pub fn max_radius(&self) -> f32 {
        self.bodies.iter().map(|b| b.radius).fold(0.0, f32::max)
    }

    /// Validates the scene, returning a message naming what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("the scene is empty: no bodies".into());
        }
        for (i, m) in self.materials.iter().enumerate() {
            for (name, v) in [("k_s", m.k_s), ("k_b", m.k_b), ("k_core", m.k_core), ("depth", m.depth)] {
                if v.is_nan() || v < 0.0 {
                    return Err(format!("material {i}: {name} = {v} must be ≥ 0"));
                }
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            let law = self
                .link_laws
                .get(l.law as usize)
                .ok_or(format!("link {i}: no link law {}", l.law))?;
            if !(law.f_n0 < 0.0 && law.f_t0 > 0.0 && law.k_n > 0.0 && law.k_t >= 0.0 && law.alpha > 0.0) {
                return Err(format!(
                    "link law {}: need k_n > 0, k_t ≥ 0, f_n0 < 0, f_t0 > 0, alpha > 0",
                    l.law
                ));
            }
        }
        if self.contact.k_n.is_nan() || self.contact.k_n <= 0.0 {
            return Err(format!("contact k_n = {} must be > 0", self.contact.k_n));
        }
        for (i, law) in self.contact_materials.iter().enumerate() {
            if law.k_n.is_nan() || law.k_n <= 0.0 {
                return Err(format!("contact material {}: k_n = {} must be > 0", i + 1, law.k_n));
            }
        }
        for (i, b) in self.bodies.iter().enumerate() {
            if b.contact_material >= self.n_contact_materials() {
                return Err(format!(
                    "body {i}: no contact material {} (the scene has {})",
                    b.contact_material,
                    self.n_contact_materials()
                ));
            }
        }
        let dt = self.dt();
        let dtc = self.critical_dt();
        if dt.is_nan() || dt <= 0.0 || dt > dtc {
            return Err(format!("time step dt = {dt:e} must be in (0, critical dt = {dtc:e}]"));
        }
        Ok(())
    }

    /// Simulation parameters as the kernels see them (grid and list capacity filled by the backend).
    pub fn sim_params(&self) -> SimParams {
        // Default skin ℓ̄/5: results do not depend on the skin (the contact early out is exact and
        // a list is ordered by neighbour index, so the gather adds the same forces in the same
        // order), only the cost does. A thin skin keeps ~1.6 entries per node in a dense packing
        // instead of ~4.6 at ℓ̄/2 (`near_shell`) and, when nodes move fast,
        // rebuilds more often (the falling packing of `softdem bench --scene fall`: 2.5× the
        // rebuilds, the same total time).
        let skin = self.skin.unwrap_or(DEFAULT_SKIN_FRACTION * self.mean_segment());
        let contact_reach = 2.0 * self.max_radius() + 2.0 * skin;
        let cutoff = self.longest_free_segment() + contact_reach;
        SimParams {
            n_nodes: self.nodes.len() as u32,
            n_bodies: self.bodies.len() as u32,
            max_entries: 0,
            // One bucket per 1–2 nodes: a cell (side = cut-off) holds ~1–2 nodes of a packing's
            // shells; collisions only add candidates that fail the distance test (the lists do
            // not depend on the bucket count).
            grid_buckets: self.nodes.len().div_ceil(2).next_power_of_two().max(64) as u32,
            dt: self.dt(),
            viscous_damping: self.viscous_damping,
            local_damping: self.local_damping,
            skin,
            gravity: self.gravity,
            cell_size: cutoff,
            cutoff,
            self_exclusion: self.self_exclusion.unwrap_or_else(|| self.auto_self_exclusion()),
            contact_reach,
            n_contact_materials: self.n_contact_materials(),
            ..Default::default()
        }
    }
}
