/**
 * QA wave 12, vello's binning kernel; see `_wgsl_corpus_qa12_vello.ts`.
 */
import { B, type CorpusCase } from "./_wgsl_corpus_qa_base.ts";
import { CONFIG, config, DRAWTAG } from "./_wgsl_corpus_qa6_vello.ts";
import { BBOX, BUMP, bump } from "./_wgsl_corpus_qa12_vello.ts";

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
export const PATH_BBOXES = Int32Array.from({ length: 120 }, (_, k) => {
  const i = Math.floor(k / 6);
  const x0 = (i * 37) % 400, y0 = (i * 53) % 400;
  return [x0, y0, x0 + 20 + (i * 61) % 200, y0 + 10 + (i * 29) % 200, 0, i][k % 6];
});

const words = (bytes: Uint8Array) =>
  new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);

/**
 * binning's output in the form its WGSL determines: every bin's invocation takes its chunk of
 * `bin_data` with `atomicAdd(&bump.binning, element_count)`, so the chunks' places are the order
 * the 256 invocations ran in (lavapipe runs them in index order, a GPU does not). Determined, and
 * kept: each bin's element count and the element indices in its chunk, in order (their ranks come
 * from the bitmaps); that the non-empty chunks tile `[0, bump.binning)` exactly and the empty
 * bins' offsets lie in it (an `atomicAdd` of 0 returns a running sum); the words past the chunks.
 */
function binningCanonical(bytes: readonly Uint8Array[]): unknown {
  const total = words(bytes[5])[1], data = words(bytes[6]), header = words(bytes[7]);
  const start = BIN_PARAMS.bin_data_start, chunks: number[][] = [];
  const covered = new Uint8Array(total);
  for (let bin = 0; bin < header.length / 2; bin++) {
    const count = header[2 * bin], offset = header[2 * bin + 1];
    if (offset + count > total) throw new Error(`bin ${bin}: [${offset}, +${count}) past ${total}`);
    for (let k = offset; k < offset + count; k++) {
      if (covered[k]++) throw new Error(`bin ${bin}: bin_data[${start + k}] in two chunks`);
    }
    chunks.push([...data.subarray(start + offset, start + offset + count)]);
  }
  if (covered.includes(0)) throw new Error(`the chunks leave part of [0, ${total}) uncovered`);
  return { chunks, before: [...data.subarray(0, start)], after: [...data.subarray(start + total)] };
}

export const VELLO_BINNING12: readonly CorpusCase[] = [
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/binning.wgsl (stored
    // version 05a9f617483e6c2b53b67b085be2f111195e241c) verbatim after config, drawtag, bbox and
    // bump: `array<array<atomic<u32>, N_TILE>, N_SLICE>` and `array<array<u32, N_TILE>,
    // N_SUBSLICE>` in workgroup memory, `workgroupUniformLoad`, a `BinHeader` struct declared
    // between bindings, `~(N_TILE - 1u)`, i32 bin coordinates. One workgroup (the bump
    // allocator's order between workgroups is the GPU's; so is its order between the
    // invocations of one: the chunks are compared by `binningCanonical`).
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
    orderFree: {
      bindings: [6, 7],
      why: "each bin's count and chunk of element indices; the chunks tile the allocation",
      canonical: binningCanonical,
    },
  },
];
