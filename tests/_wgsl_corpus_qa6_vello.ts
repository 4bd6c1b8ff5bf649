/**
 * QA wave 6, vello's compute kernels with their `#import`s inlined (as vello's preprocessor
 * does): a 22-word `Config` uniform, workgroup arrays of monoid structs sized by a `const`,
 * `firstTrailingBit(WG_SIZE)` as a loop bound; see `_wgsl_corpus_qa6.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

// https://github.com/linebender/vello/blob/main/vello_shaders/shader/shared/config.wgsl
// (the stored version): its `Config` struct; the module-scope `let`s of that version are
// `const`s (today's WGSL), those the kernels below do not use dropped.
export const CONFIG = /* wgsl */ `struct Config {
    width_in_tiles: u32,
    height_in_tiles: u32,

    target_width: u32,
    target_height: u32,

    base_color: u32,

    n_drawobj: u32,
    n_path: u32,
    n_clip: u32,

    bin_data_start: u32,

    pathtag_base: u32,
    pathdata_base: u32,

    drawtag_base: u32,
    drawdata_base: u32,

    transform_base: u32,
    style_base: u32,

    cancelled: u32,

    lines_size: u32,
    binning_size: u32,
    tiles_size: u32,
    seg_counts_size: u32,
    segments_size: u32,
    ptcl_size: u32,
}

const TILE_WIDTH = 16u;
const TILE_HEIGHT = 16u;
const N_TILE_X = 16u;
const N_TILE_Y = 16u;
const N_TILE = 256u;
`;

const CONFIG_FIELDS = [
  "width_in_tiles",
  "height_in_tiles",
  "target_width",
  "target_height",
  "base_color",
  "n_drawobj",
  "n_path",
  "n_clip",
  "bin_data_start",
  "pathtag_base",
  "pathdata_base",
  "drawtag_base",
  "drawdata_base",
  "transform_base",
  "style_base",
  "cancelled",
  "lines_size",
  "binning_size",
  "tiles_size",
  "seg_counts_size",
  "segments_size",
  "ptcl_size",
];
/** A `Config` uniform's words from the fields set (the rest 0), and the same as `params`. */
export function config(
  set: Record<string, number>,
): [Uint32Array<ArrayBuffer>, Record<string, number>] {
  const params = Object.fromEntries(CONFIG_FIELDS.map((k) => [k, set[k] ?? 0]));
  return [Uint32Array.from(CONFIG_FIELDS, (k) => params[k]), params];
}
/** 700 draw objects, their tags at word 5 of the scene. */
const [CONFIG_WORDS, CONFIG_PARAMS] = config({ n_drawobj: 700, drawtag_base: 5 });
/** 200 draw objects in a 10x8-tile target, room for 5000 tiles. */
const [ALLOC_WORDS, ALLOC_PARAMS] = config({
  width_in_tiles: 10,
  height_in_tiles: 8,
  n_drawobj: 200,
  drawtag_base: 3,
  tiles_size: 5000,
});

// https://github.com/linebender/vello/blob/main/vello_shaders/shader/shared/drawtag.wgsl
// (the stored version).
export const DRAWTAG = /* wgsl */ `
struct DrawMonoid {
    path_ix: u32,
    clip_ix: u32,
    scene_offset: u32,
    info_offset: u32,
}

const DRAWTAG_NOP = 0u;
const DRAWTAG_FILL_COLOR = 0x44u;
const DRAWTAG_FILL_LIN_GRADIENT = 0x114u;
const DRAWTAG_FILL_RAD_GRADIENT = 0x29cu;
const DRAWTAG_FILL_SWEEP_GRADIENT = 0x254u;
const DRAWTAG_FILL_IMAGE = 0x28Cu;
const DRAWTAG_BLURRED_ROUNDED_RECT = 0x2d4u;
const DRAWTAG_BEGIN_CLIP = 0x9u;
const DRAWTAG_END_CLIP = 0x21u;

const DRAW_INFO_FLAGS_FILL_RULE_BIT = 1u;

fn draw_monoid_identity() -> DrawMonoid {
    return DrawMonoid();
}

fn combine_draw_monoid(a: DrawMonoid, b: DrawMonoid) -> DrawMonoid {
    var c: DrawMonoid;
    c.path_ix = a.path_ix + b.path_ix;
    c.clip_ix = a.clip_ix + b.clip_ix;
    c.scene_offset = a.scene_offset + b.scene_offset;
    c.info_offset = a.info_offset + b.info_offset;
    return c;
}

fn map_draw_tag(tag_word: u32) -> DrawMonoid {
    var c: DrawMonoid;
    c.path_ix = u32(tag_word != DRAWTAG_NOP);
    c.clip_ix = tag_word & 1u;
    c.scene_offset = (tag_word >> 2u) & 0x07u;
    c.info_offset = (tag_word >> 6u) & 0x0fu;
    return c;
}
`;

