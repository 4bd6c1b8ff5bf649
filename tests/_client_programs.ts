/**
 * Random programs over one client, through the client API only, on either backend: allocations
 * of varied sizes on random streams (so freed slices are reused at other sizes), sub-views
 * (`withOffsetStart`/`withOffsetEnd`) that share their parent's memory and outlive its disposal,
 * writes (whole or at an element offset), kernels that read one handle and write another, copies
 * within the client, reads, disposals while work that uses the memory is still in flight, streams
 * held by `waitFor` (host gates opened later in the program, marks of the client's own timeline),
 * and launches inside `profile`. Every read is checked against a CPU model that applies the
 * commands in program order: the runtime must order everything it was not told to leave unordered.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type ComputeClient, CpuTimelineSignal, type Handle, type WgslKernel } from "../mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/mod.ts";
import type { KernelMetadata } from "../backend.ts";

/** `y[i] = x[i] + c` for `i < n` over u32: `buffers: [x, y]`, `params: { c, n }`. */
export const ADD_WGSL: WgslKernel = {
  source: `
struct P { c: u32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@group(0) @binding(2) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { y[id.x] = x[id.x] + p.c; }
}`,
};

/** The same kernel in CUDA C, with the PTX `nvcc -ptx` made of it (no NVRTC needed). */
export const ADD_CUDA: CudaKernel = {
  source: `extern "C" __global__ void add(const unsigned* x, unsigned* y, unsigned c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + c;
}`,
  ptx: `
.version 9.0
.target sm_75
.address_size 64
.visible .entry add(
 .param .u64 add_param_0,
 .param .u64 add_param_1,
 .param .u32 add_param_2,
 .param .u32 add_param_3
)
{
 .reg .pred  %p<2>;
 .reg .b32  %r<9>;
 .reg .b64  %rd<8>;
 ld.param.u64  %rd1, [add_param_0];
 ld.param.u64  %rd2, [add_param_1];
 ld.param.u32  %r2, [add_param_2];
 ld.param.u32  %r3, [add_param_3];
 mov.u32  %r4, %ctaid.x;
 mov.u32  %r5, %ntid.x;
 mov.u32  %r6, %tid.x;
 mad.lo.s32  %r1, %r4, %r5, %r6;
 setp.ge.u32  %p1, %r1, %r3;
 @%p1 bra  $L__BB0_2;
 cvta.to.global.u64  %rd3, %rd1;
 mul.wide.u32  %rd4, %r1, 4;
 add.s64  %rd5, %rd3, %rd4;
 ld.global.u32  %r7, [%rd5];
 add.s32  %r8, %r7, %r2;
 cvta.to.global.u64  %rd6, %rd2;
 add.s64  %rd7, %rd6, %rd4;
 st.global.u32  [%rd7], %r8;
$L__BB0_2:
 ret;
}
`,
};

/** Views start at multiples of this many u32 (256 bytes: any backend binds storage there). */
const VIEW_STEP = 64;

export type ClientCommand =
  | { op: "alloc"; s: number; h: number; len: number; seed: number }
  | { op: "view"; h: number; to: number; start: number; cut: number }
  | { op: "write"; s: number; h: number; at: number; seed: number }
  | { op: "add"; s: number; x: number; y: number; c: number }
  | { op: "copy"; s: number; t: number; h: number; to: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number }
  | { op: "gate"; s: number }
  | { op: "open" }
  | { op: "mark"; s: number; t: number }
  | { op: "profile"; s: number; x: number; y: number; c: number }
  | { op: "yield" };

const stream = fc.nat(3);
const slot = fc.nat(7);
const seed = fc.nat(1000);
/** Program commands; `maxLen` bounds the elements of an allocation. */
export function clientCommand(maxLen = 300): fc.Arbitrary<ClientCommand> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant("alloc" as const),
        s: stream,
        h: slot,
        len: fc.integer({ min: 1, max: maxLen }),
        seed,
      }),
    },
    fc.record({
      op: fc.constant("view" as const),
      h: slot,
      to: slot,
      start: fc.nat(3),
      cut: fc.nat(3),
    }),
    fc.record({ op: fc.constant("write" as const), s: stream, h: slot, at: fc.nat(maxLen), seed }),
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant("add" as const),
        s: stream,
        x: slot,
        y: slot,
        c: fc.nat(100),
      }),
    },
    fc.record({ op: fc.constant("copy" as const), s: stream, t: stream, h: slot, to: slot }),
    { weight: 2, arbitrary: fc.record({ op: fc.constant("read" as const), s: stream, h: slot }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("dispose" as const), h: slot }) },
    fc.record({ op: fc.constant("gate" as const), s: stream }),
    fc.record({ op: fc.constant("open" as const) }),
    fc.record({ op: fc.constant("mark" as const), s: stream, t: stream }),
    fc.record({ op: fc.constant("profile" as const), s: stream, x: slot, y: slot, c: fc.nat(100) }),
    fc.record({ op: fc.constant("yield" as const) }),
  );
}

