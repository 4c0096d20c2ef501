// sphere_step.wgsl: the passes of one sphere step, twins of the functions of the same names in
// src/spheres/cpu_stepper.rs (host order in src/spheres/gpu_stepper.rs). The fused step (default):
//   kick_drift (kick(Δt/2) + drift + the sphere displacement check, one read and one write of the
//   sphere record) → wall_advance (one workgroup: the walls' drift and check, and the halt of a due
//   build under the host-decided schedule) → rebuild_decide → [the list build, indirect dispatches
//   sized here on the device: list_save, shaders/sphere_cell_list.wgsl, wall_count, wall_fill,
//   reference_positions; src/spheres/gpu_rebuild.rs] → [MC-stress: normal_pass → wall_normal_pass
//   → stress_pass] → [MC-strain: strain_pass] → pair_pass → wall_pass → gather_kick (gather +
//   kick(Δt/2)) → wall_gather.
// The unfused step (`GpuSpheres::fused` false; the same operations in the same order per sphere,
// kept to test that both give the same bits): kick → drift → wall_advance → displacement_check →
// … → gather → wall_gather → kick.
// No float atomics: each pair's result goes to its own PairOut, each sphere gathers its pairs
// (incident list, in pair order) and walls (in wall order); each wall reduces its spheres'
// contacts in sphere order by a fixed-order workgroup reduction (wall_gather; wall_reduce.rs). Includes sphere_state, the laws, sphere_contact, sphere_wall.

#import sphere_contact
#import sphere_wall
#import mc_strain
#import fixed_reduce

@group(0) @binding(1) var<storage, read_write> spheres: array<SphereState>;
@group(0) @binding(2) var<storage, read_write> forces: array<SphereForce>;
@group(0) @binding(3) var<storage, read> laws: array<PairLaw>;
@group(0) @binding(4) var<storage, read_write> walls: array<PlaneWall>;
@group(0) @binding(5) var<storage, read> pair_start: array<u32>;
@group(0) @binding(6) var<storage, read> partner: array<u32>;
// Pair records, packed (no vec3 padding): the memory per pair is what limits a dense packing
// (docs/spheres.md, *Records*). Tangential history of pair k at 3k .. 3k + 2; the rolling torque
// history in its own array, sized only when some law has rolling resistance (one element
// otherwise: only such a law reads it, and without it the rolling history stays zero).
@group(0) @binding(7) var<storage, read_write> history: array<f32>;
@group(0) @binding(22) var<storage, read_write> history_rolling: array<f32>;
// PAIR_OUT_WORDS f32 per pair: force (3), f_n, torque on i (3), energy, torque on j (3).
@group(0) @binding(8) var<storage, read_write> pair_out: array<f32>;
// Per sphere, the pairs where it is j (pair index, increasing); its own pairs (it is i) are its
// row pair_start[i] .. pair_start[i + 1] − 1, all after those (the owner of a pair is its lower
// index). Incident order of sphere i: these, then its row.
@group(0) @binding(9) var<storage, read> incident_start: array<u32>;
@group(0) @binding(10) var<storage, read> incident: array<u32>;
// Sphere–wall contacts, compact: one record per candidate of the last build (wall_slot order).
@group(0) @binding(11) var<storage, read_write> wall_history: array<ContactHistory>;
@group(0) @binding(12) var<storage, read_write> wall_out: array<PairOut>;
// Positions at the last list build, three f32 per sphere, then three per wall point. During a
// build, before reference_positions rewrites it, its first n + 1 words hold the row starts of
// the list before the build (list_save; read as old_start by pair_carry_packed).
@group(0) @binding(13) var<storage, read_write> x_ref: array<f32>;
// [0]: halt: a capacity overflowed in a build (every later kernel of the batch returns; the host
// grows the buffers and redoes the build); [1]: drifts run (steps begun); [2]: a build is due
// (some sphere or wall point moved more than half the skin since the last build); [3]: builds
// run; [4]: pair total of the last build; [5]: sphere–wall candidates of the last build;
// [6]: candidates of the build before (saved by list_save); [7]: cells the grid needed;
// [8]: set by the host when it decides the builds (`GpuSpheres::steps_batched`, host-decided
// schedule): a due build then also halts the batch ([0] = HALT_DUE) instead of running inside it.
@group(0) @binding(14) var<storage, read_write> step_flags: array<atomic<u32>>;
// MC-stress: l·f of each pair (for i, for j) and wall contact, tr σ of each sphere (eq 9).
@group(0) @binding(15) var<storage, read_write> pair_trace: array<vec2<f32>>;
@group(0) @binding(16) var<storage, read_write> wall_trace: array<f32>;
@group(0) @binding(17) var<storage, read_write> stress_trace: array<f32>;
// MC-strain: Σ_k δ_{k→c} of each pair contact (2k: i's side, 2k + 1: j's side) and wall contact.
@group(0) @binding(18) var<storage, read_write> pair_strain: array<f32>;
@group(0) @binding(19) var<storage, read_write> wall_strain: array<f32>;
// Extra forces and torques of attached sources (src/spheres/extra_force.rs), one per sphere,
// read and cleared by gather; a placeholder (skipped) while no source is attached.
@group(0) @binding(20) var<storage, read_write> extra_force: array<SphereForce>;
// The sphere–wall candidates of the last build (twin: CpuSpheres::wall_slots): n_spheres + 1
// CSR starts (sphere s has candidates wall_index[s] .. wall_index[s + 1] − 1), then per candidate
// c its slot s · n_walls + w at wall_index[n_spheres + 1 + c], increasing.
@group(0) @binding(21) var<storage, read_write> wall_index: array<u32>;
// The build's indirect dispatch arguments (x, y, z per dispatch), written by rebuild_decide from
// the template (x zeroed when no build is due).
@group(0) @binding(23) var<storage, read_write> args: array<u32>;
@group(0) @binding(24) var<storage, read> args_template: array<u32>;