export const VELLO6: readonly CorpusCase[] = [
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/draw_reduce.wgsl
    // with config.wgsl, shared/drawtag.wgsl and util's `read_draw_tag_from_scene` inlined:
    // `array<DrawMonoid, WG_SIZE>` in workgroup memory, `firstTrailingBit(WG_SIZE)` bound.
    name: "vello draw_reduce (Config uniform, workgroup array of DrawMonoid)",
    source: CONFIG + DRAWTAG + /* wgsl */ `
@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage> scene: array<u32>;

@group(0) @binding(2)
var<storage, read_write> reduced: array<DrawMonoid>;

const WG_SIZE = 256u;

var<workgroup> sh_scratch: array<DrawMonoid, WG_SIZE>;

fn read_draw_tag_from_scene(ix: u32) -> u32 {
    var tag_word: u32;
    if ix < config.n_drawobj {
        let tag_ix = config.drawtag_base + ix;
        tag_word = scene[tag_ix];
    } else {
        tag_word = DRAWTAG_NOP;
    }
    return tag_word;
}

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wg_id: vec3<u32>,
) {
    if config.cancelled != 0u {
        return;
    }
    let num_blocks_total = (config.n_drawobj + (WG_SIZE - 1u)) / WG_SIZE;
    let n_blocks_base = num_blocks_total / WG_SIZE;
    let remainder = num_blocks_total % WG_SIZE;
    let first_block = n_blocks_base * wg_id.x + min(wg_id.x, remainder);
    let n_blocks = n_blocks_base + u32(wg_id.x < remainder);
    var block_index = first_block * WG_SIZE + local_id.x;
    var agg = draw_monoid_identity();
    for (var i = 0u; i < n_blocks; i++) {
        let tag_word = read_draw_tag_from_scene(block_index);
        agg = combine_draw_monoid(agg, map_draw_tag(tag_word));
        block_index += WG_SIZE;
    }
    sh_scratch[local_id.x] = agg;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        workgroupBarrier();
        if local_id.x + (1u << i) < WG_SIZE {
            let other = sh_scratch[local_id.x + (1u << i)];
            agg = combine_draw_monoid(agg, other);
        }
        workgroupBarrier();
        sh_scratch[local_id.x] = agg;
    }
    if local_id.x == 0u {
        reduced[wg_id.x] = agg;
    }
}
`,
    plain: [B(0, 0, CONFIG_WORDS, true), B(0, 1, u(720, 0x300)), B(0, 2, new Uint32Array(16))],
    workgroups: [3, 1, 1],
    params: CONFIG_PARAMS,
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/tile_alloc.wgsl
    // with config, shared/bump.wgsl, drawtag and shared/tile.wgsl inlined (module-scope `let`s
    // as `const`s): a storage struct of eight atomics, `Path { bbox: vec4<u32>, tiles: u32 }`
    // (32-byte stride), `workgroupUniformLoad`, `storageBarrier`. One workgroup (the bump
    // allocator's order between workgroups is the GPU's).
    name: "vello tile_alloc (storage struct of atomics, 32-byte Path stride, workgroupUniformLoad)",
    source: CONFIG + DRAWTAG + /* wgsl */ `
const STAGE_BINNING: u32 = 0x1u;
const STAGE_TILE_ALLOC: u32 = 0x2u;
const STAGE_FLATTEN: u32 = 0x4u;
const STAGE_PATH_COUNT: u32 = 0x8u;
const STAGE_COARSE: u32 = 0x10u;
const PREVIOUS_RUN: u32 = 0x20u;

struct BumpAllocators {
    failed: atomic<u32>,
    binning: atomic<u32>,
    ptcl: atomic<u32>,
    tile: atomic<u32>,
    seg_counts: atomic<u32>,
    segments: atomic<u32>,
    blend: atomic<u32>,
    lines: atomic<u32>,
}

struct Path {
    bbox: vec4<u32>,
    tiles: u32,
}

struct Tile {
    backdrop: i32,
    segment_count_or_ix: u32,
}

@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage> scene: array<u32>;

@group(0) @binding(2)
var<storage> draw_bboxes: array<vec4<f32>>;

@group(0) @binding(3)
var<storage, read_write> bump: BumpAllocators;

@group(0) @binding(4)
var<storage, read_write> paths: array<Path>;

@group(0) @binding(5)
var<storage, read_write> tiles: array<Tile>;

const WG_SIZE = 256u;

var<workgroup> sh_tile_count: array<u32, WG_SIZE>;
var<workgroup> sh_tile_offset: u32;
var<workgroup> sh_previous_failed: u32;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
) {
    if local_id.x == 0u {
        let failed = (atomicLoad(&bump.failed) & (STAGE_BINNING | STAGE_FLATTEN | PREVIOUS_RUN)) != 0u;
        sh_previous_failed = u32(failed);
    }
    let failed = workgroupUniformLoad(&sh_previous_failed);
    if failed != 0u {
        return;
    }    
    let SX = 1.0 / f32(TILE_WIDTH);
    let SY = 1.0 / f32(TILE_HEIGHT);

    let drawobj_ix = global_id.x;
    var drawtag = DRAWTAG_NOP;
    if drawobj_ix < config.n_drawobj {
        drawtag = scene[config.drawtag_base + drawobj_ix];
    }
    var x0 = 0;
    var y0 = 0;
    var x1 = 0;
    var y1 = 0;
    if drawtag != DRAWTAG_NOP && drawtag != DRAWTAG_END_CLIP {
        let bbox = draw_bboxes[drawobj_ix];

        if bbox.x < bbox.z && bbox.y < bbox.w {
            x0 = i32(floor(bbox.x * SX));
            y0 = i32(floor(bbox.y * SY));
            x1 = i32(ceil(bbox.z * SX));
            y1 = i32(ceil(bbox.w * SY));
        }
    }
    let ux0 = u32(clamp(x0, 0, i32(config.width_in_tiles)));
    let uy0 = u32(clamp(y0, 0, i32(config.height_in_tiles)));
    let ux1 = u32(clamp(x1, 0, i32(config.width_in_tiles)));
    let uy1 = u32(clamp(y1, 0, i32(config.height_in_tiles)));
    let tile_count = (ux1 - ux0) * (uy1 - uy0);
    var total_tile_count = tile_count;
    sh_tile_count[local_id.x] = tile_count;
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        workgroupBarrier();
        if local_id.x >= (1u << i) {
            total_tile_count += sh_tile_count[local_id.x - (1u << i)];
        }
        workgroupBarrier();
        sh_tile_count[local_id.x] = total_tile_count;
    }
    if local_id.x == WG_SIZE - 1u {
        let count = sh_tile_count[WG_SIZE - 1u];
        var offset = atomicAdd(&bump.tile, count);
        if offset + count > config.tiles_size {
            offset = 0u;
            atomicOr(&bump.failed, STAGE_TILE_ALLOC);
        }
        paths[drawobj_ix].tiles = offset;
    }    
    storageBarrier();
    let tile_offset = paths[drawobj_ix | (WG_SIZE - 1u)].tiles;
    storageBarrier();
    if drawobj_ix < config.n_drawobj {
        let tile_subix = select(0u, sh_tile_count[local_id.x - 1u], local_id.x > 0u);
        let bbox = vec4(ux0, uy0, ux1, uy1);
        let path = Path(bbox, tile_offset + tile_subix);
        paths[drawobj_ix] = path;
    }

    let total_count = sh_tile_count[WG_SIZE - 1u];
    for (var i = local_id.x; i < total_count; i += WG_SIZE) {
        tiles[tile_offset + i] = Tile(0, 0u);
    }
}
`,
    plain: [
      B(0, 0, ALLOC_WORDS, true),
      B(0, 1, Uint32Array.from({ length: 210 }, (_, i) => [0x44, 0, 0x21, 0x9, 0x114][i % 5])),
      B(
        0,
        2,
        Float32Array.from({ length: 1024 }, (_, i) => ((i * 37) % 101) * (i % 4 < 2 ? 0.8 : 1.9)),
      ),
      B(0, 3, Uint32Array.of(0, 0, 0, 7, 0, 0, 0, 0)),
      B(0, 4, new Uint32Array(256 * 8).fill(5)),
      B(0, 5, new Uint32Array(2 * 5000).fill(9)),
    ],
    workgroups: [1, 1, 1],
    params: ALLOC_PARAMS,
  },
];
