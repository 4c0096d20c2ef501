//! GPU exclusive prefix scan (`softdem::gpu::scan::PrefixScan`) against its CPU twin, exactly,
//! with direct and with indirect dispatches (as the stepper records it).
//! Needs a wgpu adapter (lavapipe is enough): `gpu_for_tests` panics without one.

use softdem::gpu::array::GpuArray;
use softdem::gpu::context::{gpu_for_tests, GpuContext};
use softdem::gpu::scan::PrefixScan;

use softdem::cpu::scan::prefix_scan;

/// Deterministic pseudo-random numbers (splitmix64).
struct Rng(u64);
impl Rng {
    fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    }
}

/// Random input of length `n`; `max_value == 0` means the full u32 range (sums wrap).
fn random_input(seed: u64, n: usize, max_value: u32) -> Vec<u32> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let r = rng.next_u32();
            if max_value == 0 {
                r
            } else {
                r % (max_value + 1)
            }
        })
        .collect()
}

const GUARD: [u32; 3] = [0xDEAD_BEEF, 0xFEED_FACE, 0x0BAD_F00D];

/// Uploads `input` followed by a slot for the total and guard words.
fn upload(ctx: &GpuContext, input: &[u32]) -> GpuArray<u32> {
    let mut padded = input.to_vec();
    padded.push(0x5555_5555); // overwritten by the total
    padded.extend_from_slice(&GUARD);
    GpuArray::new(ctx, "scan data", &padded).unwrap()
}

/// Checks `got` (n + 1 + guard words) against the CPU scan of `input`.
fn check(what: &str, input: &[u32], got: &[u32]) {
    let n = input.len();
    let mut expect = input.to_vec();
    let total = prefix_scan(&mut expect);
    if let Some(i) = (0..n).find(|&i| got[i] != expect[i]) {
        panic!(
            "{what}: n = {n}: first mismatch at {i}: gpu {} cpu {} (input {})",
            got[i], expect[i], input[i]
        );
    }
    assert_eq!(got[n], total, "{what}: n = {n}: total");
    assert_eq!(got[n + 1..], GUARD, "{what}: n = {n}: wrote past data[n]");
}

fn scan_once(ctx: &GpuContext, input: &[u32]) -> Vec<u32> {
    let data = upload(ctx, input);
    let scan = PrefixScan::new(ctx, data.buffer(), input.len() as u32).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    scan.encode(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    data.read(ctx)
}

#[test]
fn scan_matches_cpu_twin() {
    let ctx = gpu_for_tests();
    let sizes = [
        0usize, 1, 255, 256, 257, 1023, 1024, 1025, 2048, 70_000, 1_048_577, 3_000_000,
    ];
    for (seed, &n) in sizes.iter().enumerate() {
        for max_value in [0u32, 7] {
            let input = random_input(seed as u64 * 31 + max_value as u64, n, max_value);
            let got = scan_once(&ctx, &input);
            check(&format!("random(max {max_value})"), &input, &got);
        }
    }
}

#[test]
fn scan_2_pow_24() {
    let ctx = gpu_for_tests();
    let n = 1usize << 24;
    let input = random_input(24, n, 3);
    let got = scan_once(&ctx, &input);
    check("2^24", &input, &got);
}

/// Several scans with different n recorded into one encoder: no call may change the parameters
/// of another, and scans of the same buffer run in order.
#[test]
fn many_scans_in_one_encoder() {
    let ctx = gpu_for_tests();
    let sizes = [5000usize, 3, 1_100_000, 0, 5000, 1024, 70_000];
    let inputs: Vec<Vec<u32>> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| random_input(100 + i as u64, n, 1000))
        .collect();
    let arrays: Vec<GpuArray<u32>> = inputs.iter().map(|v| upload(&ctx, v)).collect();

    // Also scan the first array twice: the second scan sees the first one's output.
    let twice = random_input(7, 3000, 5);
    let twice_arr = upload(&ctx, &twice);

    let scans: Vec<PrefixScan> = arrays
        .iter()
        .zip(&inputs)
        .map(|(a, i)| PrefixScan::new(&ctx, a.buffer(), i.len() as u32).unwrap())
        .collect();
    let twice_scan = PrefixScan::new(&ctx, twice_arr.buffer(), 3000).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    for scan in &scans {
        scan.encode(&mut encoder);
    }
    twice_scan.encode(&mut encoder);
    twice_scan.encode(&mut encoder);
    ctx.queue.submit([encoder.finish()]);

    for (arr, input) in arrays.iter().zip(&inputs) {
        check("one encoder", input, &arr.read(&ctx));
    }
    let mut once = twice.clone();
    prefix_scan(&mut once);
    check("scan of a scan", &once, &twice_arr.read(&ctx));

    // Reuse of prepared scans across submissions gives the same results.
    for ((arr, input), scan) in arrays.iter().zip(&inputs).zip(&scans) {
        arr.write(&ctx, input);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        scan.encode(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        check("reuse", input, &arr.read(&ctx));
    }
}

#[test]
fn too_small_buffer_is_refused() {
    let ctx = gpu_for_tests();
    let data = GpuArray::<u32>::zeroed(&ctx, "small", 10).unwrap();
    let err = PrefixScan::new(&ctx, data.buffer(), 10)
        .err()
        .expect("a 10-element buffer cannot hold 10 + 1");
    assert!(format!("{err:#}").contains("n + 1 for the total"), "{err:#}");
}

/// Indirect dispatch, as inside the stepper's rebuild: with the full workgroup counts the scan is
/// exact; with x = 0 in every slot nothing is touched.
#[test]
fn indirect_scan_runs_or_skips() {
    let ctx = gpu_for_tests();
    let input = random_input(5, 70_000, 100);
    for enabled in [true, false] {
        let data = upload(&ctx, &input);
        let scan = PrefixScan::new(&ctx, data.buffer(), input.len() as u32).unwrap();
        let args: Vec<u32> = scan
            .dispatch_sizes()
            .iter()
            .flat_map(|&(x, y)| [if enabled { x } else { 0 }, y, 1])
            .collect();
        let args = GpuArray::new_indirect(&ctx, "args", &args).unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            scan.record_indirect(&mut pass, args.buffer(), 0);
        }
        ctx.queue.submit([encoder.finish()]);
        let got = data.read(&ctx);
        if enabled {
            check("indirect", &input, &got);
        } else {
            assert_eq!(
                &got[..input.len()],
                &input[..],
                "a zero-sized indirect scan changed the data"
            );
        }
    }
}
