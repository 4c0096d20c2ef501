//! Device and adapter set-up for the GPU backend.
//!
//! The adapter is chosen by wgpu's environment conventions:
//! `WGPU_BACKEND=vulkan|gl|metal|dx12` restricts the backends, `WGPU_ADAPTER_NAME=<substring>`
//! picks an adapter by name, `WGPU_POWER_PREF=low|high` biases the default choice. Instance flags
//! (`WGPU_VALIDATION`, `WGPU_DEBUG`, ...) are read from the environment too.
//!
//! Without a GPU, Mesa's software Vulkan driver (lavapipe, adapter "llvmpipe") works:
//! `apt-get install mesa-vulkan-drivers libvulkan1`.

use anyhow::{anyhow, bail, Context as _};

/// Upper bound we ask for on storage buffers per shader stage (wgpu's default is 8).
const WANTED_STORAGE_BUFFERS_PER_STAGE: u32 = 16;

/// Hint appended to every "no adapter" error.
const NO_ADAPTER_HINT: &str = "no usable GPU adapter. Without a GPU, install Mesa's software Vulkan \
     driver (`apt-get install mesa-vulkan-drivers libvulkan1`), or run on the CPU with \
     `--backend cpu`. `WGPU_BACKEND` / `WGPU_ADAPTER_NAME` select an adapter; see `softdem info`";

/// A wgpu device with the adapter it runs on and the limits it was created with.
pub struct GpuContext {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    /// Information about `adapter` (name, backend, device type, driver).
    pub info: wgpu::AdapterInfo,
    /// Limits the device was created with (what kernels may rely on).
    pub limits: wgpu::Limits,
}

/// Instance descriptors to try, in order. With `WGPU_BACKEND` set: exactly what it names.
/// Otherwise the primary backends, Vulkan and Metal, then DX12 (kept apart, see
/// [`without_indirect_validation`]), then the rest (adds GL), so that GL/EGL is only initialised
/// when no primary adapter exists. (Mesa prints a harmless `XDG_RUNTIME_DIR is invalid` line when
/// it initialises, once per instance for lavapipe.)
fn instance_candidates() -> Vec<wgpu::InstanceDescriptor> {
    let from_env = wgpu::InstanceDescriptor::new_without_display_handle_from_env;
    let with = |backends: wgpu::Backends| {
        let mut d = from_env();
        d.backends = backends;
        without_indirect_validation(d)
    };
    if std::env::var_os("WGPU_BACKEND").is_some() {
        vec![without_indirect_validation(from_env())]
    } else {
        vec![
            with(wgpu::Backends::VULKAN | wgpu::Backends::METAL),
            with(wgpu::Backends::DX12),
            with(wgpu::Backends::all() - wgpu::Backends::PRIMARY),
        ]
    }
}

/// The instance flags softdem uses for an adapter of `backend` (printed by the GPU report).
pub fn instance_flags(backend: wgpu::Backend) -> wgpu::InstanceFlags {
    let mut d = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    d.backends = backend.into();
    without_indirect_validation(d).flags
}

/// `desc` without `VALIDATION_INDIRECT_CALL` (wgpu keeps it on by default, also in release: a
/// validation dispatch and barriers per indirect dispatch), unless `WGPU_VALIDATION_INDIRECT_CALL`
/// is set (then it decides) or the backends include DX12, where `@builtin(num_workgroups)` reads 0
/// in indirect dispatches without it (`linear_id` needs it past 65535 workgroups). softdem's only
/// indirect dispatches are the SPD list build's (`GpuBackend`, coupled runs and
/// `SOFTDEM_GPU_REBUILD=gpu`), whose arguments are a host-computed template or zero, within the
/// device limits, and the report's empty-dispatch probe (1, 1, 1): the validation guards nothing.
fn without_indirect_validation(mut desc: wgpu::InstanceDescriptor) -> wgpu::InstanceDescriptor {
    if std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL").is_none() && !desc.backends.contains(wgpu::Backends::DX12) {
        desc.flags.remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    desc
}

/// The adapter chosen by `initialize_adapter_from_env_or_default` on `instance`, or why none.
fn adapter_from_env(instance: &wgpu::Instance) -> Result<wgpu::Adapter, String> {
    // `initialize_adapter_from_env` panics when WGPU_ADAPTER_NAME matches no adapter: check
    // first so that we can return an error instead.
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let wanted = wanted.to_lowercase();
        let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
        if !adapters
            .iter()
            .any(|a| a.get_info().name.to_lowercase().contains(&wanted))
        {
            let names: Vec<String> = adapters
                .iter()
                .map(|a| {
                    let i = a.get_info();
                    format!("{} ({:?})", i.name, i.backend)
                })
                .collect();
            return Err(format!(
                "WGPU_ADAPTER_NAME={wanted:?} matches no adapter (found: [{}])",
                names.join(", ")
            ));
        }
    }
    pollster::block_on(wgpu::util::initialize_adapter_from_env_or_default(instance, None))
        .map_err(|e| format!("wgpu: {e}"))
}

