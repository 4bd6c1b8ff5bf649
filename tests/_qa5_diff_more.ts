/**
 * QA wave 5, more of the differential test's calls (tests/_qa5_diff_calls.ts has the first):
 * element-wise and reduction kernels from good and bad specs run with good and bad inputs,
 * params, outputs and lengths; `dot`; stream calls (flush, sync, signal, memoryUsage,
 * memoryCleanup, withStream) with bad stream ids; `readMany`; `createTensor` of bad shapes;
 * `copyTo` with bad options.
 *
 * @module
 */
import fc from "fast-check";
import { dot, elementwise, reduction } from "../mod.ts";
import { type DiffCall, type DiffEnv, SLOTS } from "./_qa5_diff_calls.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const slot = fc.nat(SLOTS - 1);
const ref = fc.oneof({ weight: 8, arbitrary: slot }, fc.constantFrom("foreign", "none"));
const handleOf = (env: DiffEnv, at: number | string): Any =>
  typeof at === "number" ? env.slots[at] : at === "foreign" ? env.foreign : undefined;
const badStream = fc.constantFrom<Any>(undefined, 0, 2, -1, 1.5, NaN, 2 ** 53, 2 ** 32, "1", null);

/** Specs: the good ones compute the same on both backends (small integers, exact). */
const ELEMENTWISE: [string, () => Any][] = [
  ["x * 2", () => elementwise({ inputs: ["x"], expression: "x * 2.0" })],
  ["i32 x + a", () =>
    elementwise({
      inputs: { x: "i32" },
      params: { a: "i32" },
      expression: "x + a",
      output: "i32",
    })],
  [
    "u32 x * y",
    () => elementwise({ inputs: { x: "u32", y: "u32" }, expression: "x * y", output: "u32" }),
  ],
  [
    "raw u32",
    () => elementwise({ inputs: { m: "raw u32" }, expression: "m[0] + u32(i)", output: "u32" }),
  ],
  ["syntax error", () => elementwise({ inputs: ["x"], expression: "x +* 2.0" })],
  ["unknown name", () => elementwise({ inputs: ["x"], expression: "x + zz" })],
  ["name i", () => elementwise({ inputs: ["i"], expression: "i" })],
  ["no inputs", () => elementwise({ inputs: [], expression: "1.0" })],
  ["bad type", () => elementwise({ inputs: { x: "f64" as Any }, expression: "x" })],
  ["bad output", () => elementwise({ inputs: ["x"], expression: "x", output: "u8" as Any })],
  ["empty", () => elementwise({ inputs: ["x"], expression: "" })],
  ["keyword", () => elementwise({ inputs: ["long"], expression: "long" })],
];
/** The first input's name of each spec of ELEMENTWISE. */
const INPUTS = ["x", "x", "x", "m", "x", "x", "i", "x", "x", "x", "x", "long"];
const REDUCTION: [string, () => Any][] = [
  ["sum", () => reduction({ inputs: ["x"], combine: "a + b", identity: "0.0" })],
  ["u32 max", () =>
    reduction({
      inputs: { x: "u32" },
      combine: "max(a, b)",
      identity: "0u",
      output: "u32",
    })],
  ["sum sq", () => reduction({ inputs: ["x"], map: "x * x", combine: "a + b", identity: "0.0" })],
  ["bad combine", () => reduction({ inputs: ["x"], combine: "a +", identity: "0.0" })],
  ["no identity", () => reduction({ inputs: ["x"], combine: "a + b" } as Any)],
  [
    "bad finish",
    () => reduction({ inputs: ["x"], combine: "a + b", identity: "0.0", finish: "r / zz" }),
  ],
];

const params = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constant({ a: 3 }) },
  fc.constantFrom<Any>({ a: -1 }, { a: 1.5 }, { a: 2 ** 31 }, { b: 1 }, { a: "1" }, 5),
);
const length = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  fc.constantFrom<Any>(0, 2, 4, -1, 1.5, 100),
);

/** The build of a spec: a thrown error is the call's (the same on both backends). */
function build(table: [string, () => Any][], pick: number): [string, Any] {
  const [name, make] = table[pick % table.length];
  try {
    return [name, make()];
  } catch (error) {
    return [name, error];
  }
}

/** A good launch of `add` from slot `x` into slot `y` (`c` as given), as a call would make it. */
function addInto(env: DiffEnv, x: number, y: number, c: unknown, stream?: unknown): void {
  const hx: Any = env.slots[x], hy: Any = env.slots[y];
  const n = Math.min(hx?.length ?? 0, hy?.length ?? 0);
  const options: Any = { threads: n, buffers: [hx, hy], params: { c, n } };
  if (stream !== undefined) options.stream = stream;
  env.client.execute(env.add as Any, options);
}

const cValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Any>(1, 7) },
  fc.constantFrom<Any>(-1, 1.5, 2 ** 32, "2"),
);
const someStream = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Any>(undefined, 1) },
  badStream,
);

