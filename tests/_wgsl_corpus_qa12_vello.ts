/**
 * QA wave 12, vello's kernels the sixth wave left out (`#import`s inlined as vello's
 * preprocessor does, module-scope `let`s as `const`s): indirect-dispatch setup kernels, binning
 * (a workgroup `array<array<atomic<u32>, N_TILE>, N_SLICE>`) and clip_leaf (a
 * `ptr<function, Bic>` parameter, `Bic()`, `array<Bic, 510 >`); see `_wgsl_corpus_qa12.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { CONFIG, config, DRAWTAG } from "./_wgsl_corpus_qa6_vello.ts";

// https://github.com/linebender/vello/blob/main/vello_shaders/shader/shared/bump.wgsl (stored
// version 5e630b5a6e014a236c2a0f74d9d9da44dca7e753), its `let`s as `const`s.
const BUMP = /* wgsl */ `
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
const BBOX = /* wgsl */ `
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

// https://github.com/linebender/vello/blob/main/shader/shared/clip.wgsl (stored version
// 6cf620b8f1a21b9101e5045926d3dcc308b143bf), its comments dropped.
const CLIP = /* wgsl */ `
struct Bic {
    a: u32,
    b: u32,
}

fn bic_combine(x: Bic, y: Bic) -> Bic {
    let m = min(x.b, y.a);
    return Bic(x.a + y.a - m, x.b + y.b - m);
}

struct ClipInp {
    ix: u32,
    path_ix: i32,
}

struct ClipEl {
    parent_ix: u32,
    bbox: vec4<f32>,
}
`;

/** A bump allocator struct's eight words (failed, binning, ptcl, tile, seg_counts, ...). */
const bump = (set: Partial<Record<"failed" | "seg_counts" | "lines", number>>) =>
  Uint32Array.from([set.failed ?? 0, 0, 0, 0, set.seg_counts ?? 0, 0, 0, set.lines ?? 0]);

const [BIN_WORDS, BIN_PARAMS] = config({
  width_in_tiles: 32,
  height_in_tiles: 32,
  n_drawobj: 20,
  n_clip: 2,
  lines_size: 100,
  binning_size: 1000,
});
// Twenty draw objects: path i, clip 0, 1 or 2; PathBbox rectangles across the 2 x 2 bins of 256 px.
const DRAW_MONOIDS = Uint32Array.from({ length: 80 }, (_, k) => {
  const i = k >> 2;
  return [i, i % 3, i * 4, i * 2][k & 3];
});
const PATH_BBOXES = Int32Array.from({ length: 120 }, (_, k) => {
  const i = Math.floor(k / 6);
  const x0 = (i * 37) % 400, y0 = (i * 53) % 400;
  return [x0, y0, x0 + 20 + (i * 61) % 200, y0 + 10 + (i * 29) % 200, 0, i][k % 6];
});