const STEP_WG: u32 = 64u;
const PAIR_OUT_WORDS: u32 = 11u;

// (No storage pointers as parameters: WGSL allows them only with an extension.)
fn history_load(k: u32) -> vec3<f32> {
    return vec3<f32>(history[3u * k], history[3u * k + 1u], history[3u * k + 2u]);
}

fn history_store(k: u32, v: vec3<f32>) {
    history[3u * k] = v.x;
    history[3u * k + 1u] = v.y;
    history[3u * k + 2u] = v.z;
}

fn rolling_load(k: u32) -> vec3<f32> {
    return vec3<f32>(history_rolling[3u * k], history_rolling[3u * k + 1u], history_rolling[3u * k + 2u]);
}

fn rolling_store(k: u32, v: vec3<f32>) {
    history_rolling[3u * k] = v.x;
    history_rolling[3u * k + 1u] = v.y;
    history_rolling[3u * k + 2u] = v.z;
}

fn out_load(at: u32) -> vec3<f32> {
    return vec3<f32>(pair_out[at], pair_out[at + 1u], pair_out[at + 2u]);
}

fn out_store(at: u32, v: vec3<f32>) {
    pair_out[at] = v.x;
    pair_out[at + 1u] = v.y;
    pair_out[at + 2u] = v.z;
}

fn pair_force_of(k: u32) -> vec3<f32> {
    return out_load(PAIR_OUT_WORDS * k);
}

fn pair_torque_i(k: u32) -> vec3<f32> {
    return out_load(PAIR_OUT_WORDS * k + 4u);
}

fn pair_torque_j(k: u32) -> vec3<f32> {
    return out_load(PAIR_OUT_WORDS * k + 8u);
}

// Loop bounds are min(count, arrayLength(array the loop reads)), never a bare uniform: lavapipe
// (Mesa 22.3) inlines the uniform values into a kernel whose loop bound is a uniform and
// compiles a new shader variant at every bind of its pipeline, never freed (gather's wall loop
// cost ~175 KB of host memory and a shader compile per step). The array holds at least `count`
// records (n_spheres · n_walls per wall array; one dummy record when empty, when count is 0), so
// the loops run the same iterations (test gpu_sphere_host_memory.rs).

// Several steps are recorded per submission (`GpuSpheres::steps_batched`), each with its list
// build as indirect dispatches that rebuild_decide sizes to zero unless a build is due. When a
// build overflows a capacity it raises step_flags[0] and every later kernel of the batch returns
// at once; the host grows the buffers, redoes that build and finishes the step.
// step_flags[1] counts the drifts that ran (the steps begun).
fn list_stale() -> bool {
    return atomicLoad(&step_flags[0]) != 0u;
}

// step_flags[0] when a due build halted the batch (host-decided schedule; an overflow writes 1).
const HALT_DUE: u32 = 2u;

