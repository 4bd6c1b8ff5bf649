/**
 * Random programs on a real WebGPU server that mix valid work with invalid launches (rejected at
 * `execute`, or only by WebGPU at submit), disposals and a destroy. Every valid read must be
 * exact against a host model; every invalid operation must get its typed error, synchronously or
 * from the next `sync`/`read` of its own stream, and never from another stream.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ComputeClient, ComputeError, CubeCount, type Handle } from "../mod.ts";
import { WebGpuServer, type WgslKernel } from "../runtime/server/webgpu/mod.ts";
import { increment, typeMismatch, vec4Store } from "./_wgsl_kernels.ts";

const adapter = await navigator.gpu?.requestAdapter();
const ignore = adapter === null || adapter === undefined; // no WebGPU adapter on this machine

const N = 64; // u32 per handle
const HANDLES = 3;
const STREAMS = 4;

type Op =
  | { kind: "inc"; h: number; s: number }
  | { kind: "write"; h: number; s: number; value: number }
  | { kind: "read"; hs: number[]; s: number }
  | { kind: "sync"; s: number }
  | { kind: "badSync"; which: number; s: number }
  | { kind: "badSubmit"; s: number }
  | { kind: "badWgsl"; s: number }
  | { kind: "dispose"; h: number }
  | { kind: "destroy"; pendingRead: boolean };

const h = fc.nat({ max: HANDLES - 1 });
const s = fc.nat({ max: STREAMS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant("inc" as const), h, s }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("write" as const), h, s, value: fc.nat(1000) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("read" as const),
      hs: fc.uniqueArray(h, { minLength: 1, maxLength: HANDLES }),
      s,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("sync" as const), s }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("badSync" as const), which: fc.nat(4), s }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("badSubmit" as const), s }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("badWgsl" as const), s }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dispose" as const), h }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("destroy" as const), pendingRead: fc.boolean() }),
  },
);

const programArb: fc.Arbitrary<Program> = fc.record({
  strategy: fc.constantFrom("interleave" as const, "sequential" as const),
  maxStreams: fc.integer({ min: 1, max: 4 }),
  maxTasks: fc.integer({ min: 1, max: 8 }),
  ops: fc.array(opArb, { maxLength: 30 }),
});

const code = (error: unknown) => error instanceof ComputeError ? error.code : String(error);

/** Launches rejected at `execute`, with the error class they must get. */
const BAD_SYNC: ((c: ComputeClient<WgslKernel>, x: Handle, s: number) => void)[] = [
  (c, x, s) =>
    c.execute(increment, { stream: s, count: { kind: "static", x: -1, y: 1, z: 1 }, buffers: [x] }),
  (c, _x, s) =>
    c.execute(increment, { stream: s, count: CubeCount.newSingle(), buffers: [null as never] }),
  (c, x, s) =>
    c.execute(increment, {
      stream: s,
      count: CubeCount.newSingle(),
      buffers: [x],
      scalars: { u32: [-1] },
    }),
  (c, x, s) =>
    c.execute(increment, { stream: s, count: CubeCount.new2d(1 << 20, 2), buffers: [x] }),
  (c, x, s) => c.execute(increment, { stream: s, count: CubeCount.newSingle(), buffers: [x, x] }),
];

let brokenIds = 0;

interface Program {
  readonly strategy: "interleave" | "sequential";
  readonly maxStreams: number;
  readonly maxTasks: number;
  readonly ops: Op[];
}