/** One more random call. */
export const moreCall: fc.Arbitrary<DiffCall> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(fc.nat(), ref, ref, params, length, fc.constantFrom("none", "slot", "x"))
      .map(([pick, x, y, p, n, out]): DiffCall => {
        const [name, spec] = build(ELEMENTWISE, pick);
        return {
          name: `elementwise ${name}(${x}, ${y}, params ${
            JSON.stringify(p)
          }, length ${n}, out ${out})`,
          readSlot: out === "slot" ? 3 : out === "x" && typeof x === "number" ? x : undefined,
          run: (env) => {
            if (spec instanceof Error) throw spec;
            const inputs: Any = { [INPUTS[pick % INPUTS.length]]: handleOf(env, x) };
            if ((pick >> 4) & 1) inputs.y = handleOf(env, y);
            if ((pick >> 5) % 5 === 0) inputs.z = handleOf(env, y); // not an input
            const o: Any = {
              ...(p ? { params: p } : {}),
              ...(n === undefined ? {} : { length: n }),
            };
            if (out === "slot") o.out = env.slots[3];
            if (out === "x") o.out = handleOf(env, x);
            const result = spec.run(env.client, inputs, o);
            return out === "none" ? result : undefined;
          },
        };
      }),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.nat(),
      ref,
      fc.constantFrom<Any>(undefined, [2, 2], [4, 4], [2, 8], [0, 4]),
    )
      .map(([pick, x, shape]): DiffCall => {
        const [name, spec] = build(REDUCTION, pick);
        return {
          name: `reduction ${name}(${x}, shape ${JSON.stringify(shape)})`,
          run: (env) => {
            if (spec instanceof Error) throw spec;
            return spec.run(env.client, { x: handleOf(env, x) }, shape ? { shape } : {});
          },
        };
      }),
  },
  // profile, capture and replay, waitFor around a launch.
  fc.tuple(
    fc.constantFrom("profile", "capture", "capture+zeros", "waitFor self", "waitFor other"),
    fc.constantFrom(0, 3), // the u32 slots
    fc.constantFrom(0, 3),
    cValue,
    cValue,
    someStream,
  ).map(([what, x, y, c, c2, s]): DiffCall => ({
    name: `${what}(add ${x} -> ${y}, c ${String(c)}, replay c ${String(c2)}, stream ${String(s)})`,
    readSlot: y,
    run: async (env) => {
      const { client } = env;
      const o: Any = s === undefined ? {} : { stream: s };
      switch (what) {
        case "profile": {
          const p = await client.profile(() => addInto(env, x, y, c, s), o);
          return p.result === undefined ? undefined : "result?";
        }
        case "waitFor self":
          client.waitFor(client.timeline, client.signal(o), o);
          return addInto(env, x, y, c, s);
        case "waitFor other":
          client.waitFor(env.other.timeline, env.other.signal(), o);
          return addInto(env, x, y, c, s);
        default: {
          const graph = await client.capture(() => {
            addInto(env, x, y, c, s);
            if (what === "capture+zeros") client.zeros(2).dispose();
          }, o);
          try {
            graph.replay();
            graph.replay({ params: { c: c2 } } as Any);
          } finally {
            graph.dispose();
          }
        }
      }
    },
  })),
  fc.tuple(ref, ref).map(([x, y]): DiffCall => ({
    name: `dot(${x}, ${y})`,
    run: (env) => dot(env.client, [handleOf(env, x), handleOf(env, y)]),
  })),
  fc.tuple(
    fc.constantFrom("flush", "sync", "signal", "memoryUsage", "memoryCleanup", "withStream"),
    badStream,
  ).map(([what, s]): DiffCall => ({
    name: `${what}(stream ${String(s)})`,
    run: ({ client }) => {
      const o: Any = s === undefined ? {} : { stream: s };
      switch (what) {
        case "flush":
          return client.flush(o) ?? "flushed";
        case "sync":
          return client.sync(o).then(() => "synced");
        case "signal":
          return typeof client.signal(o);
        case "memoryUsage":
          return typeof client.memoryUsage(o).numberAllocs;
        case "memoryCleanup":
          return client.memoryCleanup(o) ?? "cleaned";
        default:
          return client.withStream(s, () => "inside");
      }
    },
  })),
  fc.tuple(fc.array(ref, { maxLength: 3 }), fc.constantFrom<Any>(undefined, Uint8Array, Int32Array))
    .map(([refs, type]): DiffCall => ({
      name: `readMany([${refs}], ${type?.name})`,
      run: async (env) => {
        const handles = refs.map((at) => handleOf(env, at));
        const arrays = type === undefined
          ? await env.client.readMany(handles)
          : await env.client.readMany(handles, type);
        return arrays.map((a: Any) => `${a.constructor.name}[${Array.from(a).join(",")}]`)
          .join(" ");
      },
    })),
  fc.tuple(
    fc.constantFrom<Any>([2, 3], [], [0], [-1, 2], [1.5], [2 ** 20, 2 ** 20], "4", [NaN]),
    fc.constantFrom<Any>("f32", "u8", "f33", "bytes"),
  ).map(([shape, dtype]): DiffCall => ({
    name: `createTensor(${JSON.stringify(shape)}, ${dtype})`,
    run: ({ client }) => {
      const t = client.createTensor(shape, dtype);
      t.handle.dispose();
      return `strides ${t.strides}`;
    },
  })),
  fc.tuple(
    ref,
    fc.constantFrom<Any>(
      {},
      { destinationStream: -1 },
      { destinationStream: 1.5 },
      { chunkBytes: 0 },
      { chunkBytes: -4 },
      { chunkBytes: 6 },
      { bogus: 1 },
      { stream: 2 ** 53 },
    ),
    fc.constantFrom("other", "self", "not a client"),
  ).map(([at, options, to]): DiffCall => ({
    name: `copyTo(${at}, ${to}, ${JSON.stringify(options)})`,
    run: (env) => {
      const target: Any = to === "other" ? env.other : to === "self" ? env.client : {};
      const copy = env.client.copyTo(handleOf(env, at), target, options);
      return target.read(copy).finally(() => copy.dispose());
    },
  })),
);
