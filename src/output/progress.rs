//! Progress on the terminal: an indicatif bar with ETA (steps against the estimated total of the
//! remaining stages) and a one-line summary every few seconds (step, time, stage, strain, stress,
//! kinetic energy, steps/s). When stderr is not a terminal (a batch job's log), the same summary
//! every few seconds as a plain line with the fraction done and the ETA, and the run's messages.

use crate::run::{ObserveCtx, ProgressSink};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

pub struct Progress {
    bar: Option<ProgressBar>,
    /// Plain lines instead of a bar (stderr is not a terminal, not quiet).
    log: bool,
    summary_every: Duration,
    last_summary: Instant,
    start: Instant,
    start_step: Option<u64>,
}

impl Progress {
    /// A bar on stderr when it is a terminal, plain summary lines when it is not; silent when
    /// `quiet`.
    pub fn new(summary_every_s: f64, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let b = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr_with_hz(4));
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:32.cyan/blue} {pos}/{len} steps  ETA {eta}  {msg}",
                )
                .expect("template")
                .progress_chars("=> "),
            );
            b
        });
        Progress {
            bar,
            log: !quiet && !terminal,
            summary_every: Duration::from_secs_f64(summary_every_s.max(0.1)),
            last_summary: Instant::now(),
            start: Instant::now(),
            start_step: None,
        }
    }

    /// A sink that prints nothing at all (library use, tests).
    pub fn silent() -> Progress {
        Progress::new(1e9, true)
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }

    fn summary(&self, ctx: &ObserveCtx) -> String {
        let rate = (ctx.step - self.start_step.unwrap_or(0)) as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
        format!(
            "step {:>9}  t {:.4e}  {:<12}  strain {:+.4e}  stress {:+.4e}  KE {:.3e}  {:.0} steps/s",
            ctx.step, ctx.time, ctx.stage, ctx.strain, ctx.m.stress_yy, ctx.m.energies.kinetic, rate
        )
    }
}

impl ProgressSink for Progress {
    fn update(&mut self, step: u64, estimated_total: u64, ctx: &ObserveCtx) {
        self.start_step.get_or_insert(step);
        let due = (self.log || self.bar.is_some()) && self.last_summary.elapsed() >= self.summary_every;
        if due {
            self.last_summary = Instant::now();
        }
        if let Some(b) = &self.bar {
            b.set_length(estimated_total.max(step));
            b.set_position(step);
            b.set_message(format!("{}  KE {:.2e}", ctx.stage, ctx.m.energies.kinetic));
            if due {
                b.println(self.summary(ctx));
            }
        } else if due {
            // A log has no bar: the line carries the fraction done and the ETA itself.
            let total = estimated_total.max(step).max(1);
            let done = (step - self.start_step.unwrap_or(0)) as f64;
            let left = (total - step) as f64 * self.start.elapsed().as_secs_f64() / done.max(1.0);
            eprintln!(
                "{}  {:.1}% of ~{total} steps  ETA {}",
                self.summary(ctx),
                100.0 * step as f64 / total as f64,
                indicatif::HumanDuration(Duration::from_secs_f64(left))
            );
        }
    }

    fn message(&mut self, line: &str) {
        match &self.bar {
            Some(b) => b.println(line),
            None if self.log || line.starts_with("warning") => eprintln!("{line}"),
            None => {}
        }
    }
}
