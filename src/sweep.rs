//! Parameter sweeps: the cartesian product of values over named scenario keys. `softdem sweep
//! SWEEP.toml` runs every member in sequence and collects; `--slurm` writes a Slurm job-array
//! script running one member per task (`--member K`); `--collect` gathers every member's
//! `series.csv` into one table `sweep.csv` (member and parameter columns first).
//!
//! ```toml
//! scenario = "compaction.toml"       # relative to the sweep file
//! out = "out/sweep"                  # default out/<sweep file stem>
//! backend = "cpu"                    # default gpu
//! steps = 20000                      # optional step cap per member
//! [parameters]
//! "contact.mu" = [0.1, 0.5]
//! "materials.shell.eta" = [0.0, 1.0]
//! [slurm]                            # optional, for --slurm
//! partition = "gpu"
//! time = "02:00:00"
//! extra = ["#SBATCH --gres=gpu:1"]
//! ```

use crate::backend::BackendKind;
use crate::output::atomic;
use crate::run::session::{self, RunRequest};
use anyhow::Context as _;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepFile {
    pub scenario: String,
    pub name: Option<String>,
    pub out: Option<String>,
    pub backend: Option<String>,
    pub steps: Option<u64>,
    pub parameters: toml::Table,
    pub slurm: Option<Slurm>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slurm {
    pub partition: Option<String>,
    pub time: Option<String>,
    pub account: Option<String>,
    pub cpus_per_task: Option<u32>,
    pub extra: Option<Vec<String>>,
    /// Command that runs softdem on the cluster (default: this executable's path).
    pub binary: Option<String>,
}

/// A sweep with its members resolved.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub file: SweepFile,
    pub path: PathBuf,
    pub scenario: PathBuf,
    pub out: PathBuf,
    pub backend: BackendKind,
    /// Parameter names in order.
    pub keys: Vec<String>,
    /// One entry per member: the value of each key.
    pub members: Vec<Vec<toml::Value>>,
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Sweep {
    pub fn load(path: &Path) -> anyhow::Result<Sweep> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {origin}"))?;
        let file: SweepFile =
            toml::from_str(&text).map_err(|e| crate::scenario::toml_error(&origin, &text, None, &e))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("sweep");
        let out = file
            .out
            .as_ref()
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("out").join(file.name.as_deref().unwrap_or(stem)));
        let backend = match file.backend.as_deref().unwrap_or("gpu") {
            "gpu" => BackendKind::Gpu,
            "cpu" => BackendKind::Cpu,
            other => anyhow::bail!("{origin}: key `backend`: \"{other}\" is not gpu or cpu"),
        };
        let mut keys = vec![];
        let mut members: Vec<Vec<toml::Value>> = vec![vec![]];
        for (k, v) in &file.parameters {
            let values = v
                .as_array()
                .filter(|a| !a.is_empty())
                .with_context(|| format!("{origin}: key `parameters.{k}`: give a non-empty array of values"))?;
            keys.push(k.clone());
            members = members
                .into_iter()
                .flat_map(|m| {
                    values.iter().map(move |x| {
                        let mut m = m.clone();
                        m.push(x.clone());
                        m
                    })
                })
                .collect();
        }
        Ok(Sweep {
            scenario: base.join(&file.scenario),
            path: path.to_path_buf(),
            out,
            backend,
            keys,
            members,
            file,
        })
    }

    pub fn member_dir(&self, k: usize) -> PathBuf {
        self.out.join(format!("member_{k:03}"))
    }

    fn request(&self, k: usize, backend: BackendKind) -> RunRequest {
        RunRequest {
            out: Some(self.member_dir(k)),
            steps: self.file.steps,
            quiet: true,
            overrides: self.keys.iter().cloned().zip(self.members[k].iter().cloned()).collect(),
            ..RunRequest::new(Some(self.scenario.clone()), backend)
        }
    }

    /// Checks that every member's scenario is valid (before anything runs).
    pub fn validate(&self) -> anyhow::Result<()> {
        for k in 0..self.members.len() {
            session::load(&self.request(k, self.backend)).with_context(|| format!("sweep member {k}"))?;
        }
        Ok(())
    }

    /// Writes `members.csv` (member, dir, one column per parameter).
    pub fn write_members(&self) -> anyhow::Result<()> {
        let mut s = format!("member,dir,{}\n", self.keys.join(","));
        for (k, m) in self.members.iter().enumerate() {
            let vals: Vec<String> = m.iter().map(|v| value_text(v).replace(',', ";")).collect();
            s += &format!("{k},{},{}\n", self.member_dir(k).display(), vals.join(","));
        }
        atomic::write(&self.out.join("members.csv"), s.as_bytes())
    }

    /// Runs member `k`.
    pub fn run_member(&self, k: usize, backend: BackendKind) -> anyhow::Result<session::RunReport> {
        anyhow::ensure!(
            k < self.members.len(),
            "member {k} does not exist (0..{})",
            self.members.len()
        );
        session::run(&self.request(k, backend)).with_context(|| format!("sweep member {k}"))
    }

    /// The Slurm job-array script (one member per array task).
    pub fn slurm_script(&self, backend: BackendKind) -> String {
        let sl = self.file.slurm.clone().unwrap_or_default();
        let bin = sl.binary.clone().unwrap_or_else(|| {
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "softdem".into())
        });
        let sweep = std::fs::canonicalize(&self.path).unwrap_or(self.path.clone());
        let name = self.file.name.clone().unwrap_or_else(|| "softdem-sweep".into());
        let mut s = String::from("#!/bin/bash\n");
        s += &format!("#SBATCH --job-name={name}\n");
        s += &format!("#SBATCH --array=0-{}\n", self.members.len() - 1);
        s += &format!("#SBATCH --output={}/slurm_%a.log\n", self.out.display());
        if let Some(p) = &sl.partition {
            s += &format!("#SBATCH --partition={p}\n");
        }
        if let Some(t) = &sl.time {
            s += &format!("#SBATCH --time={t}\n");
        }
        if let Some(a) = &sl.account {
            s += &format!("#SBATCH --account={a}\n");
        }
        if let Some(c) = sl.cpus_per_task {
            s += &format!("#SBATCH --cpus-per-task={c}\n");
        }
        for e in sl.extra.iter().flatten() {
            s += e;
            s.push('\n');
        }
        s += &format!(
            "set -euo pipefail\n# Member $SLURM_ARRAY_TASK_ID of {n} writes {out}/member_NNN; then gather with:\n#   {bin} sweep {sw} --collect\n\"{bin}\" sweep \"{sw}\" --member \"$SLURM_ARRAY_TASK_ID\" --backend {b}\n",
            n = self.members.len(),
            out = self.out.display(),
            sw = sweep.display(),
            b = match backend {
                BackendKind::Gpu => "gpu",
                BackendKind::Cpu => "cpu",
            }
        );
        s
    }

    /// Gathers every member's `series.csv` (modal-only runs: `modal_series.csv`) into
    /// `sweep.csv`; returns its path and row count.
    pub fn collect(&self) -> anyhow::Result<(PathBuf, usize)> {
        let mut header: Option<String> = None;
        let mut out = String::new();
        let mut rows = 0;
        let mut missing = vec![];
        for (k, m) in self.members.iter().enumerate() {
            let dir = self.member_dir(k);
            let p = ["series.csv", "modal_series.csv"]
                .iter()
                .map(|f| dir.join(f))
                .find(|p| p.exists())
                .unwrap_or_else(|| dir.join("series.csv"));
            let Ok(text) = std::fs::read_to_string(&p) else {
                missing.push(k);
                continue;
            };
            let mut lines = text.lines();
            let h = lines.next().unwrap_or("");
            match &header {
                None => {
                    header = Some(h.to_string());
                    out = format!("member,{},{h}\n", self.keys.join(","));
                }
                Some(h0) => anyhow::ensure!(h0 == h, "{}: columns differ from member 0's", p.display()),
            }
            let vals: Vec<String> = m.iter().map(|v| value_text(v).replace(',', ";")).collect();
            for l in lines {
                out += &format!("{k},{},{l}\n", vals.join(","));
                rows += 1;
            }
        }
        anyhow::ensure!(
            header.is_some(),
            "no member of {} has a series.csv yet",
            self.out.display()
        );
        if !missing.is_empty() {
            eprintln!("warning: members without series.csv: {missing:?}");
        }
        let path = self.out.join("sweep.csv");
        atomic::write(&path, out.as_bytes())?;
        Ok((path, rows))
    }
}