// Some sphere or wall point moved more than half the skin: a build is due. Under the host-decided
// schedule (step_flags[8]) the batch halts here, after the drift of this step, and the host runs
// the build with direct dispatches, then this step's forces (the same kernels, the same data as
// the build recorded in the step).
fn raise_due() {
    atomicMax(&step_flags[2], 1u);
    if (atomicLoad(&step_flags[8]) != 0u) {
        atomicMax(&step_flags[0], HALT_DUE);
    }
}

fn law_of(a: u32, b: u32) -> PairLaw {
    return laws[a * sp.n_materials + b];
}

// v += h f/m, ω += h τ/I with h = Δt/2 (twin: kick).
fn kick_of(s0: SphereState, f: SphereForce) -> SphereState {
    let h = 0.5 * sp.dt;
    var s = s0;
    s.vel = s.vel + f.force * (h / s.mass);
    s.omega = s.omega + f.torque * (h / s.inertia);
    return s;
}

// x += v Δt in double-f32 (twin: drift).
fn drift_of(s0: SphereState) -> SphereState {
    var s = s0;
    let x = df3_add(s.pos_hi, s.pos_lo, s.vel * sp.dt);
    s.pos_hi = x.hi;
    s.pos_lo = x.lo;
    return s;
}

// The opening of a step (twin: kick_drift): kick, drift and the sphere part of the displacement
// check in one pass over the sphere record. The check only raises step_flags[2]: a halt written
// here (host-decided schedule) would make the threads of this same dispatch that have not yet
// read list_stale() skip their drift; wall_advance, the next dispatch, turns it into the halt.
@compute @workgroup_size(64)
fn kick_drift(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    if (i == 0u) {
        atomicAdd(&step_flags[1], 1u);
    }
    let s = drift_of(kick_of(spheres[i], forces[i]));
    spheres[i] = s;
    if (moved_past_half_skin(s.pos_hi + s.pos_lo, i)) {
        atomicMax(&step_flags[2], 1u);
    }
}

// Unfused step: kick alone.
@compute @workgroup_size(64)
fn kick(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    spheres[i] = kick_of(spheres[i], forces[i]);
}

// Unfused step: drift alone.
@compute @workgroup_size(64)
fn drift(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    if (i == 0u) {
        atomicAdd(&step_flags[1], 1u);
    }
    spheres[i] = drift_of(spheres[i]);
}

// One workgroup of WALL_ADVANCE_LANES: wall w's drift x += v Δt and its displacement check (twin:
// CpuSpheres::walls_moved: the sphere–wall candidates are stale once a wall point moved more than
// half the skin since the build), walls lane, lane + 256, …; then, under the host-decided
// schedule, the halt of a build that kick_drift found due. Every lane reads list_stale() before
// the barrier and writes a halt only after it, so all walls advance or none.
const WALL_ADVANCE_LANES: u32 = 256u;

@compute @workgroup_size(256)
fn wall_advance(@builtin(local_invocation_id) lid: vec3<u32>) {
    let live = !list_stale();
    storageBarrier();
    if (!live) {
        return;
    }
    let nw = min(sp.n_walls, arrayLength(&walls));
    for (var w = lid.x; w < nw; w += WALL_ADVANCE_LANES) {
        var wall = walls[w];
        let x = df3_add(wall.point_hi, wall.point_lo, wall.velocity * sp.dt);
        wall.point_hi = x.hi;
        wall.point_lo = x.lo;
        walls[w] = wall;
        if (moved_past_half_skin(x.hi + x.lo, sp.n_spheres + w)) {
            raise_due();
        }
    }
    if (lid.x == 0u && atomicLoad(&step_flags[2]) != 0u) {
        raise_due();
    }
}

// True when point `now` moved more than half the skin from its reference x_ref[3k..3k + 3]
// (spheres k < n, wall points after them).
fn moved_past_half_skin(now: vec3<f32>, k: u32) -> bool {
    let r = 3u * k;
    let d = now - vec3<f32>(x_ref[r], x_ref[r + 1u], x_ref[r + 2u]);
    let lim = 0.5 * sp.skin;
    return d.x * d.x + d.y * d.y + d.z * d.z > lim * lim;
}

// Unfused step: the sphere part of CpuSpheres::needs_rebuild alone (after wall_advance; the halt
// of a due build written at once, as nothing of this step runs after it).
@compute @workgroup_size(64)
fn displacement_check(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let s = spheres[i];
    if (moved_past_half_skin(s.pos_hi + s.pos_lo, i)) {
        raise_due();
    }
}

