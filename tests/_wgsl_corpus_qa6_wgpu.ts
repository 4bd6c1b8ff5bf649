/**
 * QA wave 6, wgpu's own WGSL: wgpu-core's timestamp normalization (two structs of u32 words,
 * overrides given as pipeline constants, trailing commas in constructors, unsuffixed literals
 * in u32 context) and the shaders of wgpu's GPU tests; see `_wgsl_corpus_qa6.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

// https://github.com/gfx-rs/wgpu/blob/trunk/wgpu-core/src/timestamp_normalization/common.wgsl
// (the stored version), its doc comments dropped: prepended to the shaders below as wgpu does.
const COMMON = /* wgsl */ `struct Uint64 {
    low: u32,
    high: u32,
}

struct Uint96 {
    low: u32,
    mid: u32,
    high: u32,
}

fn truncate_u96_to_u64(x: Uint96) -> Uint64 {
    return Uint64(
        x.low,
        x.mid,
    );
}

fn low(a: u32) -> u32 {
    return a & 0xFFFF;
}

fn high(a: u32) -> u32 {
    return a >> 16;
}

fn u32_from_u16s(w1: u32, w0: u32) -> u32 {
    return low(w1) << 16 | low(w0);
}

fn u64_mul_u32(a: Uint64, b: u32) -> Uint96 {
    let a0 = low(a.low);
    let a1 = high(a.low);
    let a2 = low(a.high);
    let a3 = high(a.high);

    let b0 = low(b);
    let b1 = high(b);

    let i0 = a0 * b0;
    let i1 = a1 * b0;
    let i2 = a2 * b0;
    let i3 = a3 * b0;
    let i4 = a0 * b1;
    let i5 = a1 * b1;
    let i6 = a2 * b1;
    let i7 = a3 * b1;

    let r0 = low(i0);
    let r1 = high(i0) + low(i1) + low(i4) + high(r0);
    let r2 = high(i1) + low(i2) + high(i4) + low(i5) + high(r1);
    let r3 = high(i2) + low(i3) + high(i5) + low(i6) + high(r2);
    let r4 = high(i3) + high(i6) + low(i7) + high(r3);
    let r5 = high(i7) + high(r4);

    let out0 = u32_from_u16s(r1, r0);
    let out1 = u32_from_u16s(r3, r2);
    let out2 = u32_from_u16s(r5, r4);

    return Uint96(out0, out1, out2);
}

fn shift_right_96(x: Uint96, shift: u32) -> Uint96 {
    if (shift == 0) {
        return x;
    }
    if (shift == 32) {
        return Uint96(x.mid, x.high, 0);
    }

    let inv_shift = 32 - shift;

    let carry2 = x.high << inv_shift;
    let carry1 = x.mid << inv_shift;

    var out: Uint96;

    out.high = x.high >> shift;
    out.mid = (x.mid >> shift) | carry2;
    out.low = (x.low >> shift) | carry1;

    return out;
}
`;

export const WGPU6: readonly CorpusCase[] = [
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/wgpu-core/src/timestamp_normalization/timestamp_normalization.wgsl
    // after common.wgsl, as wgpu preprocesses it; the `var<push_constant>` block is a uniform
    // here (core WebGPU has no push constants). Overrides scale the timestamps by 5/2^3.
    name: "wgpu timestamp_normalization (overrides, Uint64/Uint96 struct arithmetic)",
    source: COMMON + /* wgsl */ `
override TIMESTAMP_PERIOD_MULTIPLY: u32 = 1;
override TIMESTAMP_PERIOD_SHIFT: u32 = 0;

@group(0) @binding(0)
var<storage, read_write> timestamps: array<Uint64>;

struct PushConstants {
    timestamp_offset: u32,
    timestamp_count: u32,
}

@group(0) @binding(1)
var<uniform> pc: PushConstants;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= pc.timestamp_count {
        return;
    }

    let index = id.x + pc.timestamp_offset;

    let input_value = timestamps[index];

    let tmp1 = u64_mul_u32(input_value, TIMESTAMP_PERIOD_MULTIPLY);
    let tmp2 = shift_right_96(tmp1, TIMESTAMP_PERIOD_SHIFT);

    timestamps[index] = truncate_u96_to_u64(tmp2);
}
`,
    plain: [B(0, 0, u(200, 0xffffffff)), B(0, 1, Uint32Array.of(3, 90), true)],
    workgroups: [2, 1, 1],
    threads: 90,
    params: { timestamp_offset: 3, timestamp_count: 90 },
    constants: { TIMESTAMP_PERIOD_MULTIPLY: 5, TIMESTAMP_PERIOD_SHIFT: 3 },
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/tests/tests/wgpu-gpu/timestamp_normalization/u64_mul_u32.wgsl
    // after common.wgsl: an input struct holding a struct (`left: Uint64`, 16-byte stride), an
    // output of 12-byte `Uint96`s; a `let` shadowing the binding's name.
    name: "wgpu timestamp_normalization test u64_mul_u32 (nested struct, 12-byte stride)",
    source: COMMON + /* wgsl */ `
struct U64MulU32Input {
    left: Uint64,
    right: u32,
    _padding: u32,
}

@group(0) @binding(0)
var<storage> input: array<U64MulU32Input>;

@group(0) @binding(1)
var<storage, read_write> output: array<Uint96>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3u) {
    let index = id.x;

    let input = input[index];

    output[index] = u64_mul_u32(input.left, input.right);
}
`,
    plain: [B(0, 0, u(1024, 0xffffffff)), B(0, 1, new Uint32Array(768))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/tests/tests/shader/zero_init_workgroup_mem.wgsl
    // verbatim, entry point `read`: a workgroup struct of a const-sized array and an atomic,
    // read back as zero in every group (the output starts at 7 so the launch shows).
    name: "wgpu zero_init_workgroup_mem (workgroup struct with a const-sized array and atomic)",
    entryPoint: "read",
    source: /* wgsl */ `const array_size = 512u;

struct WStruct {
    arr: array<u32, array_size>,
    atom: atomic<u32>
}

var<workgroup> w_mem: WStruct;

var<workgroup> w_mem_array: array<u32, array_size>;

@group(0) @binding(0)
var<storage, read_write> output: array<u32>;

@compute @workgroup_size(1)
fn read(@builtin(workgroup_id) wgid: vec3<u32>, @builtin(num_workgroups) num_workgroups: vec3<u32>) {
    var is_zero = true;
    for(var i = 0u; i < array_size; i++) {
        is_zero &= w_mem.arr[i] == 0u;
        is_zero &= w_mem_array[i] == 0u;
    }
    is_zero &= atomicLoad(&w_mem.atom) == 0u;

    let idx = wgid.x + (wgid.y * num_workgroups.x) + (wgid.z * num_workgroups.x * num_workgroups.y);
    output[idx] = u32(!is_zero);
}

@compute @workgroup_size(1)
fn write() {
    for(var i = 0u; i < array_size; i++) {
        w_mem.arr[i] = i;
        w_mem_array[i] = i;
    }
    atomicStore(&w_mem.atom, 3u);
}
`,
    plain: [B(0, 0, new Uint32Array(24).fill(7))],
    workgroups: [4, 3, 2],
  },
];