/// Whether `XDG_RUNTIME_DIR` names a usable runtime directory: set, absolute (what Wayland's
/// client library, which Mesa loads, requires before printing `error: XDG_RUNTIME_DIR is invalid
/// or not set in the environment`), and an existing directory.
pub fn runtime_dir_valid(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| {
        let p = std::path::Path::new(v);
        p.is_absolute() && p.is_dir()
    })
}

/// A private runtime directory for this user, created with mode 0700 (or reused when it exists
/// with that mode): `<temp dir>/softdem-runtime-<uid>`.
#[cfg(unix)]
pub fn private_runtime_dir() -> std::io::Result<std::path::PathBuf> {
    use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("softdem-runtime-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let m = std::fs::symlink_metadata(&dir)?;
    if !m.is_dir() || m.permissions().mode() & 0o777 != 0o700 || (uid != 0 && m.uid() != uid) {
        return Err(std::io::Error::other(format!(
            "{} exists but is not a private (0700) directory of this user",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Sets `XDG_RUNTIME_DIR` to a private directory (`private_runtime_dir`) when it is unset or
/// invalid, once, before the first wgpu instance: Mesa's drivers otherwise print
/// `error: XDG_RUNTIME_DIR is invalid or not set` from a working run.
fn ensure_runtime_dir() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        if !runtime_dir_valid(std::env::var_os("XDG_RUNTIME_DIR").as_deref()) {
            if let Ok(dir) = private_runtime_dir() {
                // Once, before any wgpu instance (and the driver threads it starts) exists.
                std::env::set_var("XDG_RUNTIME_DIR", &dir);
            }
        }
    });
}

/// Limits requested from the device: wgpu's defaults, with the storage-buffer limits raised to
/// what the adapter offers (at most 16 storage buffers per stage). Workgroup storage and
/// invocations per workgroup stay at the defaults (16 KiB, 256): our kernels use workgroup sizes
/// 64 and 256.
pub fn required_limits(adapter: &wgpu::Limits) -> wgpu::Limits {
    wgpu::Limits {
        max_storage_buffers_per_shader_stage: adapter
            .max_storage_buffers_per_shader_stage
            .min(WANTED_STORAGE_BUFFERS_PER_STAGE),
        max_storage_buffer_binding_size: adapter.max_storage_buffer_binding_size,
        max_buffer_size: adapter.max_buffer_size,
        ..wgpu::Limits::default()
    }
}

/// The optional features softdem requests where the adapter has them (see `GpuContext::new`).
pub fn wanted_features() -> wgpu::Features {
    wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP
}

/// The naga capabilities kernel `name` is validated with: `SUBGROUP` for the subgroup modules
/// ([`crate::shaders::NEEDS_SUBGROUPS`], created only on a device with `Features::SUBGROUP`),
/// naga's defaults for every other kernel, so that a subgroup operation slipping into a kernel
/// every device compiles fails validation (tests/shaders_validate.rs).
pub fn kernel_capabilities(name: &str) -> naga::valid::Capabilities {
    if crate::shaders::NEEDS_SUBGROUPS.contains(&name) {
        naga::valid::Capabilities::default() | naga::valid::Capabilities::SUBGROUP
    } else {
        naga::valid::Capabilities::default()
    }
}

impl GpuContext {
    /// Whether the device was created with subgroup operations (`Features::SUBGROUP`: the
    /// adapter has them): the subgroup kernels can be compiled.
    pub fn has_subgroups(&self) -> bool {
        self.device.features().contains(wgpu::Features::SUBGROUP)
    }

    /// One line on subgroup operations: whether the adapter has them (and its subgroup sizes) and
    /// whether the device was created with them (`softdem info`, the GPU report).
    pub fn subgroup_summary(&self) -> String {
        let i = &self.info;
        if self.has_subgroups() {
            format!(
                "yes (Features::SUBGROUP requested; subgroup size {}–{})",
                i.subgroup_min_size, i.subgroup_max_size
            )
        } else {
            "no (the adapter lacks Features::SUBGROUP: the workgroup modes are used on a GPU)".to_string()
        }
    }

    /// Creates a device on the adapter selected by the environment (see the module docs).
    ///
    /// Errors (rather than panicking) when no adapter exists, when `WGPU_ADAPTER_NAME` matches
    /// none, or when the device cannot be created with the limits of [`required_limits`].
    pub fn new() -> anyhow::Result<GpuContext> {
        ensure_runtime_dir();
        let mut why = Vec::new();
        let mut found = None;
        for desc in instance_candidates() {
            let backends = desc.backends;
            let instance = wgpu::Instance::new(desc);
            match adapter_from_env(&instance) {
                Ok(adapter) => {
                    found = Some(adapter);
                    break;
                }
                Err(e) => why.push(format!("backends {backends:?}: {e}")),
            }
        }
        let adapter = found.ok_or_else(|| anyhow!("{NO_ADAPTER_HINT} ({})", why.join("; ")))?;
        let info = adapter.get_info();
        let limits = required_limits(&adapter.limits());

        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("softdem"),
            // Where the adapter has them: timestamp queries (the per-kernel times of
            // `softdem bench --gpu-report`, `gpu::profile`) and subgroup operations (the
            // `subgroup` modes of `gpu::stepper::SlotAllocation` and `DisplacementMax`, whose
            // kernels are modules of their own, `shaders::NEEDS_SUBGROUPS`). Nothing else depends
            // on them: the other kernels are valid without either.
            required_features: adapter.features() & wanted_features(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .with_context(|| {
            format!(
                "cannot create a device on adapter {:?} ({:?}) with the limits softdem needs",
                info.name, info.backend
            )
        })?;

        Ok(GpuContext {
            adapter,
            device,
            queue,
            info,
            limits,
        })
    }

    /// Blocks until all submitted work has finished.
    pub fn poll_wait(&self) {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("wgpu device poll failed (device lost?)");
    }

    /// Compiles kernel `shader_name` (from [`crate::shaders::KERNELS`], with its `#import`s
    /// resolved) and creates a compute pipeline for `entry_point` with an automatic layout
    /// (`layout: None`): bind group layouts come from `pipeline.get_bind_group_layout(i)`, and
    /// bind groups made from them only fit this pipeline.
    ///
    /// Shader and pipeline validation errors are returned, not raised through wgpu's uncaptured
    /// error handler; the message starts with naga's file:line report ([`validate_kernel`]).
    pub fn create_compute_pipeline(
        &self,
        shader_name: &str,
        entry_point: &str,
    ) -> anyhow::Result<wgpu::ComputePipeline> {
        let source = crate::shaders::shader_source(shader_name).map_err(|e| anyhow!(e))?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader_name),
            source: wgpu::ShaderSource::Wgsl(source.as_str().into()),
        });
        let label = format!("{shader_name}::{entry_point}");
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(&label),
            layout: None,
            module: &module,
            entry_point: Some(entry_point),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            let naga = match validate_kernel(shader_name) {
                Err(located) => format!("{located}\n"),
                Ok(()) => String::new(),
            };
            bail!(
                "compute pipeline {label} failed:\n{naga}wgpu: {err}\n(line numbers after `wgsl:` count in \
                 the compiled module: its #imports in order, then shaders/{shader_name}.wgsl)"
            );
        }
        Ok(pipeline)
    }

    /// Errors when a storage binding of `bytes` bytes would exceed the device's
    /// `max_storage_buffer_binding_size` (how too-big scenes are refused).
    pub fn check_binding_size(&self, what: &str, bytes: u64) -> anyhow::Result<()> {
        let limit = self.limits.max_storage_buffer_binding_size;
        if bytes > limit {
            bail!(
                "{what} needs a storage buffer of {bytes} bytes ({:.1} MiB), more than this \
                 device's max_storage_buffer_binding_size of {limit} bytes ({:.1} MiB) on {:?} \
                 ({:?}); use a smaller scene, another adapter (WGPU_ADAPTER_NAME) or the CPU \
                 backend",
                bytes as f64 / (1u64 << 20) as f64,
                limit as f64 / (1u64 << 20) as f64,
                self.info.name,
                self.info.backend
            );
        }
        Ok(())
    }
}

