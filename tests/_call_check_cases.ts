/**
 * Calls refused at the call, the same on every backend (tests/call_checks_test.ts on WebGPU,
 * tests/cuda_call_checks_test.ts on the simulated CUDA driver): an `execute` option or a helper
 * option that does not exist (a typo was ignored, the call ran without it), and a helper or
 * primitive given something that is not a client (it failed deep inside with "cannot read
 * properties of undefined"). Each is a `TypeError` naming the key or the argument; nothing runs.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  argmax,
  argmin,
  argsort,
  bincount,
  type ComputeClient,
  cumsum,
  dot,
  elementwise,
  gather,
  histogram,
  matmul,
  random,
  reduce,
  reduction,
  scan,
  scatterAdd,
  segmentReduce,
  sort,
  topk,
  transpose,
} from "../mod.ts";

const square = elementwise({ inputs: ["x"], expression: "x * x" });
const total = reduction({ inputs: ["x"], combine: "a + b", identity: "0.0" });

// deno-lint-ignore no-explicit-any
type Any = any;

/** Every helper and primitive, with valid arguments but `options` and `client` given. */
function calls(x: Any, u: Any) {
  return {
    scan: (c: Any, o: Any) => scan(c, x, o),
    cumsum: (c: Any, o: Any) => cumsum(c, x, o),
    sort: (c: Any, o: Any) => sort(c, x, o),
    argsort: (c: Any, o: Any) => argsort(c, x, o),
    topk: (c: Any, o: Any) => topk(c, x, 2, o),
    argmax: (c: Any, o: Any) => argmax(c, x, o),
    argmin: (c: Any, o: Any) => argmin(c, x, o),
    histogram: (c: Any, o: Any) => histogram(c, x, { bins: 4, range: [0, 4], ...o }),
    bincount: (c: Any, o: Any) => bincount(c, u, { length: 4, ...o }),
    random: (c: Any, o: Any) => random(c, 4, { seed: 1, ...o }),
    reduce: (c: Any, o: Any) => reduce(c, x, o),
    dot: (c: Any, o: Any) => dot(c, [x, x], o),
    transpose: (c: Any, o: Any) => transpose(c, x, { shape: [2, 2], ...o }),
    gather: (c: Any, o: Any) => gather(c, x, u, o),
    scatterAdd: (c: Any, o: Any) => scatterAdd(c, x, u, x, o),
    segmentReduce: (c: Any, o: Any) => segmentReduce(c, x, u, { segments: 4, ...o }),
    matmul: (c: Any, o: Any) => matmul(c, x, x, { m: 2, n: 2, k: 2, ...o }),
    elementwise: (c: Any, o: Any) => square.run(c, { x }, o),
    reduction: (c: Any, o: Any) => total.run(c, { x }, o),
  };
}

/** Throws (or rejects: `matmul` is async) with a `TypeError` whose message matches `pattern`. */
async function refused(call: () => unknown, pattern: RegExp, what: string): Promise<void> {
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    assert.ok(error instanceof TypeError, `${what}: ${error}`);
    assert.match(error.message, pattern, what);
    return;
  }
  assert.ok(result instanceof Promise, `${what}: accepted`);
  await assert.rejects(result as Promise<unknown>, (error) => {
    assert.ok(error instanceof TypeError, `${what}: ${error}`);
    assert.match((error as Error).message, pattern, what);
    return true;
  });
}

/**
 * The cases on `client`; `kernel` adds 1 to each f32 of its one buffer (`threads` of them).
 */