// Single thread, after the checks: the x workgroup counts of the build's indirect dispatches,
// the template's when a build is due, else zero (the 2D engine's rebuild_decide). The decision
// is the CPU's `needs_rebuild` (displacement_check, wall_advance); consumed here.
@compute @workgroup_size(1)
fn rebuild_decide() {
    let n = arrayLength(&args_template) / 3u;
    let due = !list_stale() && atomicLoad(&step_flags[2]) != 0u;
    for (var a = 0u; a < n; a++) {
        args[3u * a] = select(0u, args_template[3u * a], due);
        args[3u * a + 1u] = args_template[3u * a + 1u];
        args[3u * a + 2u] = args_template[3u * a + 2u];
    }
    if (due) {
        atomicStore(&step_flags[2], 0u);
        atomicAdd(&step_flags[3], 1u);
    }
}

// First kernel of a build, row i: the list before the build saved for the carry, into buffers
// whose contents the build's step recomputes anyway. Row starts to x_ref (n + 1 words); per pair
// k, 7 words of pair_out from 7k: partner (bits), tangential history (3), rolling history (3, or
// zeros); per sphere–wall candidate c, wall_out[c] = (tangential, slot (bits), rolling, pads).
// The build after it only reads these (a build redone after an overflow finds them intact).
@compute @workgroup_size(64)
fn list_save(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    let n = sp.n_spheres;
    if (i >= n) {
        return;
    }
    x_ref[i] = bitcast<f32>(pair_start[i]);
    if (i == 0u) {
        x_ref[n] = bitcast<f32>(pair_start[n]);
        atomicStore(&step_flags[6], wall_index[n]);
    }
    let rolling = arrayLength(&history_rolling) >= 3u * pair_start[n] && arrayLength(&history_rolling) > 1u;
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        pair_out[7u * k] = bitcast<f32>(partner[k]);
        for (var c = 0u; c < 3u; c++) {
            pair_out[7u * k + 1u + c] = history[3u * k + c];
            var r = 0.0;
            if (rolling) {
                r = history_rolling[3u * k + c];
            }
            pair_out[7u * k + 4u + c] = r;
        }
    }
    let c1 = min(wall_index[i + 1u], arrayLength(&wall_out));
    for (var c = wall_index[i]; c < c1; c++) {
        let h = wall_history[c];
        wall_out[c] = PairOut(h.tangential, bitcast<f32>(wall_index[n + 1u + c]), h.rolling, h._pad0,
            vec3<f32>(h._pad1, 0.0, 0.0), 0.0);
    }
}

// Sphere i's wall candidates counted into wall_index[i] (scanned next; twin: the count of
// CpuSpheres::build_wall_candidates).
@compute @workgroup_size(64)
fn wall_count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let s = spheres[i];
    var m = 0u;
    let nw = min(sp.n_walls, arrayLength(&walls));
    for (var w = 0u; w < nw; w++) {
        if (wall_candidate(walls[w], s)) {
            m += 1u;
        }
    }
    wall_index[i] = m;
}

// Sphere i's wall candidates written as slots s · n_walls + w (increasing), each with the
// history of the same slot in the saved list (binary search over the saved slots; zero for a new
// candidate): twin of CpuSpheres::build_wall_candidates and its carry by slot. Halts the batch
// when the candidates exceed the wall buffers' capacity (step_flags[5]: the total either way).
@compute @workgroup_size(64)
fn wall_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    let n = sp.n_spheres;
    let nw = min(sp.n_walls, arrayLength(&walls));
    let total = wall_index[n];
    if (total > arrayLength(&wall_history) || n + 1u + total > arrayLength(&wall_index)) {
        if (i == 0u) {
            atomicStore(&step_flags[5], total);
            atomicStore(&step_flags[0], 1u);
        }
        return;
    }
    if (i == 0u) {
        atomicStore(&step_flags[5], total);
    }
    if (i >= n) {
        return;
    }
    let s = spheres[i];
    let old = min(atomicLoad(&step_flags[6]), arrayLength(&wall_out));
    var c = wall_index[i];
    for (var w = 0u; w < nw; w++) {
        if (!wall_candidate(walls[w], s)) {
            continue;
        }
        let slot = i * nw + w;
        wall_index[n + 1u + c] = slot;
        var h = ContactHistory(vec3<f32>(0.0), 0.0, vec3<f32>(0.0), 0.0);
        var lo = 0u;
        var hi = old;
        while (lo < hi) {
            let mid = (lo + hi) / 2u;
            let o = wall_out[mid];
            let v = bitcast<u32>(o.f_n);
            if (v == slot) {
                h = ContactHistory(o.force, o.energy, o.torque_i, o.torque_j.x);
                break;
            }
            if (v < slot) {
                lo = mid + 1u;
            } else {
                hi = mid;
            }
        }
        wall_history[c] = h;
        c += 1u;
    }
}