/// Maps a 1-based line of a module made by joining `parts` (`(file stem, source)`, in order) with
/// `"\n"`, as [`crate::shaders::shader_source`] does, back to `("shaders/<stem>.wgsl", line)`.
///
/// A part ending with a newline occupies its line count plus one (the joining newline then adds
/// an empty line); a part without a final newline occupies its line count (the joining newline
/// ends its last line). Lines past the end are attributed to the last part.
pub fn locate_in_parts(parts: &[(&str, &str)], line: usize) -> (String, usize) {
    let mut first = 1;
    for (k, (file, src)) in parts.iter().enumerate() {
        let last = k + 1 == parts.len();
        let lines = src.lines().count();
        let span = if src.ends_with('\n') || src.is_empty() {
            lines + 1
        } else {
            lines
        };
        if line < first + span || last {
            return (format!("shaders/{file}.wgsl"), line + 1 - first);
        }
        first += span;
    }
    ("shaders/?.wgsl".to_string(), line)
}

/// Parses and validates (naga, all validation flags, default capabilities) the module made by
/// joining `parts` with `"\n"` (see [`locate_in_parts`]); [`validate_parts_with`] with naga's
/// default capabilities. The error reads
/// `shaders/<file>.wgsl:<line>: <kernel>: <message>` (line `?` when naga gives no span; the
/// primary label of a parse error, the innermost span of a validation error), then naga's report, whose `wgsl:` line numbers count in
/// the joined module. `<kernel>` is the last part.
pub fn validate_parts(parts: &[(&str, &str)]) -> Result<(), String> {
    validate_parts_with(parts, naga::valid::Capabilities::default())
}

