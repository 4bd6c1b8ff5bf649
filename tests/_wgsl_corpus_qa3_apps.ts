/**
 * QA wave 3, applications: webgpu-samples' particles probability map, wgpu's
 * render_with_compute example, vello's passes; see `_wgsl_corpus_qa3.ts`.
 */
import { B, type CorpusCase, f, u } from "./_wgsl_corpus_qa_base.ts";
import { T, w } from "./_wgsl_corpus_qa3_base.ts";

const PROBABILITY_MAP = /* wgsl */ `
struct UBO {
  width : u32,
}

@binding(0) @group(0) var<uniform> ubo : UBO;
@binding(1) @group(0) var<storage, read> buf_in : array<f32>;
@binding(2) @group(0) var<storage, read_write> buf_out : array<f32>;
@binding(3) @group(0) var tex_in : texture_2d<f32>;
@binding(3) @group(0) var tex_out : texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(64)
fn import_level(@builtin(global_invocation_id) coord : vec3u) {
  _ = &buf_in; // so the bindGroups are similar.
  if (all(coord.xy < vec2u(textureDimensions(tex_in)))) {
    let offset = coord.x + coord.y * ubo.width;
    buf_out[offset] = textureLoad(tex_in, vec2i(coord.xy), 0).w;
  }
}

@compute @workgroup_size(64)
fn export_level(@builtin(global_invocation_id) coord : vec3u) {
  if (all(coord.xy < vec2u(textureDimensions(tex_out)))) {
    let dst_offset = coord.x    + coord.y    * ubo.width;
    let src_offset = coord.x*2u + coord.y*2u * ubo.width;

    let a = buf_in[src_offset + 0u];
    let b = buf_in[src_offset + 1u];
    let c = buf_in[src_offset + 0u + ubo.width];
    let d = buf_in[src_offset + 1u + ubo.width];
    let sum = a + b + c + d;

    buf_out[dst_offset] = sum / 4.0;

    let probabilities = vec4f(a, a+b, a+b+c, sum) / max(sum, 0.0001);
    textureStore(tex_out, vec2i(coord.xy), probabilities);
  }
}`;

// vello's shared/config.wgsl (trimmed to the fields its passes here read), bump.wgsl, tile.wgsl.
const VELLO_SHARED = /* wgsl */ `
struct Config {
    width_in_tiles: u32,
    height_in_tiles: u32,
    target_width: u32,
    target_height: u32,
    base_color: u32,
    n_drawobj: u32,
    n_path: u32,
    n_clip: u32,
    cancelled: u32,
}
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
    // bounding box in tiles
    bbox: vec4<u32>,
    // offset (in u32's) to tile rectangle
    tiles: u32,
}
struct Tile {
    backdrop: i32,
    segment_count_or_ix: u32,
}
struct PathBbox {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
    draw_flags: u32,
    trans_ix: u32,
}
`;
const CONFIG = {
  width_in_tiles: 4,
  height_in_tiles: 3,
  target_width: 64,
  target_height: 48,
  base_color: 0xff00ff,
  n_drawobj: 5,
  n_path: 20,
  n_clip: 0,
  cancelled: 0,
};
const CONFIG_WORDS = w(...Object.values(CONFIG), 0, 0, 0);
// Five paths of w x h tiles at (1, 2), their tile rectangles one after another.
const WIDTHS = [2, 3, 1, 4, 2], HEIGHTS = [2, 1, 3, 2, 2];
const OFFSETS = WIDTHS.map((_, i) => WIDTHS.slice(0, i).reduce((s, x, k) => s + x * HEIGHTS[k], 0));
const PATHS = w(...WIDTHS.flatMap((wd, i) => [1, 2, 1 + wd, 2 + HEIGHTS[i], OFFSETS[i], 0, 0, 0]));
const TILES = w(...Array.from({ length: 22 }, (_, k) => k % 2 ? k : { i: (k % 5) - 2 }));

