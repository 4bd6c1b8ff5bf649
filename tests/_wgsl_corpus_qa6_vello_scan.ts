/**
 * QA wave 6, vello's scans with their shared structs inlined: workgroup arrays of 20-byte monoid
 * structs sized by a `const`, a struct with a vec4 after a u32; see `_wgsl_corpus_qa6.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

export const VELLO_SCAN6: readonly CorpusCase[] = [
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
  {
    // https://github.com/linebender/vello/blob/main/vello_shaders/shader/clip_reduce.wgsl
    // with shared/bbox.wgsl and shared/clip.wgsl inlined (`let WG_SIZE` as `const`): 24-byte
    // `PathBbox` of i32s, `ClipEl { parent_ix: u32, bbox: vec4<f32> }` (bbox at byte 16, 32-byte
    // stride), `Bic()` zero constructor. Pops everywhere and one push, last, so that one
    // invocation writes the shared slot this version's reset `bic` makes every push write.
    name: "vello clip_reduce (ClipEl with a vec4 at byte 16, PathBbox of i32s, Bic scan)",
    source: /* wgsl */ `struct PathBbox {
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

@group(0) @binding(0)
var<storage> clip_inp: array<ClipInp>;

@group(0) @binding(1)
var<storage> path_bboxes: array<PathBbox>;

@group(0) @binding(2)
var<storage, read_write> reduced: array<Bic>;

@group(0) @binding(3)
var<storage, read_write> clip_out: array<ClipEl>;

const WG_SIZE = 256u;
var<workgroup> sh_bic: array<Bic, WG_SIZE>;
var<workgroup> sh_parent: array<u32, WG_SIZE>;
var<workgroup> sh_path_ix: array<u32, WG_SIZE>;

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(workgroup_id) wg_id: vec3<u32>,
) {
    // TODO: Cancel if this entire run has been cancelled?
    let inp = clip_inp[global_id.x].path_ix;
    let is_push = inp >= 0;
    var bic = Bic(1u - u32(is_push), u32(is_push));
    // reverse scan of bicyclic semigroup
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
    if local_id.x == 0u {
        reduced[wg_id.x] = bic;
    }
    workgroupBarrier();
    let size = sh_bic[0].b;
    bic = Bic();
    if is_push && bic.a == 0u {
        let local_ix = size - bic.b - 1u;
        sh_parent[local_ix] = local_id.x;
        sh_path_ix[local_ix] = u32(inp);
    }
    workgroupBarrier();
    // TODO: possibly do forward scan here if depth can exceed wg size
    if local_id.x < size {
        let path_ix = sh_path_ix[local_id.x];
        let path_bbox = path_bboxes[path_ix];
        let parent_ix = sh_parent[local_id.x] + wg_id.x * WG_SIZE;
        let bbox = vec4(f32(path_bbox.x0), f32(path_bbox.y0), f32(path_bbox.x1), f32(path_bbox.y1));
        clip_out[global_id.x] = ClipEl(parent_ix, bbox);
    }
}
`,
    plain: [
      B(0, 0, Int32Array.from({ length: 512 }, (_, i) => i % 2 === 0 ? i / 2 : i === 511 ? 3 : ~i)),
      B(0, 1, Int32Array.from({ length: 48 }, (_, i) => (i * 7) % 23 - 5)),
      B(0, 2, new Uint32Array(4)),
      B(0, 3, new Uint32Array(16).fill(1)),
    ],
    workgroups: [1, 1, 1],
  },
];