/// [`validate_parts`] with the naga capabilities `caps` (`kernel_capabilities`).
pub fn validate_parts_with(parts: &[(&str, &str)], caps: naga::valid::Capabilities) -> Result<(), String> {
    let kernel = parts.last().map(|p| p.0).unwrap_or("?");
    let source = parts.iter().map(|p| p.1).collect::<Vec<_>>().join("\n");
    let source = source.as_str();
    // Spans naga leaves undefined (e.g. an implicit return type) carry no location.
    let located = |span: Option<naga::Span>| match span.filter(|s| s.is_defined()) {
        Some(span) => {
            let (file, line) = locate_in_parts(parts, span.location(source).line_number as usize);
            format!("{file}:{line}")
        }
        None => format!("shaders/{kernel}.wgsl:?"),
    };
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        format!(
            "{}: {kernel}: parse error: {}\n{}",
            // The first defined label is the primary one.
            located(e.labels().map(|(span, _)| span).find(|s| s.is_defined())),
            e.message(),
            e.emit_to_string(source)
        )
    })?;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| {
            format!(
                "{}: {kernel}: validation error: {}\n{}",
                // The last span is the innermost (e.g. the expression inside the function).
                located(e.spans().map(|(span, _)| *span).filter(|s| s.is_defined()).last()),
                e.as_inner(),
                e.emit_to_string(source)
            )
        })?;
    Ok(())
}

/// [`validate_parts_with`] for kernel `name` of [`crate::shaders::KERNELS`], compiled from
/// [`crate::shaders::parts`] (its `#import`s resolved, then the kernel), with the capabilities
/// of [`kernel_capabilities`].
pub fn validate_kernel(name: &str) -> Result<(), String> {
    validate_kernel_with(name, kernel_capabilities(name))
}

/// [`validate_kernel`] with the naga capabilities `caps`.
pub fn validate_kernel_with(name: &str, caps: naga::valid::Capabilities) -> Result<(), String> {
    let parts = crate::shaders::parts(name)?;
    let parts: Vec<(&str, &str)> = parts.iter().map(|(n, s)| (*n, s.as_str())).collect();
    validate_parts_with(&parts, caps)
}

/// Information about every adapter wgpu finds, on all backends (ignores `WGPU_BACKEND`).
pub fn enumerate_adapters() -> Vec<wgpu::AdapterInfo> {
    ensure_runtime_dir();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = wgpu::Backends::all();
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
        .iter()
        .map(|a| a.get_info())
        .collect()
}

/// The GPU context for tests. Panics with instructions when no adapter exists: a GPU test must
/// never pass silently without running.
pub fn gpu_for_tests() -> GpuContext {
    match GpuContext::new() {
        Ok(ctx) => ctx,
        Err(e) => panic!(
            "GPU test needs a wgpu adapter and none could be used: {e:#}\n\
             (install `mesa-vulkan-drivers libvulkan1` for the software Vulkan driver)"
        ),
    }
}

#[cfg(all(test, unix))]
mod runtime_dir_tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    /// Unset, relative or missing values are invalid (Mesa would print its error line); the
    /// private directory replacing them exists with mode 0700 and is valid.
    #[test]
    fn invalid_runtime_dirs_are_replaced_by_a_private_one() {
        assert!(!runtime_dir_valid(None));
        assert!(!runtime_dir_valid(Some("relative/dir".as_ref())));
        assert!(!runtime_dir_valid(Some("/nonexistent/softdem-xdg".as_ref())));
        let dir = private_runtime_dir().unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
        assert!(runtime_dir_valid(Some(dir.as_os_str())));
        // A second call reuses it.
        assert_eq!(private_runtime_dir().unwrap(), dir);
    }
}
