/**
 * QA wave 6, vello's compute kernels with their `#import`s inlined (as vello's preprocessor
 * does): a 22-word `Config` uniform, workgroup arrays of monoid structs sized by a `const`,
 * `firstTrailingBit(WG_SIZE)` as a loop bound; see `_wgsl_corpus_qa6.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

// https://github.com/linebender/vello/blob/main/vello_shaders/shader/shared/config.wgsl
// (the stored version): its `Config` struct; the module-scope `let`s of that version are
// `const`s (today's WGSL), those the kernels below do not use dropped.
const CONFIG = /* wgsl */ `struct Config {
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

/** The `Config` uniform's 22 words: 700 draw objects, their tags at word 5 of the scene. */
const CONFIG_WORDS = Uint32Array.from({ length: 22 }, (_, i) => i === 5 ? 700 : i === 11 ? 5 : 0);

export const VELLO6: readonly CorpusCase[] = [
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/draw_reduce.wgsl
    // with config.wgsl, shared/drawtag.wgsl and util's `read_draw_tag_from_scene` inlined:
    // `array<DrawMonoid, WG_SIZE>` in workgroup memory, `firstTrailingBit(WG_SIZE)` bound.
    name: "vello draw_reduce (Config uniform, workgroup array of DrawMonoid)",
    source: CONFIG + /* wgsl */ `
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
    params: Object.fromEntries([
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
    ].map((k, i) => [k, CONFIG_WORDS[i]])),
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/pathtag_scan1.wgsl
    // with shared/pathtag.wgsl inlined (its STYLE_* consts dropped); the module-scope `let`s
    // of that version are `const`s: two workgroup arrays of 20-byte `TagMonoid`s.
    name: "vello pathtag_scan1 (scan of TagMonoid structs, LG_WG_SIZE const)",
    source: /* wgsl */ `struct TagMonoid {
    trans_ix: u32,
    pathseg_ix: u32,
    pathseg_offset: u32,
    style_ix: u32,
    path_ix: u32,
}

fn tag_monoid_identity() -> TagMonoid {
    return TagMonoid();
}

fn combine_tag_monoid(a: TagMonoid, b: TagMonoid) -> TagMonoid {
    var c: TagMonoid;
    c.trans_ix = a.trans_ix + b.trans_ix;
    c.pathseg_ix = a.pathseg_ix + b.pathseg_ix;
    c.pathseg_offset = a.pathseg_offset + b.pathseg_offset;
    c.style_ix = a.style_ix + b.style_ix;
    c.path_ix = a.path_ix + b.path_ix;
    return c;
}

@group(0) @binding(0)
var<storage> reduced: array<TagMonoid>;

@group(0) @binding(1)
var<storage> reduced2: array<TagMonoid>;

@group(0) @binding(2)
var<storage, read_write> tag_monoids: array<TagMonoid>;

const LG_WG_SIZE = 8u;
const WG_SIZE = 256u;

var<workgroup> sh_parent: array<TagMonoid, WG_SIZE>;
// These could be combined?
var<workgroup> sh_monoid: array<TagMonoid, WG_SIZE>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wg_id: vec3<u32>,
) {
    // TODO: Cancel if needed
    var agg = tag_monoid_identity();
    if local_id.x < wg_id.x {
        agg = reduced2[local_id.x];
    }
    sh_parent[local_id.x] = agg;
    for (var i = 0u; i < LG_WG_SIZE; i += 1u) {
        workgroupBarrier();
        if local_id.x + (1u << i) < WG_SIZE {
            let other = sh_parent[local_id.x + (1u << i)];
            agg = combine_tag_monoid(agg, other);
        }
        workgroupBarrier();
        sh_parent[local_id.x] = agg;
    }

    let ix = global_id.x;
    agg = reduced[ix];
    sh_monoid[local_id.x] = agg;
    for (var i = 0u; i < LG_WG_SIZE; i += 1u) {
        workgroupBarrier();
        if local_id.x >= 1u << i {
            let other = sh_monoid[local_id.x - (1u << i)];
            agg = combine_tag_monoid(other, agg);
        }
        workgroupBarrier();
        sh_monoid[local_id.x] = agg;
    }
    workgroupBarrier();
    // prefix up to this workgroup
    var tm = sh_parent[0];
    if local_id.x > 0u {
        tm = combine_tag_monoid(tm, sh_monoid[local_id.x - 1u]);
    }
    // exclusive prefix sum, granularity of 4 tag bytes * workgroup size
    tag_monoids[ix] = tm;
}
`,
    plain: [B(0, 0, u(2560, 9)), B(0, 1, u(1280, 50)), B(0, 2, new Uint32Array(2560))],
    workgroups: [2, 1, 1],
  },
];
