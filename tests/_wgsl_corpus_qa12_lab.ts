/**
 * QA wave 12, ZXPrism/webgpu-compute-lab's scans and radix sort: overrides without defaults
 * sizing the workgroup and workgroup arrays (`array<u32, 1u << RADIX_BITS>`), an entry point
 * named `compute` (the stage attribute's name), a bare `u32` uniform, block statements that
 * re-declare `d`, `x++` on an array element, `<<=` and `>>=`; see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

export const LAB12: readonly CorpusCase[] = [
  {
    // https://github.com/ZXPrism/webgpu-compute-lab/blob/main/src/shaders/prefix_sum_blelloch.wgsl
    // (stored version 7eabb0b595995b3e2d6025a0ab0e413422fdfb9d) verbatim.
    name: "webgpu-compute-lab prefix_sum_blelloch (override SEGMENT_LENGTH, fn compute)",
    source: /* wgsl */ `override SEGMENT_LENGTH: u32;

@group(0) @binding(0) var<uniform> array_length : u32;
@group(0) @binding(1) var<storage, read> input_array : array<u32>;
@group(0) @binding(2) var<storage, read_write> prefix_sum : array<u32>;
@group(0) @binding(3) var<storage, read_write> segment_sum : array<u32>;

var<workgroup> workgroup_data: array<u32, SEGMENT_LENGTH>;

@compute
@workgroup_size(SEGMENT_LENGTH, 1, 1)
fn compute(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) segment_id : vec3<u32>
) {
    if global_id.x < array_length {
        workgroup_data[local_id.x] = input_array[global_id.x];
    } else {
        workgroup_data[local_id.x] = 0u;
    }

    workgroupBarrier();

    // pass 1: upsweep
    {
        var d = 1u;
        var offset = 1u << d;
        while offset <= SEGMENT_LENGTH {
            let idx = ((local_id.x + 1u) << d) - 1u;

            if idx < SEGMENT_LENGTH {
                workgroup_data[idx] += workgroup_data[idx - (offset >> 1u)];
            }

            d++;
            offset <<= 1u;

            workgroupBarrier();
        }
    }

    if local_id.x == SEGMENT_LENGTH - 1u {
        segment_sum[segment_id.x] = workgroup_data[SEGMENT_LENGTH - 1u];
        workgroup_data[SEGMENT_LENGTH - 1u] = 0u;
    }

    workgroupBarrier();

    // pass 2: downsweep
    {
        var d = SEGMENT_LENGTH;
        while d >= 2u {
            let curr_idx = ((local_id.x + 1u) * d) - 1u;
            if curr_idx < SEGMENT_LENGTH {
                let t = workgroup_data[curr_idx - (d >> 1u)];
                workgroup_data[curr_idx - (d >> 1u)] = workgroup_data[curr_idx];
                workgroup_data[curr_idx] += t;
            }

            d >>= 1u;

            workgroupBarrier();
        }
    }

    // note that blelloch is an exclusive scan, so when storing result we need to calculate the final element manually
    // if local_id.x > 0u {
    //     prefix_sum[global_id.x - 1u] = workgroup_data[local_id.x];
    // } else {
    //     let final_idx = global_id.x + SEGMENT_LENGTH - 1u;
    //     prefix_sum[final_idx] = workgroup_data[SEGMENT_LENGTH - 1u] + input_array[final_idx];
    // }

    prefix_sum[global_id.x] = workgroup_data[local_id.x]; // exclusive version
}
`,
    entryPoint: "compute",
    plain: [
      B(0, 0, Uint32Array.from([100]), true),
      B(0, 1, u(100, 50)),
      B(0, 2, new Uint32Array(128)),
      B(0, 3, new Uint32Array(4)),
    ],
    workgroups: [4, 1, 1],
    params: { array_length: 100 },
    constants: { SEGMENT_LENGTH: 32 },
  },
  {
    // https://github.com/ZXPrism/webgpu-compute-lab/blob/main/src/shaders/radix_sort_block.wgsl
    // (stored version 67a81971187cb69a35eccca72d44ab1d37cc93bf) verbatim: three overrides
    // without defaults, `var<workgroup> slot_size : array<u32, 1u << RADIX_BITS>`,
    // `slot_size[curr_slot]++`, a local `let SLOT_SIZE_LENGTH` in upper case.
    name: "webgpu-compute-lab radix_sort_block (array<u32, 1u << RADIX_BITS> in workgroup memory)",
    source: /* wgsl */ `override SEGMENT_LENGTH: u32;
override RADIX_BITS: u32; // 4 by default
override RIGHT_SHIFT_BITS: u32; // set by outer codes, starting from zero, each time += RADIX_BITS

@group(0) @binding(0) var<uniform> array_length : u32;
@group(0) @binding(1) var<storage, read> input_array : array<u32>;
@group(0) @binding(2) var<storage, read_write> sorted_array : array<u32>;

var<workgroup> input_data: array<u32, SEGMENT_LENGTH>;
var<workgroup> psum : array<u32, SEGMENT_LENGTH>;
var<workgroup> psum_final : array<u32, SEGMENT_LENGTH>;
var<workgroup> slot_size : array<u32, 1u << RADIX_BITS>;

@compute
@workgroup_size(SEGMENT_LENGTH, 1, 1)
fn compute(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) segment_id: vec3<u32>
) {
    if global_id.x < array_length {
        input_data[local_id.x] = input_array[global_id.x];
    } else {
        input_data[local_id.x] = 0xffffffffu; // set to a special value so that they are always at last
    }

    workgroupBarrier();

    let psum_way_cnt = 1u << RADIX_BITS;
    let mask = psum_way_cnt - 1u;
    let curr_slot = (input_data[local_id.x] >> RIGHT_SHIFT_BITS) & mask;

    // 1. (1 << RADIX_BITS)-way prefix sum
    var psum_curr = 0u;
    for (var slot = 0u; slot < psum_way_cnt; slot++) {
        // "split" to psum buffer
        // why split first? because in prefix sums, we will repeated access elements, but they need to be computed first
        // and we just want to compute them once
        psum[local_id.x] = select(0u, 1u, ((input_data[local_id.x] >> RIGHT_SHIFT_BITS) & mask) == slot);

        workgroupBarrier();

        // pass 1: upsweep
        {
            var d = 1u;
            var offset = 1u << d;
            while offset <= SEGMENT_LENGTH {
                let idx = ((local_id.x + 1u) << d) - 1u;

                if idx < SEGMENT_LENGTH {
                    psum[idx] += psum[idx - (offset >> 1u)];
                }

                d++;
                offset <<= 1u;

                workgroupBarrier();
            }
        }

        if local_id.x == SEGMENT_LENGTH - 1u {
            psum[SEGMENT_LENGTH - 1u] = 0u;
        }

        workgroupBarrier();

        // pass 2: downsweep
        {
            var d = SEGMENT_LENGTH;
            while d >= 2u {
                let new_d = d >> 1u;
                let curr_idx = ((local_id.x + 1u) * d) - 1u;
                if curr_idx < SEGMENT_LENGTH {
                    let t = psum[curr_idx - new_d];
                    psum[curr_idx - new_d] = psum[curr_idx];
                    psum[curr_idx] += t;
                }

                d = new_d;

                workgroupBarrier();
            }
        }

        if local_id.x == SEGMENT_LENGTH - 1 {
            slot_size[slot] = psum[SEGMENT_LENGTH - 1];
        }

        if slot == curr_slot {
            psum_curr = psum[local_id.x];
        }

        workgroupBarrier();
    }

    // set final psum -- interleaving psums
    psum_final[local_id.x] = psum_curr;

    // add the final element to its slot
    if local_id.x == SEGMENT_LENGTH - 1 {
        slot_size[curr_slot]++;
    }

    workgroupBarrier();

    // 2. prefix sum on slot sizes
    let SLOT_SIZE_LENGTH = 1u << RADIX_BITS;
    // pass 1: upsweep
    {
        var d = 1u;
        var offset = 1u << d;
        while offset <= SLOT_SIZE_LENGTH {
            let idx = ((local_id.x + 1u) << d) - 1u;

            if idx < SLOT_SIZE_LENGTH {
                slot_size[idx] += slot_size[idx - (offset >> 1u)];
            }

            d++;
            offset <<= 1u;

            workgroupBarrier();
        }
    }

    if local_id.x == SLOT_SIZE_LENGTH - 1u {
        slot_size[SLOT_SIZE_LENGTH - 1u] = 0u;
    }

    workgroupBarrier();

    // pass 2: downsweep
    {
        var d = SLOT_SIZE_LENGTH;
        while d >= 2u {
            let new_d = d >> 1u;
            let curr_idx = ((local_id.x + 1u) * d) - 1u;
            if curr_idx < SLOT_SIZE_LENGTH {
                let t = slot_size[curr_idx - new_d];
                slot_size[curr_idx - new_d] = slot_size[curr_idx];
                slot_size[curr_idx] += t;
            }

            d = new_d;

            workgroupBarrier();
        }
    }

    // 3. scatter
    if global_id.x < array_length {
        let base_addr = SEGMENT_LENGTH * segment_id.x;
        sorted_array[base_addr + slot_size[curr_slot] + psum_final[local_id.x]] = input_data[local_id.x];
    }
}
`,
    entryPoint: "compute",
    plain: [
      B(0, 0, Uint32Array.from([150]), true),
      B(0, 1, u(150, 4096)),
      B(0, 2, new Uint32Array(192)),
    ],
    workgroups: [3, 1, 1],
    params: { array_length: 150 },
    constants: { SEGMENT_LENGTH: 64, RADIX_BITS: 4, RIGHT_SHIFT_BITS: 4 },
  },
];
