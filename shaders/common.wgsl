// common.wgsl: helpers shared by every kernel (prepended at load time; see src/shaders.rs).

const NONE: u32 = 0xffffffffu;