async function runProgram(program: Program): Promise<void> {
  const server = await WebGpuServer.create({ adapter: adapter!, ...program });
  const client = new ComputeClient<WgslKernel>(server);
  const model = Array.from({ length: HANDLES }, (_, i) => Array(N).fill(i));
  const handles = model.map((values, i) =>
    client.createWithData(new Uint32Array(values), { stream: i })
  );
  const disposed = model.map(() => false);
  using tiny = client.createWithData(new Uint32Array(1)); // too small for vec4Store
  const owed = new Set<number>(); // pool indices whose next sync/read must reject
  const index = (stream: number) => stream % program.maxStreams;
  let destroyed = false;
  /** Awaits a sync or read on `stream`: rejects iff an error is owed there. */
  const settle = async <T>(stream: number, promise: Promise<T>): Promise<T | undefined> => {
    if (owed.delete(index(stream))) {
      await assert.rejects(promise, (e) => ["DRIVER", "COMPILATION"].includes(code(e)));
      return undefined;
    }
    return await promise;
  };
  try {
    for (const op of program.ops) {
      if (destroyed) {
        // Everything after destroy: DESTROYED.
        assert.throws(() => client.flush({ stream: 0 }), (e) => code(e) === "DESTROYED");
        continue;
      }
      switch (op.kind) {
        case "inc":
        case "write": {
          const act = () =>
            op.kind === "inc"
              ? client.execute(increment, {
                stream: op.s,
                count: CubeCount.new1d(1),
                buffers: [handles[op.h]],
              })
              : client.write(handles[op.h], new Uint32Array(N).fill(op.value), { stream: op.s });
          if (disposed[op.h]) {
            assert.throws(act, (e) => code(e) === "INVALID_HANDLE");
            break;
          }
          act();
          model[op.h] = op.kind === "inc" ? model[op.h].map((v) => v + 1) : Array(N).fill(op.value);
          break;
        }
        case "read": {
          const live = op.hs.filter((i) => !disposed[i]);
          const gone = op.hs.find((i) => disposed[i]);
          if (gone !== undefined) {
            await assert.rejects(
              client.readMany([handles[gone]], Uint32Array, { stream: op.s }),
              (e) => code(e) === "INVALID_HANDLE",
            );
          }
          if (live.length === 0) break;
          const read = client.readMany(live.map((i) => handles[i]), Uint32Array, { stream: op.s });
          const result = await settle(op.s, read);
          result?.forEach((values, k) =>
            assert.deepEqual([...values], model[live[k]], `handle ${live[k]}`)
          );
          break;
        }
        case "sync":
          await settle(op.s, client.sync({ stream: op.s }));
          break;
        case "badSync": {
          const target = handles.find((_, i) => !disposed[i]) ?? tiny;
          assert.throws(
            () => BAD_SYNC[op.which](client, target, op.s),
            (e) =>
              e instanceof TypeError || e instanceof RangeError || code(e) === "KERNEL_ARGUMENT",
          );
          break;
        }
        case "badSubmit":
          try {
            client.execute(vec4Store, { stream: op.s, count: CubeCount.new1d(1), buffers: [tiny] });
            owed.add(index(op.s));
          } catch (error) {
            // Known bad already (or checked by the backend): refused at once, naming the kernel.
            assert.match((error as Error).message, /vec4_store/);
          }
          break;
        case "badWgsl": {
          const broken = {
            ...increment,
            id: `broken_${brokenIds++}`,
            source: typeMismatch.source,
          };
          client.execute(broken, { stream: op.s, count: CubeCount.new1d(1), buffers: [tiny] });
          owed.add(index(op.s));
          break;
        }
        case "dispose":
          handles[op.h].dispose();
          disposed[op.h] = true;
          break;
        case "destroy": {
          const live = handles.find((_, i) => !disposed[i]);
          const pending = op.pendingRead && live ? client.read(live) : undefined;
          const sync = client.sync({ stream: 1 });
          client.destroy();
          destroyed = true;
          if (pending) await assert.rejects(pending, (e) => code(e) === "DESTROYED");
          await assert.rejects(sync, (e) => code(e) === "DESTROYED");
          break;
        }
      }
    }
    if (destroyed) return;
    // The end: every owed error is reported by its own stream; every live handle is exact.
    for (let stream = 0; stream < STREAMS; stream++) await settle(stream, client.sync({ stream }));
    const live = handles.flatMap((_, i) => disposed[i] ? [] : [i]);
    if (live.length > 0) {
      const values = await client.readMany(live.map((i) => handles[i]), Uint32Array);
      values.forEach((v, k) => assert.deepEqual([...v], model[live[k]], `handle ${live[k]}`));
    }
  } finally {
    for (const handle of handles) handle.dispose();
    if (!destroyed) await client.sync().catch(() => {});
    client.destroy();
  }
}

Deno.test({
  name: "random programs with invalid launches, disposals and destroys keep valid results exact",
  ignore,
  async fn() {
    await fc.assert(fc.asyncProperty(programArb, runProgram), { numRuns: 12 });
  },
});