interface Slot {
  readonly handle: Handle<"u32">;
  /** The model of the handle's elements: a view of its memory's model. */
  readonly model: Uint32Array;
}

/**
 * Whether two views of one memory overlap at different starts: a kernel reading one while it
 * writes the other has no one result (it depends on the order of the invocations).
 */
function shifted(a: Uint32Array, b: Uint32Array): boolean {
  if (a.buffer !== b.buffer || a.byteOffset === b.byteOffset) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

const pattern = (len: number, seed: number) =>
  Uint32Array.from({ length: len }, (_, i) => (seed * 7919 + i * 31) >>> 0);

/**
 * Runs `program` on `client`; rejects with the first read that differs from the model (or the
 * first call that failed). Every handle is disposed and every stream synced at the end.
 */
export async function runClientProgram<K extends KernelMetadata>(
  client: ComputeClient<K>,
  add: K,
  program: readonly ClientCommand[],
): Promise<void> {
  const slots = new Map<number, Slot>();
  const reads: Promise<void>[] = [];
  const put = (h: number, next: Slot) => {
    slots.get(h)?.handle.dispose();
    slots.set(h, next);
  };
  const gates: CpuTimelineSignal[] = [];
  const profiles: Promise<unknown>[] = [];
  const add1 = (c: { s: number; x: number; y: number; c: number }) => {
    const x = slots.get(c.x), y = slots.get(c.y);
    if (!x || !y || shifted(x.model, y.model)) return;
    const n = Math.min(x.model.length, y.model.length);
    client.execute(add, {
      stream: c.s,
      threads: n,
      buffers: [x.handle, y.handle],
      params: { c: c.c, n },
    });
    const before = x.model.slice(0, n);
    for (let i = 0; i < n; i++) y.model[i] = (before[i] + c.c) >>> 0;
  };
  let failure: { error: unknown } | undefined;
  try {
    for (const c of program) {
      switch (c.op) {
        case "alloc": {
          const data = pattern(c.len, c.seed);
          put(c.h, { handle: client.createWithData(data, { stream: c.s }), model: data.slice() });
          break;
        }
        case "view": {
          const at = slots.get(c.h);
          if (!at) break;
          const start = Math.min(c.start * VIEW_STEP, at.model.length - 1);
          const aligned = start - (start % VIEW_STEP);
          const cut = Math.min(c.cut * 5, at.model.length - aligned - 1);
          using skipped = at.handle.withOffsetStart(aligned * 4); // an owner too
          const handle = skipped.withOffsetEnd(cut * 4);
          put(c.to, { handle, model: at.model.subarray(aligned, at.model.length - cut) });
          break;
        }
        case "write": {
          const at = slots.get(c.h);
          if (!at) break;
          const offset = c.at % at.model.length;
          const data = pattern(at.model.length - offset, c.seed);
          client.write(at.handle, data, { stream: c.s, offset });
          at.model.set(data, offset);
          break;
        }
        case "add":
          add1(c);
          break;
        case "profile": // a read right after it must see the launch
          profiles.push(client.profile(() => add1(c), { stream: c.s }));
          break;
        case "gate": { // a host producer that opens later in the program (or at its end)
          const gate = new CpuTimelineSignal();
          gates.push(gate);
          client.waitFor(gate, 1, { stream: c.s });
          break;
        }
        case "open":
          gates.shift()?.set(1);
          break;
        case "mark":
          client.waitFor(client.timeline, client.signal({ stream: c.s }), { stream: c.t });
          break;
        case "copy": {
          const at = slots.get(c.h);
          if (!at) break;
          const handle = client.copyTo(at.handle, client, { stream: c.s, destinationStream: c.t });
          put(c.to, { handle, model: at.model.slice() });
          break;
        }
        case "read": {
          const at = slots.get(c.h);
          if (!at) break;
          const expected = [...at.model];
          reads.push(
            client.read(at.handle, { stream: c.s }).then((got) => {
              assert.deepEqual([...got], expected, `read of slot ${c.h} on stream ${c.s}`);
            }),
          );
          break;
        }
        case "dispose":
          slots.get(c.h)?.handle.dispose();
          slots.delete(c.h);
          break;
        case "yield":
          await new Promise((resolve) => setTimeout(resolve, 0));
          break;
      }
    }
    for (const gate of gates.splice(0)) gate.set(1);
    await Promise.all(profiles);
    // Every survivor, read at the end on one stream.
    const live = [...slots.entries()];
    const finals = await client.readMany(live.map(([, s]) => s.handle));
    finals.forEach((got, k) =>
      assert.deepEqual([...got], [...live[k][1].model], `final read of slot ${live[k][0]}`)
    );
  } catch (error) {
    failure = { error };
  }
  for (const gate of gates) gate.set(1);
  for (const { handle } of slots.values()) handle.dispose();
  const settled = await Promise.allSettled([
    ...reads,
    ...profiles,
    ...[0, 1, 2, 3].map((stream) => client.sync({ stream })),
  ]);
  if (failure !== undefined) throw failure.error;
  const failed = settled.find((result) => result.status === "rejected");
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
}
