//! `checkpoint.bin`: the complete state of a run, so `softdem run --resume DIR` continues it bit
//! for bit. Layout (little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `SDEMCKPT` |
//! | 4 + 4 | format version (`VERSION`), 0 |
//! | 8 | FNV-1a hash of the scenario's canonical TOML (refuses another scenario) |
//! | 8 | steps done |
//! | 8 + n | driver state (stage, loads, strain origin) as JSON, padded to 8 bytes |
//! | 8 + n each | `SavedState` arrays as raw `Pod` records (bytemuck): nodes, node_bc, start, entries, hist, x_ref, links |
//! | 8 | max_disp_bits (u32) and 0 |
//! | 8 + n | only for modal and coupled runs: the kind's own state (`SavedState::kind`, `engine::KindBytes`) |
//! | 8 | FNV-1a of everything before (a truncated or damaged file is refused) |
//!
//! SPD runs write no kind section, so their checkpoints are the same bytes as before it existed.
//!
//! Written atomically, so a checkpoint is always either the previous or the new one.

use super::atomic;
use crate::backend::SavedState;
use crate::run::{DriverState, ObserveCtx, Observer};
use crate::scenario::fnv1a;
use anyhow::Context as _;
use bytemuck::Pod;
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"SDEMCKPT";
pub const VERSION: u32 = 2;

/// A checkpoint as read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub scenario_hash: u64,
    pub saved: SavedState,
    pub driver: DriverState,
}

fn put_array<T: Pod>(out: &mut Vec<u8>, v: &[T]) {
    let bytes: &[u8] = bytemuck::cast_slice(v);
    out.extend_from_slice(&(v.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
}

/// Serialises a checkpoint.
pub fn encode(scenario_hash: u64, saved: &SavedState, driver: &DriverState) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + saved.nodes.len() * 80 + saved.entries.len() * 24);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&scenario_hash.to_le_bytes());
    out.extend_from_slice(&saved.steps.to_le_bytes());
    let json = serde_json::to_vec(driver).expect("driver state serialises");
    put_array(&mut out, &json);
    put_array(&mut out, &saved.nodes);
    put_array(&mut out, &saved.node_bc);
    put_array(&mut out, &saved.start);
    put_array(&mut out, &saved.entries);
    put_array(&mut out, &saved.hist);
    put_array(&mut out, &saved.x_ref);
    put_array(&mut out, &saved.links);
    out.extend_from_slice(&(saved.max_disp_bits as u64).to_le_bytes());
    if !saved.kind.is_empty() {
        put_array(&mut out, &saved.kind);
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u64(&mut self) -> anyhow::Result<u64> {
        let s = self
            .b
            .get(self.at..self.at + 8)
            .context("the checkpoint is truncated")?;
        self.at += 8;
        Ok(u64::from_le_bytes(s.try_into().unwrap()))
    }

    fn array<T: Pod>(&mut self) -> anyhow::Result<Vec<T>> {
        let n = self.u64()? as usize;
        let len = n.checked_mul(std::mem::size_of::<T>()).context("bad array length")?;
        let s = self
            .b
            .get(self.at..self.at + len)
            .context("the checkpoint is truncated")?;
        self.at += len.div_ceil(8) * 8;
        Ok(bytemuck::pod_collect_to_vec(s))
    }
}

/// Parses a checkpoint, checking magic, version and checksum.
pub fn decode(bytes: &[u8]) -> anyhow::Result<Checkpoint> {
    anyhow::ensure!(bytes.len() >= 48 && &bytes[..8] == MAGIC, "not a softdem checkpoint");
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    anyhow::ensure!(
        version == VERSION,
        "checkpoint format version {version}, this softdem reads {VERSION}"
    );
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    anyhow::ensure!(
        fnv1a(body) == u64::from_le_bytes(sum.try_into().unwrap()),
        "the checkpoint is damaged or truncated (checksum mismatch)"
    );
    let mut r = Reader { b: body, at: 16 };
    let scenario_hash = r.u64()?;
    let steps = r.u64()?;
    let json: Vec<u8> = r.array()?;
    let driver: DriverState = serde_json::from_slice(&json).context("driver state in the checkpoint")?;
    let saved = SavedState {
        steps,
        nodes: r.array()?,
        node_bc: r.array()?,
        start: r.array()?,
        entries: r.array()?,
        hist: r.array()?,
        x_ref: r.array()?,
        links: r.array()?,
        max_disp_bits: r.u64()? as u32,
        kind: vec![],
    };
    let saved = SavedState {
        kind: if r.at < body.len() { r.array()? } else { vec![] },
        ..saved
    };
    Ok(Checkpoint {
        scenario_hash,
        saved,
        driver,
    })
}

/// Reads `path`.
pub fn read(path: &Path) -> anyhow::Result<Checkpoint> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    decode(&bytes).with_context(|| format!("reading {}", path.display()))
}

/// Writes `checkpoint.bin` every `every` steps (0: only at the end) and at the end.
pub struct CheckpointWriter {
    pub path: PathBuf,
    pub every: u64,
    pub scenario_hash: u64,
    last: Option<u64>,
}

impl CheckpointWriter {
    pub fn new(path: PathBuf, every: u64, scenario_hash: u64) -> CheckpointWriter {
        CheckpointWriter {
            path,
            every,
            scenario_hash,
            last: None,
        }
    }

    fn write(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if self.last == Some(ctx.step) {
            return Ok(());
        }
        let saved = ctx.backend.export_state()?;
        atomic::write(&self.path, &encode(self.scenario_hash, &saved, ctx.state))?;
        self.last = Some(ctx.step);
        Ok(())
    }
}

impl Observer for CheckpointWriter {
    fn next_due(&self, step: u64) -> u64 {
        crate::run::next_multiple(step, self.every)
    }

    fn observe(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        if crate::run::is_due(ctx.step, self.every) && ctx.step > 0 {
            self.write(ctx)?;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ObserveCtx) -> anyhow::Result<()> {
        self.write(ctx)
    }
}