export const APPS: readonly CorpusCase[] = [
  {
    // https://github.com/webgpu/webgpu-samples/blob/main/sample/particles/probabilityMap.wgsl
    // verbatim: two variables at @binding(3) (a texture_2d and a storage texture, one per entry
    // point), a phony `_ = &buf_in;` that makes an otherwise unused binding part of the layout.
    name:
      "webgpu-samples particles probabilityMap import_level (two vars at @binding(3), `_ = &buf_in`)",
    entryPoint: "import_level",
    source: PROBABILITY_MAP,
    plain: [
      B(0, 0, w(8), true),
      B(0, 1, f(64)),
      B(0, 2, new Float32Array(64)),
      T(0, 3, 8, 8, "rgba8unorm", Uint8Array.from(u(256, 256))),
    ],
    workgroups: [1, 8, 1],
    threads: [64, 8],
    params: { width: 8 },
  },
  {
    // The same module's export_level: binding 3 is the write-only rgba8unorm storage texture.
    name: "webgpu-samples particles probabilityMap export_level (binding 3 is the storage texture)",
    entryPoint: "export_level",
    source: PROBABILITY_MAP,
    plain: [
      B(0, 0, w(8), true),
      B(0, 1, f(64, 0.01)),
      B(0, 2, new Float32Array(64)),
      T(0, 3, 4, 4, "rgba8unorm", undefined, true),
    ],
    workgroups: [1, 4, 1],
    threads: [64, 4],
    params: { width: 8 },
  },
  {
    // https://github.com/gfx-rs/wgpu/blob/trunk/examples/features/src/render_with_compute/shader.wgsl
    // (Slang's WGSL output): `@align(16)` on a first member, `x24`-mangled names, a block
    // statement `{var dim = textureDimensions((t));((w)) = dim.x;...}`, `% ((3.0f))`.
    name:
      "wgpu render_with_compute (Slang output: @align members, block statement, storage texture)",
    source: /* wgsl */ `
@binding(1) @group(0) var outputTexture_0 : texture_storage_2d<rgba8unorm, write>;

struct GlobalParams_std140_0
{
    @align(16) time_0 : f32,
    @align(4) frame_0 : f32,
};

@binding(0) @group(0) var<uniform> globalParams_0 : GlobalParams_std140_0;
struct imageMain_slang_Lambda_imageMain_1_0
{
     dispatchThreadID_0 : vec2<u32>,
};

fn imageMain_slang_Lambda_imageMain_1_x24init_0( dispatchThreadID_1 : vec2<u32>) -> imageMain_slang_Lambda_imageMain_1_0
{
    var _S1 : imageMain_slang_Lambda_imageMain_1_0;
    _S1.dispatchThreadID_0 = dispatchThreadID_1;
    return _S1;
}

fn float_getPi_0() -> f32
{
    return 3.14159274101257324f;
}

fn imageMain_slang_Lambda_imageMain_1_x28x29_0( this_0 : imageMain_slang_Lambda_imageMain_1_0,  screenSize_0 : vec2<i32>) -> vec4<f32>
{
    var _S2 : vec2<f32> = vec2<f32>(2.0f);
    var p_0 : vec2<f32> = (vec2<f32>(this_0.dispatchThreadID_0.xy) * _S2 - vec2<f32>(screenSize_0.xy)) / vec2<f32>(f32(screenSize_0.y));
    var tau_0 : f32 = float_getPi_0() * 2.0f;
    var _S3 : f32 = atan2(p_0.x, p_0.y) / tau_0;
    var uv_0 : vec2<f32> = vec2<f32>(_S3, length(p_0) * 0.75f);
    var t_0 : f32 = globalParams_0.frame_0 / 60.0f;
    var xCol_0 : f32 = ((((abs((_S3 - t_0 / 3.0f) * 3.0f))) % ((3.0f))));
    var horColour_0 : vec3<f32> = vec3<f32>(0.25f, 0.25f, 0.25f);
    if(xCol_0 < 1.0f)
    {
        horColour_0[i32(0)] = horColour_0[i32(0)] + (1.0f - xCol_0);
        horColour_0[i32(1)] = horColour_0[i32(1)] + xCol_0;
    }
    else
    {
        if(xCol_0 < 2.0f)
        {
            var xCol_1 : f32 = xCol_0 - 1.0f;
            horColour_0[i32(1)] = horColour_0[i32(1)] + (1.0f - xCol_1);
            horColour_0[i32(2)] = horColour_0[i32(2)] + xCol_1;
        }
        else
        {
            var xCol_2 : f32 = xCol_0 - 2.0f;
            horColour_0[i32(2)] = horColour_0[i32(2)] + (1.0f - xCol_2);
            horColour_0[i32(0)] = horColour_0[i32(0)] + xCol_2;
        }
    }
    var uv_1 : vec2<f32> = _S2 * uv_0 - vec2<f32>(1.0f);
    return vec4<f32>(vec3<f32>(((0.69999998807907104f + 0.5f * cos(uv_1.x * 10.0f * tau_0 * 0.15000000596046448f * clamp(floor(5.0f + 10.0f * cos(t_0)), 0.0f, 10.0f))) * abs(1.0f / (30.0f * uv_1.y)))) * horColour_0, 1.0f);
}

fn drawPixel_0( location_0 : vec2<u32>,  _S5 : imageMain_slang_Lambda_imageMain_1_0)
{
    var width_0 : u32 = u32(0);
    var height_0 : u32 = u32(0);
    {var dim = textureDimensions((outputTexture_0));((width_0)) = dim.x;((height_0)) = dim.y;};
    var color_0 : vec4<f32> = imageMain_slang_Lambda_imageMain_1_x28x29_0(_S5, vec2<i32>(i32(width_0), i32(height_0)));
    var _S6 : bool;
    if((location_0.x) >= width_0)
    {
        _S6 = true;
    }
    else
    {
        _S6 = (location_0.y) >= height_0;
    }
    if(_S6)
    {
        return;
    }
    textureStore((outputTexture_0), (location_0), (color_0));
    return;
}

@compute
@workgroup_size(16, 16, 1)
fn imageMain(@builtin(global_invocation_id) dispatchThreadID_2 : vec3<u32>)
{
    var dispatchThreadID_3 : vec2<u32> = dispatchThreadID_2.xy;
    drawPixel_0(dispatchThreadID_3, imageMain_slang_Lambda_imageMain_1_x24init_0(dispatchThreadID_3));
    return;
}`,
    plain: [
      B(0, 0, w({ f: 0.5 }, { f: 42 }, 0, 0), true),
      T(0, 1, 16, 16, "rgba8unorm", undefined, true),
    ],
    workgroups: [1, 1, 1],
    threads: [16, 16],
    params: { time_0: 0.5, frame_0: 42 },
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/bbox_clear.wgsl
    // (#imports inlined): i32 fields set from `0x7fffffff` and `-0x80000000` abstract ints,
    // a 9-field Config uniform.
    name: "vello bbox_clear (PathBbox i32 fields, -0x80000000, Config uniform)",
    source: VELLO_SHARED + /* wgsl */ `
@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage, read_write> path_bboxes: array<PathBbox>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
) {
    if config.cancelled != 0u {
        return;
    }
    let ix = global_id.x;
    if ix < config.n_path {
        path_bboxes[ix].x0 = 0x7fffffff;
        path_bboxes[ix].y0 = 0x7fffffff;
        path_bboxes[ix].x1 = -0x80000000;
        path_bboxes[ix].y1 = -0x80000000;
    }
}`,
    plain: [B(0, 0, CONFIG_WORDS, true), B(0, 1, u(24 * 6, 1000))],
    workgroups: [1, 1, 1],
    threads: 256,
    params: CONFIG,
  },
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/backdrop_dyn.wgsl
    // (#imports inlined): a storage struct of eight atomics read with atomicLoad,
    // `workgroupUniformLoad(&sh_row_count[0])`, `var<storage>` without an access mode, a
    // binary search over a workgroup prefix sum, `firstTrailingBit(WG_SIZE)` loop bounds.
    name: "vello backdrop_dyn (atomics struct, workgroupUniformLoad of an element, var<storage>)",
    source: VELLO_SHARED + /* wgsl */ `
@group(0) @binding(0)
var<uniform> config: Config;

@group(0) @binding(1)
var<storage, read_write> bump: BumpAllocators;

@group(0) @binding(2)
var<storage> paths: array<Path>;

@group(0) @binding(3)
var<storage, read_write> tiles: array<Tile>;

const WG_SIZE = 256u;

var<workgroup> sh_row_width: array<u32, WG_SIZE>;
var<workgroup> sh_row_count: array<u32, WG_SIZE>;
var<workgroup> sh_offset: array<u32, WG_SIZE>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
) {
    // Abort if any of the prior stages failed.
    if local_id.x == 0u {
        sh_row_count[0] = atomicLoad(&bump.failed);
    }
    let failed = workgroupUniformLoad(&sh_row_count[0]);
    if failed != 0u {
        return;
    }
    let drawobj_ix = global_id.x;
    var row_count = 0u;
    if drawobj_ix < config.n_drawobj {
        let path = paths[drawobj_ix];
        sh_row_width[local_id.x] = path.bbox.z - path.bbox.x;
        row_count = path.bbox.w - path.bbox.y;
        sh_offset[local_id.x] = path.tiles;
    } else {
        // Explicitly zero the row width, just in case.
        sh_row_width[local_id.x] = 0u;
    }
    sh_row_count[local_id.x] = row_count;

    // Prefix sum of row counts
    for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
        workgroupBarrier();
        if local_id.x >= (1u << i) {
            row_count += sh_row_count[local_id.x - (1u << i)];
        }
        workgroupBarrier();
        sh_row_count[local_id.x] = row_count;
    }
    workgroupBarrier();
    let total_rows = sh_row_count[WG_SIZE - 1u];
    for (var row = local_id.x; row < total_rows; row += WG_SIZE) {
        var el_ix = 0u;
        for (var i = 0u; i < firstTrailingBit(WG_SIZE); i += 1u) {
            let probe = el_ix + ((WG_SIZE / 2u) >> i);
            if row >= sh_row_count[probe - 1u] {
                el_ix = probe;
            }
        }
        let width = sh_row_width[el_ix];
        if width > 0u {
            var seq_ix = row - select(0u, sh_row_count[el_ix - 1u], el_ix > 0u);
            var tile_ix = sh_offset[el_ix] + seq_ix * width;
            var sum = tiles[tile_ix].backdrop;
            for (var x = 1u; x < width; x += 1u) {
                tile_ix += 1u;
                sum += tiles[tile_ix].backdrop;
                tiles[tile_ix].backdrop = sum;
            }
        }
    }
}`,
    plain: [
      B(0, 0, CONFIG_WORDS, true),
      B(0, 1, new Uint32Array(8)),
      B(0, 2, PATHS),
      B(0, 3, w(...TILES, ...TILES.map((x) => x + 1))),
    ],
    workgroups: [1, 1, 1],
    threads: 256,
    params: CONFIG,
  },
];
