//! Atomic file writes: the bytes go to a temporary file in the same directory, are synced, and
//! the file is renamed over the target, so a reader (or a crash, or Ctrl-C) only ever sees the
//! previous or the new complete file.

use anyhow::Context as _;
use std::io::Write as _;
use std::path::Path;

/// Writes `bytes` to `path` atomically (creating the parent directory).
pub fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_with(path, |tmp| {
        let mut f = std::fs::File::create(tmp).with_context(|| format!("creating {}", tmp.display()))?;
        f.write_all(bytes)
            .with_context(|| format!("writing {}", tmp.display()))?;
        f.sync_all().ok();
        Ok(())
    })
}

/// Writes a file produced by `fill` (which writes to the given temporary path) atomically; for
/// writers that insist on a path (PNG encoders).
pub fn write_with(path: &Path, fill: impl FnOnce(&Path) -> anyhow::Result<()>) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    // Keep the extension last: encoders pick the format from it.
    let tmp = dir.join(format!(".tmp{}.{name}", std::process::id()));
    fill(&tmp)?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
}
