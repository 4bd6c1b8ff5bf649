/**
 * QA wave 12, vello's kernels the sixth wave left out (`#import`s inlined as vello's
 * preprocessor does, module-scope `let`s as `const`s): the indirect-dispatch setup kernels here,
 * binning (`_wgsl_corpus_qa12_vello_binning.ts`: a workgroup `array<array<atomic<u32>, N_TILE>,
 * N_SLICE>`) and clip_leaf (`_wgsl_corpus_qa12_vello_clip.ts`: a `ptr<function, Bic>`
 * parameter, `Bic()`, `array<Bic, 510 >`); see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { CONFIG, config } from "./_wgsl_corpus_qa6_vello.ts";

// https://github.com/linebender/vello/blob/main/vello_shaders/shader/shared/bump.wgsl (stored
// version 5e630b5a6e014a236c2a0f74d9d9da44dca7e753), its `let`s as `const`s.
export const BUMP = /* wgsl */ `
// Bitflags for each stage that can fail allocation.
const STAGE_BINNING: u32 = 0x1u;
const STAGE_TILE_ALLOC: u32 = 0x2u;
const STAGE_FLATTEN: u32 = 0x4u;
const STAGE_PATH_COUNT: u32 = 0x8u;
const STAGE_COARSE: u32 = 0x10u;
const PREVIOUS_RUN: u32 = 0x20u;

// This must be kept in sync with the struct in config.rs in the encoding crate.
struct BumpAllocators {
    // Bitmask of stages that have failed allocation.
    failed: atomic<u32>,
    binning: atomic<u32>,
    ptcl: atomic<u32>,
    tile: atomic<u32>,
    seg_counts: atomic<u32>,
    segments: atomic<u32>,
    blend: atomic<u32>,
    lines: atomic<u32>,
}

struct IndirectCount {
    count_x: u32,
    count_y: u32,
    count_z: u32,
}
`;

// https://github.com/linebender/vello/blob/main/vello_shaders/shader/shared/bbox.wgsl (stored
// version d2bd95145dd73bb569209ce918dbf55bf103f881), its comments dropped.
export const BBOX = /* wgsl */ `
struct PathBbox {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
    draw_flags: u32,
    trans_ix: u32,
}

fn bbox_intersect(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4(max(a.xy, b.xy), min(a.zw, b.zw));
}
`;

/** A bump allocator struct's eight words (failed, binning, ptcl, tile, seg_counts, ...). */
export const bump = (
  set: Partial<Record<"failed" | "seg_counts" | "lines", number>>,
): Uint32Array<ArrayBuffer> =>
  Uint32Array.from([set.failed ?? 0, 0, 0, 0, set.seg_counts ?? 0, 0, 0, set.lines ?? 0]);

const [SETUP_WORDS, SETUP_PARAMS] = config({ segments_size: 5000 });

export const VELLO12: readonly CorpusCase[] = [
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/path_count_setup.wgsl
    // (stored version 0fc2e712d1d6df51e6cb10209d5906e51939ea76), `let WG_SIZE` as `const`: a
    // workgroup of one invocation, an entry point with no parameters, atomics read with
    // atomicLoad, an indirect-dispatch struct written.
    name: "vello path_count_setup (no entry parameters, workgroup_size(1), IndirectCount)",
    source: BUMP + /* wgsl */ `
@group(0) @binding(0)
var<storage, read_write> bump: BumpAllocators;

@group(0) @binding(1)
var<storage, read_write> indirect: IndirectCount;

// Partition size for path count stage
const WG_SIZE = 256u;

@compute @workgroup_size(1)
fn main() {
    if atomicLoad(&bump.failed) != 0u {
        indirect.count_x = 0u;
    } else {
        let lines = atomicLoad(&bump.lines);
        indirect.count_x = (lines + (WG_SIZE - 1u)) / WG_SIZE;
    }
    indirect.count_y = 1u;
    indirect.count_z = 1u;
}
`,
    plain: [B(0, 0, bump({ lines: 1000 })), B(0, 1, new Uint32Array(3))],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/path_tiling_setup.wgsl
    // (stored version 29f70b5410eb6c256c6c9b69257d7a63b95b23d2), `let WG_SIZE` as `const`: the
    // Config uniform beside the atomics struct, a `let` shadowing a `let` in an inner block,
    // `~0u`; the segment count past `segments_size` takes the failure branch.
    name: "vello path_tiling_setup (Config + atomics, shadowed let, overflow branch)",
    source: CONFIG + BUMP + /* wgsl */ `
@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage, read_write> bump: BumpAllocators;

@group(0) @binding(2)
var<storage, read_write> indirect: IndirectCount;

@group(0) @binding(3)
var<storage, read_write> ptcl: array<u32>;

// Partition size for path tiling stage
const WG_SIZE = 256u;

@compute @workgroup_size(1)
fn main() {
    indirect.count_y = 1u;
    indirect.count_z = 1u;
    let segments = atomicLoad(&bump.seg_counts);
    let overflowed = segments > config.segments_size;
    if atomicLoad(&bump.failed) != 0u  || overflowed {
        if overflowed {
            // Report the failure so that the CPU can know we have failed.
            atomicOr(&bump.failed, STAGE_COARSE);
        }
        // Cancel path_tiling
        indirect.count_x = 0u;
        // signal fine rasterizer that failure happened (it doesn't bind bump)
        ptcl[0] = ~0u;
    } else {
        let segments = atomicLoad(&bump.seg_counts);
        indirect.count_x = (segments + (WG_SIZE - 1u)) / WG_SIZE;
    }
}
`,
    plain: [
      B(0, 0, SETUP_WORDS, true),
      B(0, 1, bump({ seg_counts: 7000 })),
      B(0, 2, Uint32Array.from([9, 9, 9])),
      B(0, 3, Uint32Array.from([1, 2, 3, 4])),
    ],
    workgroups: [1, 1, 1],
    params: SETUP_PARAMS,
  },
];