// Last kernel of a build: the positions of the spheres and wall points at the build, for the
// displacement checks (twin: the x_ref of CpuSpheres::rebuild).
@compute @workgroup_size(64)
fn reference_positions(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    let n = sp.n_spheres;
    if (i < n) {
        let s = spheres[i];
        for (var k = 0u; k < 3u; k++) {
            x_ref[3u * i + k] = s.pos_hi[k] + s.pos_lo[k];
        }
    }
    if (i < min(sp.n_walls, arrayLength(&walls))) {
        let w = walls[i];
        for (var k = 0u; k < 3u; k++) {
            x_ref[3u * (n + i) + k] = w.point_hi[k] + w.point_lo[k];
        }
    }
}

// MC-stress pass 1 (eq 9), row i of the pair list: classical f_n and its l·f terms.
@compute @workgroup_size(64)
fn normal_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let a = spheres[i];
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        let b = spheres[partner[k]];
        let pg = sphere_pair_geometry(a, b);
        var t = vec2<f32>(0.0);
        if (pg.g.delta > 0.0) {
            let law = law_of(a.material, b.material);
            let f = classical_normal_force(law, pg.g);
            let o = law.mc.options;
            t = vec2<f32>(stress_trace_term(o, a.radius, pg.g.delta, f), stress_trace_term(o, b.radius, pg.g.delta, f));
        }
        pair_trace[k] = t;
    }
}

@compute @workgroup_size(64)
fn wall_normal_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (k >= sp.n_spheres * sp.n_walls) {
        return;
    }
    let s = spheres[k / sp.n_walls];
    let w = walls[k % sp.n_walls];
    let law = law_of(s.material, w.material);
    let wg = wall_geometry(w, s);
    var t = 0.0;
    if (wg.g.delta > 0.0 && (law.mc.options & MC_EXCLUDE_WALLS) == 0u) {
        t = stress_trace_term(law.mc.options, s.radius, wg.g.delta, classical_normal_force(law, wg.g));
    }
    wall_trace[k] = t;
}

// MC-stress: tr σ_i = (1/V_i) Σ l·f over i's pairs (incident order) and walls (twin: stress_pass).
@compute @workgroup_size(64)
fn stress_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    var sum = 0.0;
    for (var q = incident_start[i]; q < incident_start[i + 1u]; q++) {
        sum += pair_trace[incident[q]].y;
    }
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        sum += pair_trace[k].x;
    }
    let nw = min(sp.n_walls, arrayLength(&wall_trace));
    for (var w = 0u; w < nw; w++) {
        sum += wall_trace[i * sp.n_walls + w];
    }
    stress_trace[i] = sum / sphere_volume(spheres[i].radius);
}

struct StrainContact {
    l: vec3<f32>,
    f: f32,
}

// Pair index and side (1: the sphere is j) of incident entry q of sphere i: the j-side entries,
// then its row.
fn incident_pair(i: u32, q: u32) -> vec2<u32> {
    let start = incident_start[i];
    let n_j = incident_start[i + 1u] - start;
    if (q < n_j) {
        return vec2<u32>(incident[start + q], 1u);
    }
    return vec2<u32>(pair_start[i] + (q - n_j), 0u);
}

fn incident_count(i: u32) -> u32 {
    return incident_start[i + 1u] - incident_start[i] + pair_start[i + 1u] - pair_start[i];
}

