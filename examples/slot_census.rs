//! Measurement aid for docs/architecture.md ("Why the SPD contact slots are not a SlotPool"):
//! `cargo run --release --example slot_census -- STEPS CELLS… | s:SCENARIO.toml` steps the
//! compaction bench (`scenes::compaction_bench`) of each size, or a scenario's scene (its
//! gravity as node forces, no stages), on the GPU backend and prints the SPD neighbour-list
//! entries per node, the entries that hold a contact slot, the list and pool capacities and the
//! bytes of `slot_index` and the contact-slot pools.
use softdem::backend::Backend;
use softdem::gpu::stepper::GpuBackend;
use std::sync::Arc;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let steps: u32 = args[1].parse().unwrap();
    let ctx = Arc::new(softdem::gpu::context::GpuContext::new().unwrap());
    for c in &args[2..] {
        let (cells, scene) = match c.strip_prefix("s:") {
            Some(path) => {
                let sc = softdem::scenario::Scenario::load(std::path::Path::new(path)).unwrap();
                let mut b = sc.build().unwrap();
                // Gravity as the driver applies it (m g on free nodes).
                let g = sc.settings.gravity;
                for n in b.scene.nodes.iter_mut() {
                    if b.scene.bodies[n.body as usize].flags & softdem::model::BODY_FROZEN == 0 {
                        n.bc_force[0] += n.mass * g[0] as f32;
                        n.bc_force[1] += n.mass * g[1] as f32;
                    }
                }
                (0, b.scene)
            }
            None => {
                let cells: usize = c.parse().unwrap();
                (cells, softdem::scenes::compaction_bench(cells).0)
            }
        };
        let n = scene.nodes.len();
        let mut be = GpuBackend::new(ctx.clone(), &scene).unwrap();
        be.step(steps).unwrap();
        let cs = be.read_contacts().unwrap();
        let e = cs.entries.len();
        let active = cs.slots.iter().filter(|s| s.flags != 0).count();
        let contacts = cs.active_count();
        let bb = be.buffer_bytes();
        let get = |k: &str| {
            bb.iter()
                .filter(|(n, _)| n.starts_with(k))
                .map(|(_, b)| *b)
                .sum::<u64>()
        };
        let (si, cs_b) = (get("slot_index"), get("contact slots"));
        println!(
            "cells {cells} nodes {n} steps {steps}: entries {e} ({:.3}/node), list capacity {} ({:.3}/node), entries with a slot {active} ({:.4} of entries), contacts {contacts}, pool capacity {} slots; slot_index bytes {si} ({:.2} B/node), contact slots bytes {cs_b} ({:.2} B/node), total {:.2} B/node",
            e as f64 / n as f64,
            be.list_capacity(),
            be.list_capacity() as f64 / n as f64,
            active as f64 / e as f64,
            be.pool_capacity(),
            si as f64 / n as f64,
            cs_b as f64 / n as f64,
            be.bytes_gpu() as f64 / n as f64
        );
    }
}
