//! GpuContext and GpuArray on a real adapter (lavapipe is enough; `gpu_for_tests` panics
//! without one), and the 2-D dispatch convention (`dispatch_size` + WGSL `linear_id`).

use softdem::gpu::array::{dispatch_size, GpuArray, MAX_WORKGROUPS_PER_DIM};
use softdem::gpu::context::{enumerate_adapters, gpu_for_tests};
use softdem::gpu::info::print_info;

#[test]
fn adapter_info_and_limits() {
    let ctx = gpu_for_tests();
    assert!(!enumerate_adapters().is_empty());
    print_info().unwrap();
    let l = &ctx.limits;
    let a = ctx.adapter.limits();
    assert_eq!(
        l.max_storage_buffers_per_shader_stage,
        a.max_storage_buffers_per_shader_stage.min(16)
    );
    assert_eq!(l.max_storage_buffer_binding_size, a.max_storage_buffer_binding_size);
    assert_eq!(l.max_buffer_size, a.max_buffer_size);
    assert_eq!(
        ctx.device.limits().max_storage_buffer_binding_size,
        a.max_storage_buffer_binding_size
    );
}

#[test]
fn round_trip_write_read() {
    let ctx = gpu_for_tests();
    let data: Vec<[f32; 2]> = (0..1000).map(|i| [i as f32, -(i as f32) * 0.5]).collect();
    let arr = GpuArray::new(&ctx, "pairs", &data).unwrap();
    assert_eq!(arr.len(), 1000);
    assert!(!arr.is_empty());
    assert_eq!(arr.buffer().size(), 8000);
    assert_eq!(arr.read(&ctx), data);

    let part: Vec<[f32; 2]> = (0..10).map(|i| [100.0 + i as f32, 0.0]).collect();
    arr.write(&ctx, &part);
    let got = arr.read(&ctx);
    assert_eq!(got[..10], part[..]);
    assert_eq!(got[10..], data[10..]);

    let z = GpuArray::<u32>::zeroed(&ctx, "zeros", 77).unwrap();
    assert_eq!(z.read(&ctx), vec![0u32; 77]);

    let ind = GpuArray::new_indirect(&ctx, "args", &[1u32, 1, 1]).unwrap();
    assert!(ind.buffer().usage().contains(wgpu::BufferUsages::INDIRECT));
    assert!(!arr.buffer().usage().contains(wgpu::BufferUsages::INDIRECT));
    assert_eq!(ind.read(&ctx), vec![1, 1, 1]);
}

#[test]
fn empty_arrays_have_a_bindable_buffer() {
    let ctx = gpu_for_tests();
    let e = GpuArray::<u32>::new(&ctx, "empty", &[]).unwrap();
    assert!(e.is_empty());
    assert!(e.buffer().size() >= 16);
    assert!(e.read(&ctx).is_empty());
    e.write(&ctx, &[]);
    let big = GpuArray::<[f32; 8]>::zeroed(&ctx, "empty structs", 0).unwrap();
    assert!(big.buffer().size() >= 32);

    // Binding it is accepted (wgpu rejects zero-sized bindings).
    let pipeline = ctx.create_compute_pipeline("prefix_scan", "scan_blocks").unwrap();
    let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let _bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(1),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: e.binding(),
        }],
    });
    assert!(pollster::block_on(scope.pop()).is_none());
}

#[test]
fn too_big_is_refused_with_a_clear_message() {
    let ctx = gpu_for_tests();
    let limit = ctx.limits.max_storage_buffer_binding_size;
    assert!(ctx.check_binding_size("exact fit", limit).is_ok());
    let err = ctx
        .check_binding_size("contact list", limit + 4)
        .unwrap_err()
        .to_string();
    assert!(err.contains("contact list"), "{err}");
    assert!(err.contains(&(limit + 4).to_string()), "{err}");
    assert!(err.contains(&limit.to_string()), "{err}");

    let n = (limit / 4 + 1) as usize;
    let err = GpuArray::<u32>::zeroed(&ctx, "node positions", n)
        .err()
        .expect("over-limit array must be refused")
        .to_string();
    assert!(err.contains("node positions"), "{err}");
}

#[test]
fn pipeline_errors_are_returned() {
    let ctx = gpu_for_tests();
    let err = ctx
        .create_compute_pipeline("no_such_kernel", "main")
        .unwrap_err()
        .to_string();
    assert!(err.contains("no_such_kernel"), "{err}");
    let err = ctx
        .create_compute_pipeline("prefix_scan", "no_such_entry")
        .unwrap_err()
        .to_string();
    assert!(err.contains("no_such_entry"), "{err}");
}

/// `dispatch_size` + `linear_id` cover every index exactly once, also when the workgroups are
/// split into several rows (more than 65535).
#[test]
fn two_d_dispatch_covers_each_index_once() {
    let ctx = gpu_for_tests();
    let kernel = "
@group(0) @binding(0) var<storage, read_write> hits: array<atomic<u32>>;
@group(0) @binding(1) var<uniform> n: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, lid, nwg, 64u);
    if (i >= n.x) { return; }
    atomicAdd(&hits[i], 1u);
}
";
    let source = format!("{}\n{kernel}", softdem::shaders::COMMON);
    let module = ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("linear_id test"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });

    let wg = 64u32;
    let n = MAX_WORKGROUPS_PER_DIM * wg + 12_345; // needs 2 rows
    let (x, y) = dispatch_size(n, wg);
    assert_eq!(y, 2);
    let hits = GpuArray::<u32>::zeroed(&ctx, "hits", n as usize + 64).unwrap();
    let params = GpuArray::new(&ctx, "n", &[n, 0, 0, 0]).unwrap();
    let uniform = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: hits.binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: uniform.as_entire_binding(),
            },
        ],
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(params.buffer(), 0, &uniform, 0, 16);
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
    ctx.queue.submit([encoder.finish()]);
    let got = hits.read(&ctx);
    let n = n as usize;
    if let Some(i) = (0..n).find(|&i| got[i] != 1) {
        panic!("index {i} hit {} times", got[i]);
    }
    assert!(got[n..].iter().all(|&h| h == 0), "indices >= n were hit");
}