export async function callCheckCases(client: ComputeClient, kernel: object): Promise<void> {
  using x = client.createWithData(new Float32Array([3, 1, 2, 0]));
  using u = client.createWithData(new Uint32Array([0, 1, 1, 3]));
  // deno-lint-ignore no-explicit-any
  const execute = (options: any) => client.execute(kernel as never, options);
  for (
    const [key, options] of [
      ["thread", { thread: 4, buffers: [x] }], // `threads` misspelt: no count at all
      ["param", { threads: 4, buffers: [x], param: { a: 1 } }],
      ["label", { threads: 4, buffers: [x], label: "add one" }],
    ] as const
  ) {
    await refused(
      () => execute(options),
      new RegExp(
        `execute: unknown option "${key}" \\(the options are threads, count, buffers, params`,
      ),
      `execute ${key}`,
    );
  }
  await refused(() => execute(null), /execute options must be an object, got null/, "null");
  assert.deepEqual([...await client.read(x)], [3, 1, 2, 0], "nothing ran");
  execute({ threads: 4, buffers: [x], stream: undefined });
  assert.deepEqual([...await client.read(x)], [4, 2, 3, 1], "the client computes");

  const all = calls(x, u);
  for (const [name, call] of Object.entries(all)) {
    await refused(
      () => call(client, { stream: 0, strem: 1 }),
      new RegExp(`unknown option "strem" \\(the options are .*stream`),
      `${name} typo`,
    );
    for (const [bad, shown] of [[undefined, "undefined"], [x, "Handle"], [{}, "Object"]]) {
      await refused(
        () => call(bad, {}),
        new RegExp(`client must be a ComputeClient \\(from createClient\\), got ${shown}`),
        `${name}(${shown})`,
      );
    }
  }
  // The options each helper has, named when one is misspelt.
  await refused(() => all.sort(client, { descend: true }), /"descend".*descending/, "sort");
  await refused(() => all.scan(client, { exclusiv: true }), /"exclusiv".*exclusive/, "scan");
  await refused(() => all.cumsum(client, { op: "max" }), /cumsum: unknown option "op"/, "cumsum");
  await refused(() => all.dot(client, { op: "max" }), /dot: unknown option "op"/, "dot");
  await refused(() => all.random(client, { sead: 2 }), /random: unknown option "sead"/, "rng");
  await refused(() => all.elementwise(client, { param: {} }), /"param".*params/, "elementwise");
  // A misspelt spec key: `outputs` gave f32 elements, `finsh` a sum where a mean was asked.
  const spec = (extra: object): Any => ({ inputs: ["x"], expression: "x", ...extra });
  assert.throws(() => elementwise(spec({ outputs: "i32" })), /unknown spec key "outputs"/);
  assert.throws(
    () => reduction({ inputs: ["x"], combine: "a + b", identity: "0.0", finsh: "r" } as Any),
    /reduction: unknown spec key "finsh" \(the keys are inputs, map, combine, identity, finish/,
  );
  assert.deepEqual([...await client.read(x)], [4, 2, 3, 1], "nothing ran");
  using sums = cumsum(client, x);
  assert.deepEqual([...await client.read(sums)], [4, 6, 9, 10]);
  await clientCallCases(client, x, kernel);
}

/** The client's own calls: a misspelt option of each is a `TypeError` naming it and the keys. */
async function clientCallCases(client: ComputeClient, x: Any, kernel: object): Promise<void> {
  const c: Any = client;
  const cases: [string, () => unknown, string][] = [
    ["createWithData", () => c.createWithData(new Float32Array(2), { strem: 1 }), "stream, label"],
    ["createBytes", () => c.createBytes(8, { strem: 1 }), "stream, label"],
    ["empty", () => c.empty(2, "f32", { strem: 1 }), "stream, label"],
    ["zeros", () => c.zeros(2, "f32", { lable: "z" }), "stream, label"],
    ["full", () => c.full(2, 1, { dtyp: "u32" }), "stream, label, dtype"],
    ["arange", () => c.arange(2, "f32", { stat: 1 }), "stream, label, start, step"],
    [
      "createTensor",
      () => c.createTensor([2, 2], "f32", { knd: "optimized" }),
      "stream, label, kind",
    ],
    ["write", () => c.write(x, new Float32Array([9]), { offest: 3 }), "stream, offset"],
    ["read", () => c.read(x, { strem: 1 }), "stream"],
    ["sync", () => c.sync({ strem: 1 }), "stream"],
    ["flush", () => c.flush({ strem: 1 }), "stream"],
    ["signal", () => c.signal({ strem: 1 }), "stream"],
    ["memoryUsage", () => c.memoryUsage({ strem: 1 }), "stream"],
    ["waitFor", () => c.waitFor(client.timeline, 0, { timeout: 5 }), "stream, timeoutMs"],
    ["profile", () => c.profile(() => {}, { perkernel: true }), "stream, perKernel"],
    ["copyTo", () => c.copyTo(x, client, { chunk: 4 }), "stream, label, destinationStream"],
    ["capture", () => c.capture(() => {}, { lable: "g" }), "stream, label"],
  ];
  for (const [call, run, keys] of cases) {
    await refused(
      run,
      new RegExp(`^${call}: unknown option ".*" \\(the options are ${keys}`),
      call,
    );
  }
  const before = [...await client.read(x)];
  assert.deepEqual(before, [4, 2, 3, 1], "nothing ran, nothing was written");
  // A replay whose `params` is misspelt replayed the old values: a silently wrong result.
  using graph = await client.capture(() => {
    client.execute(kernel as never, { threads: 4, buffers: [x] });
  });
  await refused(() => graph.replay({ parms: {} } as Any), /^replay: unknown option "parms"/, "r");
  graph.replay();
  assert.deepEqual([...await client.read(x)], [5, 3, 4, 2], "one replay ran");
}