/// `softdem sweep`.
pub fn command(
    path: &Path,
    slurm: bool,
    member: Option<usize>,
    collect: bool,
    backend: Option<BackendKind>,
) -> anyhow::Result<()> {
    let sw = Sweep::load(path)?;
    let backend = backend.unwrap_or(sw.backend);
    if collect {
        let (p, n) = sw.collect()?;
        println!("wrote {} ({n} rows from {} members)", p.display(), sw.members.len());
        return Ok(());
    }
    if let Some(k) = member {
        sw.run_member(k, backend)?;
        return Ok(());
    }
    sw.validate()?;
    std::fs::create_dir_all(&sw.out)?;
    sw.write_members()?;
    if slurm {
        let script = sw.out.join("sweep.sbatch");
        atomic::write(&script, sw.slurm_script(backend).as_bytes())?;
        println!(
            "wrote {} ({} members) and {}\nsubmit:  sbatch {}\ncollect: softdem sweep {} --collect",
            script.display(),
            sw.members.len(),
            sw.out.join("members.csv").display(),
            script.display(),
            path.display()
        );
        return Ok(());
    }
    for k in 0..sw.members.len() {
        let params: Vec<String> = sw
            .keys
            .iter()
            .zip(&sw.members[k])
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let r = sw.run_member(k, backend)?;
        eprintln!(
            "member {k}/{}: {} -> {} steps in {:.1} s",
            sw.members.len(),
            params.join(", "),
            r.steps,
            r.seconds
        );
    }
    let (p, n) = sw.collect()?;
    println!("wrote {} ({n} rows from {} members)", p.display(), sw.members.len());
    Ok(())
}
