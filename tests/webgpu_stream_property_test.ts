/**
 * Random programs over several streams on the real WebGPU device, with kernels that take
 * read-only inputs (`var<storage, read>`, possibly the very handle they write), compared with a
 * host reference that applies every operation in program order.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { createClient, type Handle, type WgslKernel } from "../mod.ts";

const adapter = await navigator.gpu?.requestAdapter();
const N = 16; // u32 elements per handle

/** out = a + 3 * b + c over u32, wrapping; a and b are read-only inputs. */
const axpb: WgslKernel = {
  id: "axpb_read_only",
  source: `
struct P { c: u32 }
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> p: P;
@compute @workgroup_size(8) fn main(@builtin(global_invocation_id) g: vec3u) {
  if (g.x < arrayLength(&out)) { out[g.x] = a[g.x] + 3u * b[g.x] + p.c; }
}`,
};

type Command =
  | { op: "alloc"; s: number; seed: number }
  | { op: "write"; s: number; h: number; seed: number }
  | { op: "kernel"; s: number; a: number; b: number; out: number; c: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number };

const stream = fc.integer({ min: 0, max: 5 });
const slot = fc.nat(7);
const seed = fc.nat(1000);
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant("alloc" as const), s: stream, seed }) },
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot, seed }),
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("kernel" as const),
      s: stream,
      a: slot,
      b: slot,
      out: slot,
      c: fc.nat(100),
    }),
  },
  fc.record({ op: fc.constant("read" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
);

const pattern = (seed: number) => Uint32Array.from({ length: N }, (_, i) => seed * 31 + i * 7);

Deno.test({
  name: "cross-stream programs with read-only inputs match the sequential reference",
  ignore: adapter === null || adapter === undefined, // no WebGPU adapter on this machine
  async fn() {
    using client = await createClient({ adapter: adapter!, maxTasks: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 24 }), async (program) => {
        const live: { handle: Handle; value: Uint32Array }[] = [];
        const pick = (h: number) => live.length === 0 ? undefined : live[h % live.length];
        const reads: Promise<void>[] = [];
        try {
          for (const cmd of program) {
            if (cmd.op === "alloc") {
              const value = pattern(cmd.seed);
              live.push({ handle: client.createWithData(value, { stream: cmd.s }), value });
            } else if (cmd.op === "write") {
              const target = pick(cmd.h);
              if (target === undefined) continue;
              target.value = pattern(cmd.seed);
              client.write(target.handle, target.value, { stream: cmd.s });
            } else if (cmd.op === "kernel") {
              const [a, b, out] = [pick(cmd.a), pick(cmd.b), pick(cmd.out)];
              if (a === undefined || b === undefined || out === undefined) continue;
              client.execute(axpb, {
                stream: cmd.s,
                threads: N,
                buffers: [a.handle, b.handle, out.handle],
                params: { c: cmd.c },
              });
              out.value = out.value.map((_, i) => a.value[i] + 3 * b.value[i] + cmd.c);
            } else if (cmd.op === "read") {
              const target = pick(cmd.h);
              if (target === undefined) continue;
              const expected = [...target.value];
              reads.push(
                client.read(target.handle, Uint32Array, { stream: cmd.s })
                  .then((got) => assert.deepEqual([...got], expected)),
              );
            } else if (live.length > 0) {
              live.splice(cmd.h % live.length, 1)[0].handle.dispose();
            }
          }
          // Every survivor, read on one stream at the end.
          const finals = await client.readMany(live.map((l) => l.handle), Uint32Array);
          finals.forEach((got, k) => assert.deepEqual([...got], [...live[k].value]));
          await Promise.all(reads);
        } finally {
          for (const { handle } of live) handle.dispose();
        }
      }),
      { numRuns: 25 },
    );
  },
});