// Branch vector and classical f_n (pass 1) of contact q of sphere i: incident entries, then walls
// (twin: strain_contact).
fn strain_contact(i: u32, q: u32) -> StrainContact {
    var out: StrainContact;
    let n_inc = incident_count(i);
    if (q < n_inc) {
        let e = incident_pair(i, q);
        let k = e.x;
        let pg = sphere_pair_geometry(spheres[partner_owner(k)], spheres[partner[k]]);
        if (pg.g.delta <= 0.0) {
            return out;
        }
        let side = e.y;
        var l = pg.b.l_i;
        if (side == 1u) {
            l = pg.b.l_j;
        }
        out.l = l;
        out.f = -pair_trace[k][side] / v3_norm(l);
    } else {
        let w = q - n_inc;
        let wg = wall_geometry(walls[w], spheres[i]);
        if (wg.g.delta <= 0.0) {
            return out;
        }
        out.l = wg.l_i;
        out.f = -wall_trace[i * sp.n_walls + w] / v3_norm(wg.l_i);
    }
    return out;
}

// Owner i of pair k: the row of pair_start holding k (binary search; rows are sorted by i).
fn partner_owner(k: u32) -> u32 {
    var lo = 0u;
    var hi = sp.n_spheres;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (pair_start[mid] <= k) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// MC-strain (eq 7), per sphere i: for each contact c, Σ_{k ≠ c} δ_{k→c} over i's other contacts
// (incident order, then walls), with E, ν, γ of i's self pair (twin: strain_pass).
@compute @workgroup_size(64)
fn strain_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let n_inc = incident_count(i);
    let nc = n_inc + sp.n_walls;
    let m = spheres[i].material;
    let law = law_of(m, m);
    let on = law.mc.beta != 0.0 && (law.mc.options & MC_STRAIN) != 0u;
    let skip_walls = (law.mc.options & MC_EXCLUDE_WALLS) != 0u;
    let young = young_from_self_pair(law.hertz.e_star, law.mc.nu);
    for (var c = 0u; c < nc; c++) {
        var sum = 0.0;
        let cc = strain_contact(i, c);
        if (on && cc.f > 0.0 && !(skip_walls && c >= n_inc)) {
            for (var k = 0u; k < nc; k++) {
                if (k != c && !(skip_walls && k >= n_inc)) {
                    let ck = strain_contact(i, k);
                    sum += strain_displacement(law.mc.beta, young, law.mc.nu, ck.f, ck.l, cc.l);
                }
            }
        }
        if (c < n_inc) {
            let e = incident_pair(i, c);
            pair_strain[2u * e.x + e.y] = sum;
        } else {
            wall_strain[i * sp.n_walls + (c - n_inc)] = sum;
        }
    }
}

// Row i of the pair list: geometry, law (with the MC-stress correction when β ≠ 0; the traces
// are zero when its passes did not run), torques, new history (twin: pair_pass, per pair).
@compute @workgroup_size(64)
fn pair_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let a = spheres[i];
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        let j = partner[k];
        let b = spheres[j];
        var pg = sphere_pair_geometry(a, b);
        let law = law_of(a.material, b.material);
        var f_mc = 0.0;
        if (law.mc.beta != 0.0 && pg.g.delta > 0.0 && (law.mc.options & MC_STRAIN) != 0u) {
            // Eq 8: the overlap plus the displacements of both grains' other contacts.
            pg.g.delta = max(pg.g.delta + pair_strain[2u * k] + pair_strain[2u * k + 1u], 0.0);
        } else if (law.mc.beta != 0.0 && pg.g.delta > 0.0) {
            var t_i = stress_trace[i];
            var t_j = stress_trace[j];
            if ((law.mc.options & MC_INCLUDE_SELF) == 0u) {
                t_i -= pair_trace[k].x / sphere_volume(a.radius);
                t_j -= pair_trace[k].y / sphere_volume(b.radius);
            }
            f_mc = mc_stress_force(law.mc, pg.g.r_star, pg.g.delta, t_i, t_j);
        }
        var h = ContactHistory(history_load(k), 0.0, vec3<f32>(0.0), 0.0);
        let rolling = law.rolling.mu_r > 0.0;
        if (rolling) {
            h.rolling = rolling_load(k);
        }
        let r = pair_force(law, pg.g, sp.dt, h, f_mc);
        history_store(k, r.history.tangential);
        if (rolling) {
            rolling_store(k, r.history.rolling);
        }
        let f = r.force;
        let o = PAIR_OUT_WORDS * k;
        out_store(o, f.force);
        pair_out[o + 3u] = f.f_n;
        out_store(o + 4u, v3_cross(pg.b.l_i, f.force) + f.rolling_torque);
        pair_out[o + 7u] = f.energy;
        out_store(o + 8u, v3_cross(pg.b.l_j, f.force * -1.0) - f.rolling_torque);
    }
}