const [SETUP_WORDS, SETUP_PARAMS] = config({ segments_size: 5000 });
const [CLIP_WORDS, CLIP_PARAMS] = config({ n_clip: 8 });
// BeginClip(path 0) BeginClip(path 1) EndClip BeginClip(path 2) EndClip EndClip BeginClip(path 3)
// EndClip, as (draw object index, path index or ~draw object index) pairs.
const CLIP_INP = Int32Array.from([0, 0, 1, 1, 2, ~2, 3, 2, 4, ~4, 5, ~5, 6, 3, 7, ~7]);

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
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/binning.wgsl (stored
    // version 05a9f617483e6c2b53b67b085be2f111195e241c) verbatim after config, drawtag, bbox and
    // bump: `array<array<atomic<u32>, N_TILE>, N_SLICE>` and `array<array<u32, N_TILE>,
    // N_SUBSLICE>` in workgroup memory, `workgroupUniformLoad`, a `BinHeader` struct declared
    // between bindings, `~(N_TILE - 1u)`, i32 bin coordinates. One workgroup (the bump
    // allocator's order between workgroups is the GPU's).
    name: "vello binning (workgroup array of arrays of atomics, 24-byte PathBbox, BinHeader)",
    source: CONFIG + DRAWTAG + BBOX + BUMP + /* wgsl */ `
@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage> draw_monoids: array<DrawMonoid>;

@group(0) @binding(2)
var<storage> path_bbox_buf: array<PathBbox>;

@group(0) @binding(3)
var<storage> clip_bbox_buf: array<vec4<f32>>;

@group(0) @binding(4)
var<storage, read_write> intersected_bbox: array<vec4<f32>>;

@group(0) @binding(5)
var<storage, read_write> bump: BumpAllocators;

@group(0) @binding(6)
var<storage, read_write> bin_data: array<u32>;

// TODO: put in common place
struct BinHeader {
    element_count: u32,
    chunk_offset: u32,
}

@group(0) @binding(7)
var<storage, read_write> bin_header: array<BinHeader>;

// conversion factors from coordinates to bin
const SX = 1.0 / f32(N_TILE_X * TILE_WIDTH);
const SY = 1.0 / f32(N_TILE_Y * TILE_HEIGHT);

const WG_SIZE = 256u;
const N_SLICE = WG_SIZE / 32u;
const N_SUBSLICE = 4u;

var<workgroup> sh_bitmaps: array<array<atomic<u32>, N_TILE>, N_SLICE>;
// store count values packed two u16's to a u32
var<workgroup> sh_count: array<array<u32, N_TILE>, N_SUBSLICE>;
var<workgroup> sh_chunk_offset: array<u32, N_TILE>;
var<workgroup> sh_previous_failed: u32;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wg_id: vec3<u32>,
) {
    for (var i = 0u; i < N_SLICE; i += 1u) {
        atomicStore(&sh_bitmaps[i][local_id.x], 0u);
    }
    if local_id.x == 0u {
        let failed = atomicLoad(&bump.lines) > config.lines_size;
        sh_previous_failed = u32(failed);
    }
    // also functions as barrier to protect zeroing of bitmaps
    let failed = workgroupUniformLoad(&sh_previous_failed);
    if failed != 0u {
        if global_id.x == 0u {
            atomicOr(&bump.failed, STAGE_FLATTEN);
        }
        return;
    }

    // Read inputs and determine coverage of bins for the draw object global_id.x
    let element_ix = global_id.x;
    var x0 = 0;
    var y0 = 0;
    var x1 = 0;
    var y1 = 0;
    if element_ix < config.n_drawobj {
        let draw_monoid = draw_monoids[element_ix];
        var clip_bbox = vec4(-1e9, -1e9, 1e9, 1e9);
        if draw_monoid.clip_ix > 0u {
            // TODO: \`clip_ix\` should always be valid as long as the monoids are correct. Leaving
            // the bounds check in here for correctness but we should assert this condition instead
            // once there is a debug-assertion mechanism.
            clip_bbox = clip_bbox_buf[min(draw_monoid.clip_ix - 1u, config.n_clip - 1u)];
        }
        // For clip elements, clip_box is the bbox of the clip path,
        // intersected with enclosing clips.
        // For other elements, it is the bbox of the enclosing clips.
        // TODO check this is true

        let path_bbox = path_bbox_buf[draw_monoid.path_ix];
        let pb = vec4<f32>(vec4(path_bbox.x0, path_bbox.y0, path_bbox.x1, path_bbox.y1));
        let bbox = bbox_intersect(clip_bbox, pb);

        intersected_bbox[element_ix] = bbox;

        // \`bbox_intersect\` can result in a zero or negative area intersection if the path bbox lies
        // outside the clip bbox. If that is the case, Don't round up the bottom-right corner of the
        // and leave the coordinates at 0. This way the path will get clipped out and won't get
        // assigned to a bin.
        if bbox.x < bbox.z && bbox.y < bbox.w {
            x0 = i32(floor(bbox.x * SX));
            y0 = i32(floor(bbox.y * SY));
            x1 = i32(ceil(bbox.z * SX));
            y1 = i32(ceil(bbox.w * SY));
        }
    }
    let width_in_bins = i32((config.width_in_tiles + N_TILE_X - 1u) / N_TILE_X);
    let height_in_bins = i32((config.height_in_tiles + N_TILE_Y - 1u) / N_TILE_Y);
    let n_bins = u32(width_in_bins * height_in_bins);
    let aligned_n_bins = (n_bins + N_TILE - 1u) & ~(N_TILE - 1u);

    x0 = clamp(x0, 0, width_in_bins);
    y0 = clamp(y0, 0, height_in_bins);
    x1 = clamp(x1, 0, width_in_bins);
    y1 = clamp(y1, 0, height_in_bins);
    if x0 == x1 {
        y1 = y0;
    }

    let y0_width = y0 * width_in_bins;
    let y1_width = y1 * width_in_bins;

    let my_slice = local_id.x / 32u;
    let my_mask = 1u << (local_id.x & 31u);

    // Loop over the blocks of bins in chunks of N_TILE (256)
    for (var block_start = 0u; block_start < n_bins; block_start += N_TILE) {
        let next_block = block_start + N_TILE;

        // Write coverage for the current block
        for (var y_offset = y0_width; y_offset < y1_width; y_offset += width_in_bins) {
            let start_bin = u32(y_offset + x0);
            let end_bin = u32(y_offset + x1);
            for (var bin_ix = start_bin; bin_ix < end_bin; bin_ix += 1u) {
                if bin_ix >= block_start && bin_ix < next_block {
                    let sh_bin_ix = bin_ix - block_start;
                    atomicOr(&sh_bitmaps[my_slice][sh_bin_ix], my_mask);
                }
            }
        }
        workgroupBarrier();

        // Accumulate counts and allocate output segment for the bins in this block
        let cur_bin_ix = block_start + local_id.x;
        var element_count = 0u;
        for (var i = 0u; i < N_SUBSLICE; i += 1u) {
            element_count += countOneBits(atomicLoad(&sh_bitmaps[i * 2u][local_id.x]));
            let element_count_lo = element_count;
            element_count += countOneBits(atomicLoad(&sh_bitmaps[i * 2u + 1u][local_id.x]));
            let element_count_hi = element_count;
            let element_count_packed = element_count_lo | (element_count_hi << 16u);
            sh_count[i][local_id.x] = element_count_packed;
        }

        // element_count is the number of draw objects covering this thread's bin
        var chunk_offset = atomicAdd(&bump.binning, element_count);
        if chunk_offset + element_count > config.binning_size {
            chunk_offset = 0u;
            atomicOr(&bump.failed, STAGE_BINNING);
        }
        sh_chunk_offset[local_id.x] = chunk_offset;

        let header_ix = wg_id.x * aligned_n_bins + cur_bin_ix;
        bin_header[header_ix].element_count = element_count;
        bin_header[header_ix].chunk_offset = chunk_offset;
        workgroupBarrier();

        // Output the element indices to bin_data
        for (var y_offset = y0_width; y_offset < y1_width; y_offset += width_in_bins) {
            let start_bin = u32(y_offset + x0);
            let end_bin = u32(y_offset + x1);
            for (var bin_ix = start_bin; bin_ix < end_bin; bin_ix += 1u) {
                if bin_ix >= block_start && bin_ix < next_block {
                    let sh_bin_ix = bin_ix - block_start;
                    let out_mask = atomicLoad(&sh_bitmaps[my_slice][sh_bin_ix]);
                    // I think this predicate will always be true...
                    if (out_mask & my_mask) != 0u {
                        var idx = countOneBits(out_mask & (my_mask - 1u));
                        if my_slice > 0u {
                            let count_ix = my_slice - 1u;
                            let count_packed = sh_count[count_ix / 2u][sh_bin_ix];
                            idx += (count_packed >> (16u * (count_ix & 1u))) & 0xffffu;
                        }
                        let offset = config.bin_data_start + sh_chunk_offset[sh_bin_ix];
                        bin_data[offset + idx] = element_ix;
                    }
                }
            }
        }

        if next_block < aligned_n_bins {
            workgroupBarrier();
            for (var i = 0u; i < N_SLICE; i += 1u) {
                atomicStore(&sh_bitmaps[i][local_id.x], 0u);
            }
            workgroupBarrier();
        }
    }
}
`,
    plain: [
      B(0, 0, BIN_WORDS, true),
      B(0, 1, DRAW_MONOIDS),
      B(0, 2, PATH_BBOXES),
      B(0, 3, Float32Array.from([40, 30, 300, 280, 100, 0, 512, 200])),
      B(0, 4, new Float32Array(80)),
      B(0, 5, bump({ lines: 50 })),
      B(0, 6, new Uint32Array(128)),
      B(0, 7, new Uint32Array(512)),
    ],
    workgroups: [1, 1, 1],
    params: BIN_PARAMS,
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/clip_leaf.wgsl (stored
    // version 5e630b5a6e014a236c2a0f74d9d9da44dca7e753) verbatim after config, bbox, clip and
    // drawtag, `let WG_SIZE` as `const`: `fn search_link(bic: ptr<function, Bic>, ...)` with
    // `*bic = test` and `(*bic).a`, `var<workgroup> sh_bic: array<Bic, 510 >`, `Bic()`,
    // `return -2147483648;`, a 32-byte `ClipEl` (vec4 at 16), i32 links and `select` on them.
    // One workgroup of eight nested BeginClip/EndClip pairs.
    name: "vello clip_leaf (ptr<function, Bic> parameter, array<Bic, 510 >, -2147483648)",
    source: CONFIG + BBOX + CLIP + DRAWTAG + /* wgsl */ `
@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage> clip_inp: array<ClipInp>;

@group(0) @binding(2)
var<storage> path_bboxes: array<PathBbox>;

@group(0) @binding(3)
var<storage> reduced: array<Bic>;

@group(0) @binding(4)
var<storage> clip_els: array<ClipEl>;

@group(0) @binding(5)
var<storage, read_write> draw_monoids: array<DrawMonoid>;

@group(0) @binding(6)
var<storage, read_write> clip_bboxes: array<vec4<f32>>;

const WG_SIZE = 256u;
var<workgroup> sh_bic: array<Bic, 510 >;
var<workgroup> sh_stack: array<u32, WG_SIZE>;
var<workgroup> sh_stack_bbox: array<vec4<f32>, WG_SIZE>;
var<workgroup> sh_bbox: array<vec4<f32>, WG_SIZE>;
var<workgroup> sh_link: array<i32, WG_SIZE>;

fn search_link(bic: ptr<function, Bic>, ix_in: u32) -> i32 {
    var ix = ix_in;
    var j = 0u;
    while j < firstTrailingBit(WG_SIZE) {
        let base = 2u * WG_SIZE - (2u << (firstTrailingBit(WG_SIZE) - j));
        if ((ix >> j) & 1u) != 0u {
            let test = bic_combine(sh_bic[base + (ix >> j) - 1u], *bic);
            if test.b > 0u {
                break;
            }
            *bic = test;
            ix -= 1u << j;
        }
        j += 1u;
    }
    if ix > 0u {
        while j > 0u {
            j -= 1u;
            let base = 2u * WG_SIZE - (2u << (firstTrailingBit(WG_SIZE) - j));
            let test = bic_combine(sh_bic[base + (ix >> j) - 1u], *bic);
            if test.b == 0u {
                *bic = test;
                ix -= 1u << j;
            }
        }
    }
    if ix > 0u {
        return i32(ix) - 1;
    } else {
        return i32(~0u - (*bic).a);
    }
}

fn load_clip_path(ix: u32) -> i32 {
    if ix < config.n_clip {
        return clip_inp[ix].path_ix;
    } else {
        return -2147483648;
        // literal too large?
        // return 0x80000000;
    }
}

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wg_id: vec3<u32>,
) {
    if config.cancelled != 0u {
        return;
    }
    var bic: Bic;
    if local_id.x < wg_id.x {
        bic = reduced[local_id.x];
    }
    sh_bic[local_id.x] = bic;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        workgroupBarrier();
        if local_id.x + (1u << i) < WG_SIZE {
            let other = sh_bic[local_id.x + (1u << i)];
            bic = bic_combine(bic, other);
        }
        workgroupBarrier();
        sh_bic[local_id.x] = bic;
    }
    workgroupBarrier();
    let stack_size = sh_bic[0].b;
    // TODO: if stack depth > WG_SIZE desired, scan here

    // binary search in stack
    let sp = WG_SIZE - 1u - local_id.x;
    var ix = 0u;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        let probe = ix + ((WG_SIZE / 2u) >> i);
        if sp < sh_bic[probe].b {
            ix = probe;
        }
    }
    let b = sh_bic[ix].b;
    var bbox = vec4(-1e9, -1e9, 1e9, 1e9);
    if sp < b {
        let el = clip_els[ix * WG_SIZE + b - sp - 1u];
        sh_stack[local_id.x] = el.parent_ix;
        bbox = el.bbox;
    }
    // forward scan of bbox values of prefix stack
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        sh_stack_bbox[local_id.x] = bbox;
        workgroupBarrier();
        if local_id.x >= (1u << i) {
            bbox = bbox_intersect(sh_stack_bbox[local_id.x - (1u << i)], bbox);
        }
        workgroupBarrier();
    }
    sh_stack_bbox[local_id.x] = bbox;

    // Read input and compute Bic binary tree
    let inp = load_clip_path(global_id.x);
    let is_push = inp >= 0;
    bic = Bic(1u - u32(is_push), u32(is_push));
    sh_bic[local_id.x] = bic;
    if is_push {
        let path_bbox = path_bboxes[inp];
        bbox = vec4(f32(path_bbox.x0), f32(path_bbox.y0), f32(path_bbox.x1), f32(path_bbox.y1));
    } else {
        bbox = vec4(-1e9, -1e9, 1e9, 1e9);
    }
    var inbase = 0u;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE) - 1u; i += 1u) {
        let outbase = 2u * WG_SIZE - (1u << (firstTrailingBit(WG_SIZE) - i));
        workgroupBarrier();
        if local_id.x < 1u << (firstTrailingBit(WG_SIZE) - 1u - i) {
            let in_off = inbase + local_id.x * 2u;
            sh_bic[outbase + local_id.x] = bic_combine(sh_bic[in_off], sh_bic[in_off + 1u]);
        }
        inbase = outbase;
    }
    workgroupBarrier();
    // search for predecessor node
    bic = Bic();
    var link = search_link(&bic, local_id.x);
    sh_link[local_id.x] = link;
    workgroupBarrier();
    let grandparent = select(link - 1, sh_link[link], link >= 0);
    var parent: i32;
    if link >= 0 {
        parent = i32(wg_id.x * WG_SIZE) + link;
    } else if link + i32(stack_size) >= 0 {
        parent = i32(sh_stack[i32(WG_SIZE) + link]);
    } else {
        parent = -1;
    }
    // bbox scan (intersect) across parent links
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        if i != 0u {
            sh_link[local_id.x] = link;
        }
        sh_bbox[local_id.x] = bbox;
        workgroupBarrier();
        if link >= 0 {
            bbox = bbox_intersect(sh_bbox[link], bbox);
            link = sh_link[link];
        }
        workgroupBarrier();
    }
    if link + i32(stack_size) >= 0 {
        bbox = bbox_intersect(sh_stack_bbox[i32(WG_SIZE) + link], bbox);
    }
    // At this point, bbox is the intersection of bboxes on the path to the root
    sh_bbox[local_id.x] = bbox;
    workgroupBarrier();

    if !is_push && global_id.x < config.n_clip {
        // Fix up drawmonoid so path_ix of EndClip matches BeginClip
        let parent_clip = clip_inp[parent];
        let path_ix = parent_clip.path_ix;
        let parent_ix = parent_clip.ix;
        let ix = ~inp;
        draw_monoids[ix].path_ix = u32(path_ix);
        // Make EndClip point to the same draw data as BeginClip
        draw_monoids[ix].scene_offset = draw_monoids[parent_ix].scene_offset;
        if grandparent >= 0 {
            bbox = sh_bbox[grandparent];
        } else if grandparent + i32(stack_size) >= 0 {
            bbox = sh_stack_bbox[i32(WG_SIZE) + grandparent];
        } else {
            bbox = vec4(-1e9, -1e9, 1e9, 1e9);
        }
    }
    if global_id.x < config.n_clip {
        clip_bboxes[global_id.x] = bbox;
    }
}
`,
    plain: [
      B(0, 0, CLIP_WORDS, true),
      B(0, 1, CLIP_INP),
      B(0, 2, PATH_BBOXES.slice(0, 24)),
      B(0, 3, new Uint32Array(2)),
      B(0, 4, new Uint32Array(8)),
      B(0, 5, Uint32Array.from({ length: 32 }, (_, k) => (k & 3) === 2 ? 100 + k : 0)),
      B(0, 6, new Float32Array(32)),
    ],
    workgroups: [1, 1, 1],
    params: CLIP_PARAMS,
  },
];
