// core_pressure.wgsl: core pressure on segment a → b (§2.4): s·ℓ·p along the outward normal, half
// to each end; twin of src/cpu/core_pressure.rs. Returns the force on each end node.

#import model

fn core_pressure(depth: f32, pressure: f32, orientation: f32, a: NodeState, b: NodeState) -> vec2<f32> {
    let e = df_sub(b, a);
    let h = 0.5 * depth * pressure * orientation;
    return vec2<f32>(h * e.y, -h * e.x);
}