// Sphere–wall candidate c of the last build, slot k = s · n_walls + w (twin: wall_pass).
@compute @workgroup_size(64)
fn wall_pass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (c >= wall_index[sp.n_spheres]) {
        return;
    }
    let k = wall_index[sp.n_spheres + 1u + c];
    let s = spheres[k / sp.n_walls];
    let w = walls[k % sp.n_walls];
    var wg = wall_geometry(w, s);
    let law = law_of(s.material, w.material);
    var f_mc = 0.0;
    let on = law.mc.beta != 0.0 && wg.g.delta > 0.0 && (law.mc.options & MC_EXCLUDE_WALLS) == 0u;
    if (on && (law.mc.options & MC_STRAIN) != 0u) {
        // Eq 8: a rigid wall does not deform; only the sphere's other contacts count.
        wg.g.delta = max(wg.g.delta + wall_strain[k], 0.0);
    } else if (on) {
        // A wall has no stress of its own: P comes from the sphere's alone.
        var t = stress_trace[k / sp.n_walls];
        if ((law.mc.options & MC_INCLUDE_SELF) == 0u) {
            t -= wall_trace[k] / sphere_volume(s.radius);
        }
        f_mc = mc_stress_force(law.mc, wg.g.r_star, wg.g.delta, t, 0.0);
    }
    let r = pair_force(law, wg.g, sp.dt, wall_history[c], f_mc);
    wall_history[c] = r.history;
    let f = r.force;
    wall_out[c] = PairOut(f.force, f.f_n, v3_cross(wg.l_i, f.force) + f.rolling_torque, f.energy,
        v3_cross(wg.c, f.force * -1.0) - f.rolling_torque, 0.0);
}

// Global damping −c v and local damping −α |f_k| sign(v_k) (twin: damp).
fn damp(f: vec3<f32>, v: vec3<f32>, c: f32, alpha: f32) -> vec3<f32> {
    var out = f - v * c;
    for (var k = 0u; k < 3u; k++) {
        if (v[k] != 0.0) {
            out[k] -= alpha * abs(out[k]) * sign(v[k]);
        }
    }
    return out;
}

// Sphere i's force and torque (twin: gather): gravity, its pairs in incident order, its walls,
// the extra sources' (cleared), then the damping at velocity s.
fn gather_at(i: u32, s: SphereState) -> SphereForce {
    var f = sp.gravity * s.mass;
    var t = vec3<f32>(0.0);
    // Incident order: the pairs where i is j, then its row (the order of the CPU's gather).
    for (var q = incident_start[i]; q < incident_start[i + 1u]; q++) {
        let k = incident[q];
        f = f - pair_force_of(k);
        t = t + pair_torque_j(k);
    }
    for (var k = pair_start[i]; k < pair_start[i + 1u]; k++) {
        f = f + pair_force_of(k);
        t = t + pair_torque_i(k);
    }
    // The sphere's candidate walls in wall order; a sphere with fewer candidates than walls
    // adds +0 once, for the cleared records the CPU's dense loop adds (the same bits: only a
    // −0 sum changes, to +0, once or several times alike).
    let c0 = wall_index[i];
    let c1 = min(wall_index[i + 1u], arrayLength(&wall_out));
    for (var c = c0; c < c1; c++) {
        let o = wall_out[c];
        f = f + o.force;
        t = t + o.torque_i;
    }
    if (c1 - min(c0, c1) < sp.n_walls) {
        f = f + vec3<f32>(0.0);
        t = t + vec3<f32>(0.0);
    }
    if (arrayLength(&extra_force) == sp.n_spheres) {
        f = f + extra_force[i].force;
        t = t + extra_force[i].torque;
        extra_force[i] = SphereForce(vec3<f32>(0.0), 0.0, vec3<f32>(0.0), 0.0);
    }
    f = damp(f, s.vel, sp.global_damping * s.mass, sp.local_damping);
    t = damp(t, s.omega, sp.global_damping * s.inertia, sp.local_damping);
    return SphereForce(f, 0.0, t, 0.0);
}

// Force evaluation without a kick (the initial forces, a source attached).
@compute @workgroup_size(64)
fn gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    forces[i] = gather_at(i, spheres[i]);
}

