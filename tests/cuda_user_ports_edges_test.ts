/**
 * What porting small programs to the helpers and primitives ran into (tests/cuda_user_ports_test.ts
 * has the ports), on WebGPU and CUDA from the same calls: outputs that share memory with what the
 * same call reads (a race whose result differed between the backends) are refused; a client
 * destroyed while matmul tunes rejects with `DestroyedError`; helper outputs convert as WGSL's
 * `T(e)` on both backends, and WGSL's scalar built-ins mean the same in CUDA C.
 */
import assert from "node:assert/strict";
import {
  DestroyedError,
  elementwise,
  KernelArgumentError,
  matmul,
  random,
  reduce,
  reduction,
  scatterAdd,
} from "../mod.ts";
import { Tuner } from "../runtime/tune/mod.ts";
import { backends, portName } from "./_user_ports.ts";

for (const backend of backends) {
  Deno.test({
    name: portName(backend, "outputs that share memory with what the call reads"),
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      // scatterAdd into its own values: WebGPU gave [3, 3], CUDA [4, 3] (values read after adds).
      using target = client.createWithData(new Float32Array([1, 2]));
      using indices = client.createWithData(new Uint32Array([1, 0]));
      assert.throws(
        () => scatterAdd(client, target, indices, target),
        (e) => e instanceof RangeError && /target shares memory with values/.test(e.message),
      );
      using words = target.as("u32");
      using sameWords = target.as("u32");
      assert.throws(() => scatterAdd(client, words, words, sameWords), RangeError);
      // A shifted stencil written over its raw input: WebGPU gave [2, 3, 4, 1], CUDA [2, 3, 4, 2].
      const shift = elementwise({
        inputs: { r: "raw f32" },
        params: { len: "u32" },
        expression: "r[(i + 1u) % len]",
      });
      const values = Float32Array.from({ length: 128 }, (_, i) => i);
      using x = client.createWithData(values);
      const shared = /out shares memory with input "[rvx]"/;
      assert.throws(
        () => shift.run(client, { r: x }, { out: x, params: { len: 128 } }),
        (e) => e instanceof RangeError && shared.test(e.message),
      );
      // Rows reduced into the matrix itself: row r's sum lands in row 0 while it is read.
      assert.throws(
        () => reduce(client, x, { shape: [2, 64], out: x }),
        (e) => e instanceof RangeError && shared.test(e.message),
      );
      // In place is fine where each element is read, then written, by one invocation; views of
      // other memory of the same allocation are fine too (at offsets WebGPU binds: 256 bytes).
      const double = elementwise({ inputs: ["v"], expression: "v * 2.0" });
      double.run(client, { v: x }, { out: x });
      using head = x.withOffsetEnd(256);
      using tail = x.withOffsetStart(256);
      reduce(client, head, { out: tail }); // the sum of elements 0..63 into element 64
      const doubled = values.map((v) => 2 * v);
      doubled[64] = doubled.subarray(0, 64).reduce((a, b) => a + b);
      assert.deepEqual(await client.read(x), doubled);
      using shifted = x.withOffsetStart(4); // element i + 1 written while element i + 1 is read
      assert.throws(
        () => double.run(client, { v: head }, { out: shifted }),
        (e) => e instanceof RangeError && shared.test(e.message),
      );
      // The client stays usable.
      using rotated = shift.run(client, { r: x }, { length: 128, params: { len: 128 } });
      assert.deepEqual(await client.read(rotated), doubled.map((_, i) => doubled[(i + 1) % 128]));
    },
  });

  Deno.test({
    name: portName(backend, "partial elements, unknown inputs, names CUDA C cannot use: refused"),
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      // 6 bytes were 1.5 elements: a RangeError about `threads` on WebGPU (or about `length`),
      // a KernelArgumentError about the generated kernel's `n` on CUDA.
      using bytes = client.createWithData(new Float32Array([2, 3]).buffer.slice(0, 6));
      using whole = client.createWithData(new Float32Array([2, 3]));
      using out = client.full(2, 7);
      const square = elementwise({ inputs: ["x"], expression: "x * x" });
      const norm = reduction({ inputs: ["x"], map: "x * x", combine: "a + b", identity: "0.0" });
      const partial = /input "x" must hold whole 4-byte elements/;
      for (
        const run of [
          () => square.run(client, { x: bytes }, { out }),
          () => norm.run(client, { x: bytes }),
        ]
      ) {
        assert.throws(run, (e) => e instanceof RangeError && partial.test(e.message));
      }
      assert.throws(
        () => square.run(client, { x: whole }, { out: bytes }),
        (e) => e instanceof RangeError && /output "out" must hold whole/.test(e.message),
      );
      using squared = square.run(client, { x: whole });
      assert.deepEqual([...await client.read(squared)], [4, 9]);
      // Names WGSL takes but C++ does not: they compiled on WebGPU and failed at the first read
      // on CUDA; now refused when the spec is built, on both.
      for (const name of ["long", "or", "private", "float"]) {
        assert.throws(
          () => elementwise({ inputs: [name], expression: `${name} * 2.0` }),
          (e) => e instanceof RangeError && /C\+\+ keyword/.test(e.message),
        );
      }
      // An input the spec does not declare was ignored (an unknown param was refused).
      assert.throws(
        () => square.run(client, { x: whole, y: whole }),
        (e) => e instanceof RangeError && /has no input "y"/.test(e.message),
      );
      assert.throws(() => norm.run(client, { x: whole, squares: whole }), RangeError);
      // A reduction param named as the launch's own (cols, rows, count...) failed to compile at
      // the first read ("redefinition of `cols`", "duplicate parameter name").
      assert.throws(
        () =>
          reduction({ inputs: ["x"], params: { cols: "u32" }, combine: "a + b", identity: "0.0" }),
        (e) => e instanceof RangeError && /"cols"/.test(e.message),
      );
      const ok = elementwise({ inputs: ["price"], params: { longs: "u32" }, expression: "price" });
      using price = ok.run(client, { price: whole }, { params: { longs: 1 } });
      assert.deepEqual([...await client.read(price)], [2, 3]);
    },
  });

  Deno.test({
    name: portName(backend, "a client destroyed while matmul tunes rejects it with DestroyedError"),
    ignore: backend.skip !== undefined,
    async fn() {
      const client = await backend.open();
      // It was TuneFailedError ("all 13 candidates failed (naive_8x8: DestroyedError: ...").
      const tuner = new Tuner(client, {
        persistent: false,
        progressBar: false,
        onProgress: () => client.destroy(),
      });
      using a = client.createWithData(new Float32Array(16 * 16).fill(1));
      await assert.rejects(
        matmul(client, a, a, { m: 16, n: 16, k: 16, tune: tuner }),
        DestroyedError,
      );
    },
  });

  Deno.test({
    name: portName(backend, "helper outputs convert as WGSL's T(e), the same on both backends"),
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      const x = new Float32Array([3e9, 1e10, -5.5, 7.9, -0.5, 4294967040]);
      using hx = client.createWithData(x);
      // CUDA's C cast saturated (2147483647, 4294967295) where WGSL's i32()/u32() clamp to the
      // largest f32 below 2^31 / 2^32; and WebGPU refused an f32 expression for a u32 output
      // (a CompilationError at the read) that CUDA converted.
      const asI32 = [2147483520, 2147483520, -5, 7, 0, 2147483520];
      const asU32 = [3e9, 4294967040, 0, 7, 0, 4294967040];
      for (const [output, want] of [["i32", asI32], ["u32", asU32]] as const) {
        const convert = elementwise({ inputs: ["x"], output, expression: "x" });
        using converted = convert.run(client, { x: hx });
        assert.deepEqual([...await client.read(converted)], want, `elementwise ${output}`);
        const largest = reduction({
          inputs: ["x"],
          output,
          map: "x",
          combine: "max(a, b)",
          identity: output === "i32" ? "-2147483647 - 1" : "0u",
        });
        using top = largest.run(client, { x: hx });
        assert.deepEqual([...await client.read(top)], [Math.max(...want)], `reduction ${output}`);
      }
      // WGSL built-ins of scalars: on CUDA, all() and any() were the warp votes (any(x) true
      // for every thread where one thread had x true), insertBits, length, distance undefined.
      const votes = elementwise({
        inputs: { x: "f32" },
        output: "u32",
        expression: "select(0u, 1u, all(x > 0.0)) + select(0u, 2u, any(x < 0.0))",
      });
      const bits = elementwise({
        inputs: { x: "f32", k: "u32" },
        output: "u32",
        expression: "insertBits(k, 5u, 4u, 8u) + u32(length(x - 7.0) + distance(x, 1.0) * 0.0)",
      });
      const small = new Float32Array([-2, 0.5, 3, 9]);
      const words = new Uint32Array([0x1234, 0xffffffff, 0, 0xabcdef]);
      using hs = client.createWithData(small);
      using hk = client.createWithData(words);
      using voted = votes.run(client, { x: hs });
      assert.deepEqual([...await client.read(voted)], [2, 1, 1, 1]);
      using inserted = bits.run(client, { x: hs, k: hk });
      const insert = (k: number) => ((k & ~0xff0) | (5 << 4)) >>> 0;
      assert.deepEqual(
        [...await client.read(inserted)],
        [...small].map((v, i) => (insert(words[i]) + Math.trunc(Math.abs(v - 7))) >>> 0),
      );
      const positive = elementwise({ inputs: ["x"], expression: "x > 0.0" }); // bool to f32
      using flags = positive.run(client, { x: hx });
      assert.deepEqual([...await client.read(flags)], [1, 1, 0, 1, 0, 1]);
    },
  });

  Deno.test({
    name: portName(backend, "random refuses options its numbers would ignore"),
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      // torch.randn(n) * 2 + 5 written without distribution: "normal" gave uniform [0, 1);
      // torch.randint(5, 10) as u32 with low/high gave raw words; std < 0 was taken.
      const refused: [Parameters<typeof random>[2], ErrorConstructor, RegExp][] = [
        [{ seed: 1, mean: 5, std: 2 }, TypeError, /mean does not apply.*distribution: "normal"/],
        [{ seed: 1, dtype: "u32", low: 5, high: 10 }, TypeError, /low does not apply to u32/],
        [{ seed: 1, distribution: "normal", high: 2 }, TypeError, /high does not apply/],
        [{ seed: 1, distribution: "normal", std: -1 }, RangeError, /std must be >= 0/],
        [{ seed: 1, low: -3e38, high: 3e38 }, RangeError, /high - low must be a finite f32/],
      ];
      for (const [options, type, message] of refused) {
        assert.throws(
          () => random(client, 4, options),
          (e) => e instanceof type && message.test((e as Error).message),
        );
      }
      using z = random(client, 4, { seed: 1, distribution: "normal", mean: 5, std: 0 });
      assert.deepEqual([...await client.read(z)], [5, 5, 5, 5]);
    },
  });

  Deno.test({
    name: portName(backend, "a captured elementwise replays with new params, as on WebGPU"),
    ignore: backend.skip !== undefined,
    async fn() {
      using client = await backend.open();
      // On CUDA replay({ params: { a } }) was a KernelArgumentError (the helper's params were
      // packed words, "its params: none"); on WebGPU replay({ params: { n } }) also rewrote the
      // helpers' element count (`n`): they then computed n elements. A replay now refuses a
      // param a helper of the graph sets itself (KernelArgumentError, nothing replayed), on both
      // backends, even where a kernel of the caller has a param of that name too.
      const axpy = elementwise({
        inputs: ["x", "y"],
        params: { a: "f32" },
        expression: "a * x + y",
      });
      const fill = backend.name === "webgpu"
        ? {
          source: `struct P { n: u32, v: f32 }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < p.n) { out[id.x] = p.v; }
}`,
        }
        : {
          source: `extern "C" __global__ void fill(float* out, unsigned n, float v) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = v;
}`,
        };
      using x = client.createWithData(new Float32Array([1, 2, 3, 4]));
      using y = client.createWithData(new Float32Array([10, 10, 10, 10]));
      using out = client.zeros(4);
      using filled = client.zeros(4);
      using sums = client.zeros(4);
      using slots = client.createWithData(new Uint32Array([0, 1, 2, 3]));
      using graph = await client.capture(() => {
        axpy.run(client, { x, y }, { out, params: { a: 2 } });
        scatterAdd(client, sums, slots, x); // its own `n` was rewritten on WebGPU
        client.execute(fill as never, { threads: 4, buffers: [filled], params: { n: 4, v: 5 } });
      });
      graph.replay();
      assert.deepEqual([...await client.read(out)], [12, 14, 16, 18]);
      assert.throws(
        () => graph.replay({ params: { a: 3, n: 2, v: 7 } }),
        (e) => e instanceof KernelArgumentError && e.message.includes("params.n"),
      );
      assert.deepEqual([...await client.read(out)], [12, 14, 16, 18]); // nothing replayed
      assert.deepEqual([...await client.read(sums)], [1, 2, 3, 4]);
      graph.replay({ params: { a: 3, v: 7 } });
      assert.deepEqual([...await client.read(out)], [13, 16, 19, 22]);
      assert.deepEqual([...await client.read(filled)], [7, 7, 7, 7]);
      assert.deepEqual([...await client.read(sums)], [2, 4, 6, 8]);
    },
  });
}
