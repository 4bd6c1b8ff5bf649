/**
 * Random programs over up to 8 streams on the CUDA server and the simulated driver, whose stream
 * threads run late and out of order between each other. Every read must equal a sequential
 * reference that applies the commands in program order, and the simulator's happens-before
 * checker must report no hazard: no access unordered after the last write, no write after an
 * unordered read, no access after free (pages are freed mid-program by cleanups), no staging
 * buffer reused before its copy ran.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { Bindings, CubeCount, type Handle } from "../backend.ts";
import { CUDA_KERNELS, CudaServer } from "../runtime/server/cuda/mod.ts";
import { hazardCount, hazardReport, resetHazards, SIM_LIBRARY } from "./fixtures/cuda_sim.ts";

const N = 64; // u32 elements per buffer
const SLOTS = 12;

type Command =
  | { op: "alloc"; s: number; h: number; fill: number }
  | { op: "write"; s: number; h: number; fill: number }
  | { op: "fill"; s: number; h: number; fill: number }
  | { op: "copy"; s: number; from: number; to: number }
  | { op: "increment"; s: number; h: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number }
  | { op: "cleanup" };

const stream = fc.integer({ min: 0, max: 7 });
const slot = fc.nat(SLOTS - 1);
const value = fc.nat(1000);
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant("alloc" as const), s: stream, h: slot, fill: value }),
    weight: 3,
  },
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot, fill: value }),
  fc.record({ op: fc.constant("fill" as const), s: stream, h: slot, fill: value }),
  {
    arbitrary: fc.record({ op: fc.constant("copy" as const), s: stream, from: slot, to: slot }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ op: fc.constant("increment" as const), s: stream, h: slot }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant("read" as const), s: stream, h: slot }), weight: 2 },
  fc.record({ op: fc.constant("dispose" as const), h: slot }),
  fc.record({ op: fc.constant("cleanup" as const) }), // frees idle pages while work is queued
);

const u32 = (values: Uint32Array) => new Uint8Array(values.buffer.slice(0));
const meta = { data: new Uint32Array([N]), staticLength: 1 };
const one = CubeCount.new1d(1);

async function run(server: CudaServer, program: Command[]): Promise<void> {
  const handles = new Map<number, Handle>();
  const model = new Map<number, Uint32Array>();
  const reads: Promise<void>[] = [];
  const kernel = (s: number, kernel: typeof CUDA_KERNELS.fillU32, bindings: Bindings) =>
    server.execute({ kernel, count: one, bindings }, s);
  try {
    for (const c of program) {
      const h = "h" in c ? handles.get(c.h) : undefined;
      switch (c.op) {
        case "alloc": {
          handles.get(c.h)?.dispose();
          const data = new Uint32Array(N).map((_, i) => c.fill + i);
          handles.set(c.h, server.createWithData(u32(data), c.s));
          model.set(c.h, data);
          break;
        }
        case "write": {
          if (!h) break;
          const data = new Uint32Array(N).fill(c.fill);
          server.write([{ descriptor: h.copyDescriptor([N], [1], 4), data: u32(data) }], c.s);
          model.set(c.h, data);
          break;
        }
        case "fill":
          if (!h) break;
          kernel(
            c.s,
            CUDA_KERNELS.fillU32,
            new Bindings().withBuffer(h.binding()).withMetadata(meta).withScalar("u32", [c.fill]),
          );
          model.set(c.h, new Uint32Array(N).fill(c.fill));
          break;
        case "copy": {
          const from = handles.get(c.from), to = handles.get(c.to);
          if (!from || !to || c.from === c.to) break;
          kernel(
            c.s,
            CUDA_KERNELS.copyU32,
            new Bindings().withBuffers([from.binding(), to.binding()]).withMetadata(meta),
          );
          model.set(c.to, model.get(c.from)!.slice());
          break;
        }
        case "increment":
          if (!h) break;
          kernel(c.s, CUDA_KERNELS.incrementU32, new Bindings().withBuffer(h.binding()));
          model.set(c.h, model.get(c.h)!.map((v) => v + 1));
          break;
        case "read": {
          if (!h) break;
          const expected = [...model.get(c.h)!];
          reads.push(
            server.read([h.copyDescriptor([N], [1], 4)], c.s).then(([bytes]) => {
              assert.deepEqual([...new Uint32Array(bytes.buffer)], expected);
            }),
          );
          break;
        }
        case "cleanup":
          server.memoryCleanup(0);
          break;
        case "dispose":
          handles.get(c.h)?.dispose();
          handles.delete(c.h);
          model.delete(c.h);
          break;
      }
    }
  } finally {
    for (const handle of handles.values()) handle.dispose();
    await Promise.all(reads);
    await server.sync(0);
  }
}

async function property(server: CudaServer, numRuns: number): Promise<void> {
  let programs = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 24 }), async (program) => {
      programs++;
      resetHazards(); // so a failing program (and its shrinks) reports only its own hazards
      await run(server, program);
      assert.equal(hazardCount(), 0, hazardReport());
    }),
    { numRuns },
  );
  assert.ok(programs >= numRuns);
  server.memoryCleanup(0);
  assert.equal(server.memoryUsage(0).numberAllocs, 0);
}

Deno.test("CUDA server: random cross-stream programs match the sequential reference with zero hazards", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 8 });
  await property(server, 500);
});

Deno.test("the same without memory pools (cuMemAlloc, frees deferred behind events)", async () => {
  using server = CudaServer.create({ library: SIM_LIBRARY, maxStreams: 8, memoryPools: false });
  await property(server, 150);
});
