/**
 * QA wave 17, written after AnswerDotAI/gpu.cpp's WGSL (stored version
 * 09bdeaa7a0c6715ed7624ee90eda53aa2d8c4cbc; the constructs are theirs, the code is not copied):
 * shadertui's screen shaders (a `Params` uniform gpu.cpp appends after the bindings, a local
 * named `distance` beside the builtin another helper calls, a `mat2x2` built from four scalars
 * and returned, a struct returned from a helper, a `for` without initializer, an f32 loop
 * counter), the physics example (a binding named `length`, the builtin's name), the float16
 * example (`enable f16;` prepended by gpu.cpp's `WGSL` constructor, an f16 const of an abstract
 * float) and the GPU puzzles (`@group(0)@binding(0)` without a blank, two members on one line, an
 * `else if` chain); see `_wgsl_corpus_qa17.ts`.
 */
import { B, type CorpusCase, f } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

/**
 * What gpu.cpp's `WGSL` constructor does to a template: `enable f16;` first for f16, then
 * `{{workgroupSize}}` as "x, y, z" and `{{precision}}` as the element type.
 */
function gpucpp(code: string, workgroupSize: [number, number, number], precision = "f32"): string {
  const text = precision === "f16" ? "enable f16;\n" + code : code;
  return text.replaceAll("{{workgroupSize}}", workgroupSize.join(", "))
    .replaceAll("{{precision}}", precision);
}

/** shadertui's screen (96 x 64 f32s) and run.cpp's `Params { time, width, height }`. */
const COLS = 96, ROWS = 64, TIME = 1.7;

/** shadertui's head: the screen, the uniform, its struct declared after its use. */
const SCREEN = `@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

struct Params {
  time: f32,
  screenwidth: u32,
  screenheight: u32,
};
`;

/** A shadertui-style shader launched as run.cpp does (16 x 16 workgroups over the screen). */
function screen(name: string, what: string, body: string): CorpusCase {
  return {
    name: `gpu.cpp shadertui ${name} (${what})`,
    source: SCREEN + body,
    plain: [B(0, 0, new Float32Array(COLS * ROWS)), B(0, 1, w({ f: TIME }, COLS, ROWS), true)],
    workgroups: [COLS / 16, ROWS / 16, 1],
    params: { time: TIME, screenwidth: COLS, screenheight: ROWS },
  };
}