// The close of a step: gather, then the kick(Δt/2) with the force just gathered (twin: gather,
// kick). Nothing between them changes the force or the sphere: wall_gather, after it, reads and
// writes only the walls, and the sources' record_after_step runs after both either way.
@compute @workgroup_size(64)
fn gather_kick(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, STEP_WG);
    if (list_stale()) {
        return;
    }
    if (i >= sp.n_spheres) {
        return;
    }
    let s = spheres[i];
    let g = gather_at(i, s);
    forces[i] = g;
    spheres[i] = kick_of(s, g);
}

// One workgroup of WALL_LANES invocations per wall (twin: src/spheres/wall_reduce.rs). The wall's
// candidates in sphere order have ranks r = 0 .. m_w − 1; lane t sums the block of ranks
// t·K .. t·K + K − 1, K = ⌈m_w / WALL_LANES⌉, in increasing rank (f − force, t + torque_j), then
// the fixed binary tree of fixed_reduce.wgsl (stride 128, 64, …, 1) adds the lanes' partials. The
// ranks are found without a per-wall list: lane t first counts the wall's candidates in its block
// of the global candidate list (L = ⌈M / WALL_LANES⌉ candidates), a scan of those counts gives the
// rank at each block's start, and lane t walks from the block holding rank t·K. Each lane reads
// O(M / WALL_LANES) candidates instead of one thread reading all M (docs/spheres.md, *GPU*). No
// barrier sits in non-uniform control flow: a halted batch sets M = 0 and skips the final write
// instead of returning.
const WALL_LANES: u32 = REDUCE_LANES;
var<workgroup> wall_n: array<u32, 256>;

/// Whether candidate slot c carries a force or torque (wall_reduce.rs `carries`): only these are
/// ranked, so a force-free candidate (a list built at another time, as after a resume) moves no
/// block and a resumed run sums its walls as the uninterrupted one.
fn carries(c: u32) -> bool {
    let o = wall_out[c];
    return any(o.force != vec3<f32>(0.0)) || any(o.torque_j != vec3<f32>(0.0));
}

@compute @workgroup_size(256)
fn wall_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let w = wid.x;
    let lane = lid.x;
    if (w >= sp.n_walls) {
        return;
    }
    let live = !list_stale();
    var m = 0u;
    if (live) {
        m = min(wall_index[sp.n_spheres], arrayLength(&wall_out));
    }
    let base = sp.n_spheres + 1u;
    // Counts per block of the global list, then an inclusive scan (Hillis–Steele).
    let l = (m + WALL_LANES - 1u) / WALL_LANES;
    let b0 = min(lane * l, m);
    let b1 = min(b0 + l, m);
    var count = 0u;
    for (var c = b0; c < b1; c++) {
        if (wall_index[base + c] % sp.n_walls == w && carries(c)) {
            count += 1u;
        }
    }
    wall_n[lane] = count;
    workgroupBarrier();
    for (var s = 1u; s < WALL_LANES; s *= 2u) {
        var v = wall_n[lane];
        if (lane >= s) {
            v += wall_n[lane - s];
        }
        workgroupBarrier();
        wall_n[lane] = v;
        workgroupBarrier();
    }
    let m_w = wall_n[WALL_LANES - 1u];
    let k = (m_w + WALL_LANES - 1u) / WALL_LANES;
    let r0 = min(lane * k, m_w);
    let r1 = min(r0 + k, m_w);
    var f = vec3<f32>(0.0);
    var t = vec3<f32>(0.0);
    if (r0 < r1) {
        // The block j holding rank r0: the first with inclusive count > r0.
        var lo = 0u;
        var hi = WALL_LANES - 1u;
        while (lo < hi) {
            let mid = (lo + hi) / 2u;
            if (wall_n[mid] > r0) {
                hi = mid;
            } else {
                lo = mid + 1u;
            }
        }
        // The rank at block lo's start: the inclusive count of the block before.
        var r = select(0u, wall_n[max(lo, 1u) - 1u], lo > 0u);
        for (var c = lo * l; c < m && r < r1; c++) {
            if (wall_index[base + c] % sp.n_walls == w && carries(c)) {
                if (r >= r0) {
                    let o = wall_out[c];
                    f = f - o.force;
                    t = t + o.torque_j;
                }
                r += 1u;
            }
        }
    }
    let total = reduce_tree2(lane, f, t);
    if (lane == 0u && live) {
        var wall = walls[w];
        wall.force = total.a;
        wall.torque = total.b;
        // Servo walls: the velocity of the next drift from the stress just measured (no read-back).
        wall.velocity = servo_velocity(wall);
        walls[w] = wall;
    }
}
