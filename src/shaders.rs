//! Every WGSL kernel of the crate, embedded at compile time. `common.wgsl` (shared helpers) is
//! prepended to each kernel before compilation, so line numbers in errors are mapped back by
//! `shader_source` users via `COMMON_LINES`.

/// Shared WGSL helpers prepended to every kernel.
pub const COMMON: &str = include_str!("../shaders/common.wgsl");

/// (name, source) of every kernel file in `shaders/` except `common.wgsl`.
pub const KERNELS: &[(&str, &str)] = &[];

/// Number of lines `COMMON` adds in front of a kernel (for mapping error lines back to the file).
pub fn common_lines() -> usize {
    COMMON.lines().count()
}

/// Full source of kernel `name` as compiled: common helpers + the kernel file.
pub fn shader_source(name: &str) -> Option<String> {
    KERNELS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, src)| format!("{COMMON}\n{src}"))
}