/** gpu.cpp's cases. */
export const GPUCPP: readonly CorpusCase[] = [
  // After examples/shadertui/julia.wgsl: a u32 const of an abstract int, a loop whose
  // counter is declared before it (`for (; i < N; i = i + 1u)`), `break` on escape.
  screen(
    "julia",
    "`const STEPS: u32 = 64`, a for loop without initializer",
    `
const STEPS: u32 = 64;

fn square(z: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y);
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
    let size = vec2<f32>(f32(params.screenwidth), f32(params.screenheight));
    var z = (vec2<f32>(gid.xy) - 0.5 * size) / size.y * 2.5;
    let c = 0.75 * vec2<f32>(cos(params.time), sin(params.time * 0.7));
    var i: u32 = 0u;
    for (; i < STEPS; i = i + 1u) {
        z = square(z) + c;
        if (dot(z, z) > 4.0) {
            break;
        }
    }
    out[gid.y * params.screenwidth + gid.x] = f32(i) / f32(STEPS) + fract(length(z));
}
`,
  ),
  // After examples/shadertui/wave_interference.wgsl: a function-scope array sized by a u32
  // const, filled element by element, `+=` of a helper's result.
  screen(
    "wave_interference",
    "a function array sized by a u32 const, `+=` of a call",
    `
const SOURCES: u32 = 3;

fn ripple(d: f32, k: f32, t: f32) -> f32 {
    return cos(d * k - t);
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
    let uv = vec2<f32>(gid.xy) / f32(params.screenheight) - vec2<f32>(0.75, 0.5);
    var at: array<vec2<f32>, SOURCES>;
    at[0] = vec2<f32>(sin(params.time) * 0.3, 0.1);
    at[1] = vec2<f32>(-0.2, cos(params.time * 0.5) * 0.3);
    at[2] = vec2<f32>(0.0, 0.0);
    var sum: f32 = 0.0;
    for (var i: u32 = 0u; i < SOURCES; i = i + 1u) {
        sum += ripple(distance(uv, at[i]), 12.0 + f32(i) * 4.0, params.time * (1.0 + f32(i)));
    }
    out[gid.y * params.screenwidth + gid.x] = pow(sum / f32(SOURCES) * 0.5 + 0.5, 1.5);
}
`,
  ),
  // After examples/shadertui/metaball.wgsl: a helper declares `let distance = ...` (shadowing
  // the builtin there) and another helper calls the builtin `distance`; a struct constructor
  // returned from a helper.
  screen(
    "metaball",
    "a local `distance` shadowing the builtin another function calls, a struct constructor",
    `
struct Ball {
    center: vec2<f32>,
    radius: f32,
}

fn ball(k: u32, t: f32) -> Ball {
    let angle = f32(k) * 1.1 + t * 0.3;
    let distance = 0.2 + 0.1 * sin(f32(k) + t);
    return Ball(vec2<f32>(0.5 + cos(angle) * distance, 0.5 + sin(angle) * distance), 0.08);
}

fn field(p: vec2<f32>, b: Ball) -> f32 {
    return b.radius / distance(p, b.center);
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
    let p = vec2<f32>(f32(gid.x) / f32(params.screenwidth), f32(gid.y) / f32(params.screenheight));
    var sum = 0.0;
    for (var k = 0u; k < 4u; k++) {
        sum += field(p, ball(k, params.time));
    }
    out[gid.y * params.screenwidth + gid.x] = smoothstep(0.9, 1.1, sum) * (0.9 + 0.1 * sin(sum * 20.0));
}
`,
  ),
  // After examples/shadertui/particles.wgsl: an f32 loop counter compared with `f32(COUNT)`,
  // a `var` of a struct a helper returns, a member updated with `+=`, a local `distance`.
  screen(
    "particles",
    "an f32 loop counter, a `var` struct updated with `+=`",
    `
struct Spark {
    pos: vec2<f32>,
    vel: vec2<f32>,
    life: f32,
}

const COUNT: u32 = 64u;

fn spawn(id: f32) -> Spark {
    let a = fract(sin(id * 12.9898) * 43758.5453) * 6.28318;
    return Spark(vec2<f32>(0.5, 0.5), vec2<f32>(cos(a), sin(a)) * 0.08, 3.0);
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
    let uv = vec2<f32>(gid.xy) / vec2<f32>(f32(params.screenwidth), f32(params.screenheight));
    var light: f32 = 0.0;
    for (var i: f32 = 0.0; i < f32(COUNT); i += 1.0) {
        var s = spawn(i);
        let age = fract(params.time / s.life + i / f32(COUNT)) * s.life;
        s.pos += s.vel * age;
        let distance = length(uv - s.pos);
        if (distance < 0.03) {
            light += 1.0 - age / s.life;
        }
    }
    out[gid.y * params.screenwidth + gid.x] = min(light, 1.0);
}
`,
  ),
  // After examples/shadertui/shapes.wgsl: a helper returns `mat2x2<f32>(c, -s, s, c)`, a
  // `select` written over several lines with a trailing newline before `)`.
  screen(
    "shapes",
    "`mat2x2<f32>(c, -s, s, c)` returned, a multi-line `select`",
    `
fn spin(a: f32) -> mat2x2<f32> {
    let s = sin(a);
    let c = cos(a);
    return mat2x2<f32>(c, -s, s, c);
}

fn box_sdf(p: vec2<f32>, half: vec2<f32>) -> f32 {
    let d = abs(p) - half;
    return length(max(d, vec2<f32>(0.0))) + min(max(d.x, d.y), 0.0);
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  let p = vec2<f32>(f32(gid.x) / f32(params.screenwidth), f32(gid.y) / f32(params.screenheight));
  let q = spin(params.time) * (p - vec2<f32>(0.5));
  let d = select(
    box_sdf(q, vec2<f32>(0.2, 0.1)),
    length(q) - 0.15,
    p.x > 0.5
  );
  out[gid.y * params.screenwidth + gid.x] = 0.3 - min(5.0 * abs(d), 0.3);
}
`,
  ),
  {
    // After examples/physics/run.cpp's kUpdateSim ({{workgroupSize}} rendered as gpu.cpp does,
    // N 1,000 as main() makes them): a read-only binding named `length` (the builtin's name)
    // indexed like an array, six bindings updated in place, `2 * l` of an abstract int.
    name: "gpu.cpp physics kUpdateSim (a binding named `length`, six bindings, in-place updates)",
    source: gpucpp(
      `
const G: f32 = 9.81;
const dt: f32 = 0.02;
@group(0) @binding(0) var<storage, read_write> angle1: array<f32>;
@group(0) @binding(1) var<storage, read_write> angle2: array<f32>;
@group(0) @binding(2) var<storage, read_write> speed1: array<f32>;
@group(0) @binding(3) var<storage, read_write> speed2: array<f32>;
@group(0) @binding(4) var<storage, read> length: array<f32>;
@group(0) @binding(5) var<storage, read_write> pos: array<f32>;  // x1, y1, x2, y2
@compute @workgroup_size({{workgroupSize}})
fn main(@builtin(global_invocation_id) global_id : vec3<u32>) {
    let i = global_id.x;
    if (i >= arrayLength(&angle1)) {
        return;
    }
    let l = length[i];
    speed1[i] += -(G / l) * sin(angle1[i]) * dt;
    angle1[i] += speed1[i] * dt;
    speed2[i] += -(G / (2 * l)) * sin(angle2[i]) * dt;
    angle2[i] += speed2[i] * dt;
    pos[4 * i] = l * sin(angle1[i]);
    pos[4 * i + 1] = -l * cos(angle1[i]);
    pos[4 * i + 2] = pos[4 * i] + l * sin(angle2[i]);
    pos[4 * i + 3] = pos[4 * i + 1] - l * cos(angle2[i]);
}
`,
      [256, 1, 1],
    ),
    plain: [
      B(0, 0, Float32Array.from({ length: 1000 }, (_, i) => 1.5708 + i * 0.0002)),
      B(0, 1, Float32Array.from({ length: 1000 }, (_, i) => 1.4708 + i * 0.0002)),
      B(0, 2, f(1000, 0.001)),
      B(0, 3, f(1000, -0.001)),
      B(0, 4, Float32Array.from({ length: 1000 }, (_, i) => 1.0 - i * 0.0005)),
      B(0, 5, new Float32Array(4000)),
    ],
    workgroups: [4, 1, 1],
  },
  {
    // After examples/float16/run.cpp's kGelu with precision kf16 (gpu.cpp prepends
    // `enable f16;`), 10,000 inputs i / 10 as main() makes them: an f16 const of an abstract
    // float, a `.0447` literal without a leading zero, tanh and select over f16.
    name: "gpu.cpp float16 GELU (`enable f16;` prepended, an f16 const, select over f16)",
    source: gpucpp(
      `
const SQRT_2_OVER_PI: f16 = 0.7978845608028654;
@group(0) @binding(0) var<storage, read> inp: array<{{precision}}>;
@group(0) @binding(1) var<storage, read_write> out: array<{{precision}}>;
@compute @workgroup_size({{workgroupSize}})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i: u32 = id.x;
    if (i < arrayLength(&inp)) {
        let x: f16 = inp[i];
        out[i] = select(0.5 * x * (1.0 + tanh(SQRT_2_OVER_PI * (x + .0447 * x * x * x))), x, x > 8.0);
    }
}
`,
      [256, 1, 1],
      "f16",
    ),
    plain: [
      B(0, 0, Float16Array.from({ length: 10000 }, (_, i) => i / 10)),
      B(0, 1, new Float16Array(10000)),
    ],
    workgroups: [40, 1, 1],
    features: ["shader-f16"],
  },
  {
    // After examples/gpu_puzzles/key.cpp's kPuzzle7, launched as puzzle7() does (N 5,
    // workgroups of 3 x 3, 2 x 2 of them): `@group(0)@binding(0)` without a blank between the
    // attributes, a comment inside the uniform's struct.
    name: "gpu.cpp GPU puzzle 7 (`@group(0)@binding(0)` without a blank, a 2-D guard)",
    source: gpucpp(
      `
@group(0)@binding(0) var<storage, read> a: array<f32>;
@group(0)@binding(1) var<storage, read_write> output : array<f32>;
@group(0)@binding(2) var<uniform> params: Params;
struct Params {
  size: u32, // a is size x size
};
@compute @workgroup_size({{workgroupSize}})
fn main(
  @builtin(global_invocation_id) gid: vec3<u32>
  ) {
    if (gid.x < params.size && gid.y < params.size) {
      output[gid.x + gid.y * params.size] = a[gid.x + gid.y * params.size] * 2 + 10;
    }
  }
`,
      [3, 3, 1],
    ),
    plain: [B(0, 0, f(25)), B(0, 1, new Float32Array(25)), B(0, 2, w(5), true)],
    workgroups: [2, 2, 1],
    params: { size: 5 },
  },
  {
    // After the same file's kPuzzle8 as puzzle8() launches it (N 8, 4 invocations, 2
    // workgroups): `size: u32, TPB: u32,` on one line, a workgroup array of 256 f32s.
    name: "gpu.cpp GPU puzzle 8 (two members on one line, a workgroup array)",
    source: gpucpp(
      `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output : array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
struct Params {
  size: u32, TPB: u32,
};
var<workgroup> shared_a: array<f32, 256>;
@compute @workgroup_size({{workgroupSize}})
fn main(
  @builtin(global_invocation_id) gid: vec3<u32>,
  @builtin(local_invocation_id) lid: vec3<u32>
  ) {
    if (gid.x < params.size) {
      shared_a[lid.x] = a[gid.x];
    }
    workgroupBarrier();
    if (gid.x < params.size) {
      output[gid.x] = shared_a[(lid.x + 1) % params.TPB] + 10;
    }
  }
`,
      [4, 1, 1],
    ),
    plain: [B(0, 0, f(8)), B(0, 1, new Float32Array(8)), B(0, 2, w(8, 4), true)],
    workgroups: [2, 1, 1],
    params: { size: 8, TPB: 4 },
  },
  {
    // After the same file's kPuzzle9 as puzzle9() launches it: an `else if` chain comparing a
    // u32 with abstract ints, a window sum through workgroup memory.
    name: "gpu.cpp GPU puzzle 9 (pooling through workgroup memory, an else-if chain)",
    source: gpucpp(
      `
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> output : array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
struct Params {
  size: u32,
};
var<workgroup> cache: array<f32, 256>;
@compute @workgroup_size({{workgroupSize}})
fn main(
  @builtin(local_invocation_id) lid: vec3<u32>,
  @builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i < arrayLength(&a)) {
      cache[lid.x] = a[i];
    }
    workgroupBarrier();
    if (i == 0) {
      output[i] = cache[i];
    }
    else if (i == 1) {
      output[i] = cache[i] + cache[i - 1];
    }
    else if (i < params.size) {
      output[i] = cache[i] + cache[i - 1] + cache[i - 2];
    }
  }
`,
      [8, 1, 1],
    ),
    plain: [B(0, 0, f(8)), B(0, 1, new Float32Array(8)), B(0, 2, w(8), true)],
    workgroups: [1, 1, 1],
    params: { size: 8 },
  },
];
