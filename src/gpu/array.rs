//! Typed storage buffers ([`GpuArray`]) and the dispatch-size convention ([`dispatch_size`]).
//!
//! # Dispatch convention
//! One dispatch dimension holds at most 65535 workgroups (wgpu's default
//! `max_compute_workgroups_per_dimension`). Kernels over `n` items are therefore dispatched as
//! `(x, y, 1)` workgroups with `(x, y) = dispatch_size(n, WG)`, and each invocation computes its
//! item index with the WGSL helper in `shaders/common.wgsl`:
//!
//! ```wgsl
//! let i = linear_id(wid, lid, nwg, WG); // (wid.x + wid.y * nwg.x) * WG + lid.x
//! if (i >= n) { return; }
//! ```
//!
//! where `wid = @builtin(workgroup_id)`, `lid = @builtin(local_invocation_id)`,
//! `nwg = @builtin(num_workgroups)`. `x * y * WG` may exceed `n` (by less than `y` workgroups), so
//! kernels must always bound-check the index.

use std::marker::PhantomData;

use super::context::GpuContext;

/// Most workgroups one dispatch dimension may have (wgpu's default limit, also lavapipe's).
pub const MAX_WORKGROUPS_PER_DIM: u32 = 65535;

/// Workgroup counts `(x, y)` covering `n_groups` workgroups with `x, y <= 65535`
/// (`x * y >= n_groups`, with fewer than `y` extra workgroups).
///
/// Panics above 65535² workgroups (only reachable with workgroups of fewer than 2 invocations).
pub fn dispatch_groups(n_groups: u32) -> (u32, u32) {
    let max = MAX_WORKGROUPS_PER_DIM as u64;
    assert!(
        n_groups as u64 <= max * max,
        "{n_groups} workgroups do not fit a 2-D dispatch"
    );
    if n_groups <= MAX_WORKGROUPS_PER_DIM {
        (n_groups, 1)
    } else {
        let y = n_groups.div_ceil(MAX_WORKGROUPS_PER_DIM);
        (n_groups.div_ceil(y), y)
    }
}

/// Workgroup counts `(x, y)` for `n_threads` invocations in workgroups of `workgroup_size`, with
/// `x <= 65535` (rows `y` are added when more are needed). See the module docs for the WGSL side.
/// `n_threads == 0` gives `(0, 1)` (an empty dispatch, which wgpu accepts).
pub fn dispatch_size(n_threads: u32, workgroup_size: u32) -> (u32, u32) {
    assert!(workgroup_size > 0, "workgroup_size must be positive");
    dispatch_groups(n_threads.div_ceil(workgroup_size))
}

/// A storage buffer holding `len` elements of `T`.
///
/// Usage is `STORAGE | COPY_SRC | COPY_DST` (plus `INDIRECT` with [`GpuArray::new_indirect`]).
/// An empty array still owns a valid buffer of `max(16, size_of::<T>())` bytes, since wgpu rejects
/// zero-sized bindings; kernels must take the element count from a parameter, not from
/// `arrayLength`, when the array may be empty. For non-empty arrays the buffer is exactly
/// `len * size_of::<T>()` bytes.
pub struct GpuArray<T: bytemuck::Pod> {
    buffer: wgpu::Buffer,
    len: usize,
    _marker: PhantomData<T>,
}

impl<T: bytemuck::Pod> GpuArray<T> {
    fn elem_size() -> u64 {
        let s = std::mem::size_of::<T>();
        assert!(
            s > 0 && s.is_multiple_of(4),
            "GpuArray element size must be a positive multiple of 4 bytes (got {s}): WGSL storage \
             types are made of 4-byte scalars"
        );
        s as u64
    }

    fn create(
        ctx: &GpuContext,
        label: &str,
        len: usize,
        data: Option<&[T]>,
        extra: wgpu::BufferUsages,
    ) -> anyhow::Result<Self> {
        let bytes = len as u64 * Self::elem_size();
        ctx.check_binding_size(label, bytes)?;
        let size = if bytes == 0 { Self::elem_size().max(16) } else { bytes };
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST | extra,
            mapped_at_creation: bytes > 0 && data.is_some(),
        });
        if let Some(data) = data.filter(|d| !d.is_empty()) {
            {
                let mut view = buffer
                    .slice(..)
                    .get_mapped_range_mut()
                    .expect("buffer mapped at creation");
                view.copy_from_slice(bytemuck::cast_slice(data));
            }
            buffer.unmap();
        }
        Ok(GpuArray {
            buffer,
            len,
            _marker: PhantomData,
        })
    }

    /// A buffer initialised with `data`.
    pub fn new(ctx: &GpuContext, label: &str, data: &[T]) -> anyhow::Result<Self> {
        Self::create(ctx, label, data.len(), Some(data), wgpu::BufferUsages::empty())
    }

    /// Like [`GpuArray::new`], with `INDIRECT` usage too (for `dispatch_workgroups_indirect`
    /// arguments, three `u32` per dispatch).
    pub fn new_indirect(ctx: &GpuContext, label: &str, data: &[T]) -> anyhow::Result<Self> {
        Self::create(ctx, label, data.len(), Some(data), wgpu::BufferUsages::INDIRECT)
    }

    /// A buffer of `len` zeroed elements (wgpu zero-initialises new buffers).
    pub fn zeroed(ctx: &GpuContext, label: &str, len: usize) -> anyhow::Result<Self> {
        Self::create(ctx, label, len, None, wgpu::BufferUsages::empty())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements (its buffer still exists, see the type docs).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The underlying buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The whole buffer as a binding resource.
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        self.buffer.as_entire_binding()
    }

    /// Writes `data` to elements `0..data.len()` through the queue (takes effect at the next
    /// submission, before its command buffers run). Panics if `data` is longer than the array.
    pub fn write(&self, ctx: &GpuContext, data: &[T]) {
        assert!(
            data.len() <= self.len,
            "GpuArray::write: {} elements into an array of {}",
            data.len(),
            self.len
        );
        if data.is_empty() {
            return;
        }
        ctx.queue.write_buffer(&self.buffer, 0, bytemuck::cast_slice(data));
    }

    /// Writes `data` as [`GpuArray::write`], or replaces the array by a new one holding it when it
    /// is longer (true: bind groups that hold the old buffer must be made again).
    pub fn write_or_grow(&mut self, ctx: &GpuContext, label: &str, data: &[T]) -> anyhow::Result<bool> {
        if data.len() > self.len {
            *self = GpuArray::new(ctx, label, data)?;
            return Ok(true);
        }
        self.write(ctx, data);
        Ok(false)
    }

    /// Reads the array back (submits a copy to a staging buffer and waits for it).
    pub fn read(&self, ctx: &GpuContext) -> Vec<T> {
        let mut out = vec![T::zeroed(); self.len];
        if self.len > 0 {
            read_bytes(ctx, &self.buffer, 0, bytemuck::cast_slice_mut::<T, u8>(&mut out));
        }
        out
    }
}

/// Copies `out.len()` bytes of `buffer` from byte `offset` into `out` (through a staging
/// buffer; submits and waits for the queue). `out.len()` and `offset` are multiples of 4.
pub fn read_bytes(ctx: &GpuContext, buffer: &wgpu::Buffer, offset: u64, out: &mut [u8]) {
    let bytes = out.len() as u64;
    let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read_bytes staging"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("read_bytes"),
    });
    encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, bytes);
    ctx.queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    ctx.poll_wait();
    rx.recv()
        .expect("map_async callback was not called")
        .expect("read_bytes: mapping the staging buffer failed");
    out.copy_from_slice(
        &staging
            .slice(..)
            .get_mapped_range()
            .expect("read_bytes: mapped range unavailable"),
    );
    staging.unmap();
}

/// Element `index` of a u32 buffer (a 4-byte copy; waits for the queue).
pub fn read_u32_at(ctx: &GpuContext, buffer: &wgpu::Buffer, index: u64) -> u32 {
    let mut word = [0u8; 4];
    read_bytes(ctx, buffer, 4 * index, &mut word);
    u32::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_size_small_and_exact() {
        assert_eq!(dispatch_size(0, 64), (0, 1));
        assert_eq!(dispatch_size(1, 64), (1, 1));
        assert_eq!(dispatch_size(64, 64), (1, 1));
        assert_eq!(dispatch_size(65, 64), (2, 1));
        assert_eq!(dispatch_size(65535 * 256, 256), (65535, 1));
    }

    #[test]
    fn dispatch_size_splits_rows() {
        for &(n, wg) in &[
            (65535 * 256 + 1, 256u32),
            (1 << 24, 64),
            (u32::MAX, 64),
            (u32::MAX, 2),
            (65535 * 65535, 1),
            (3_000_000, 1),
            (200_000, 1),
        ] {
            let (x, y) = dispatch_size(n, wg);
            let groups = n.div_ceil(wg) as u64;
            assert!(x <= MAX_WORKGROUPS_PER_DIM && y <= MAX_WORKGROUPS_PER_DIM);
            assert!(x as u64 * y as u64 >= groups, "{n} {wg}: {x}x{y}");
            assert!(x as u64 * y as u64 - groups < y as u64, "{n} {wg}: {x}x{y}");
        }
    }

    #[test]
    #[should_panic(expected = "do not fit a 2-D dispatch")]
    fn dispatch_size_refuses_more_than_2d() {
        dispatch_size(u32::MAX, 1);
    }
}
