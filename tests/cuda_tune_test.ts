/**
 * The tuner on a CUDA client (simulated driver, NVRTC): its picks live in a namespace of their
 * own (backend and device), a cache it may not write keeps them in memory and says so, candidates
 * that do not compile, throw or disagree with the reference are never picked, and the tuned
 * product equals the untuned one bit for bit (every variant sums with fma in k order).
 */
import assert from "node:assert/strict";
import { type Handle, matmul } from "../mod.ts";
import { matmulSet, TunableSet, Tuner } from "../runtime/tune/mod.ts";
import type { CudaKernel } from "../runtime/server/cuda/kernel.ts";
import { lcgFloats } from "./_matmul_cases.ts";
import { nvrtcName, nvrtcSkip, simulatedCudaClient } from "./_cuda_nvrtc.ts";

const ignore = nvrtcSkip !== undefined;
const sampling = { adaptive: false, minSamples: 1, maxSamples: 2, minSampleMs: 0 };

Deno.test({
  name: nvrtcName("tune on CUDA: read-only cache in memory, own namespace, tuned equals untuned"),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    // tests/fixtures is readable but not writable under the CUDA tests' permissions.
    const cacheDir = "tests/fixtures/tune_readonly";
    const tuner = new Tuner(client, { cacheDir, name: "cuda", progressBar: false, sampling });
    assert.equal(tuner.cacheFile, undefined, "no write permission: nothing to persist to");
    const [m, n, k] = [21, 19, 18];
    using a = client.createWithData(lcgFloats(m * k, 5));
    using b = client.createWithData(lcgFloats(k * n, 6));
    const set = matmulSet(client);
    const outcome = await tuner.tune(set, { a, b, m, n, k });
    assert.equal(outcome.persisted, false);
    assert.ok(set.candidate(outcome.fastest) !== undefined, outcome.fastest);
    const { warnings, file } = await tuner.cache();
    assert.equal(file, undefined);
    // the namespace: the version, then the backend and the device's name (as a folder name)
    const folder =
      /No write permission for tests\/fixtures\/tune_readonly\/v[^/]+\/cuda-([^/]+): tuning results stay in memory/
        .exec(warnings.join("\n"));
    assert.ok(folder, warnings.join("\n"));
    const words = client.server.properties.deviceName.toLowerCase().match(/[a-z0-9]+/g) ?? [];
    assert.ok(words.length > 0 && words.every((w) => folder[1].includes(w)), folder[1]);
    using tuned = await matmul(client, a, b, { m, n, k, tune: tuner });
    using plain = await matmul(client, a, b, { m, n, k, tune: false });
    assert.deepEqual(
      await client.read(tuned, Float32Array),
      await client.read(plain, Float32Array),
    );
    assert.equal(tuner.stats.tunings, 1, "the second call hit the in-memory pick");
  },
});

Deno.test({
  name: nvrtcName(
    "tune on CUDA: a candidate that fails to compile, throws or is wrong is never picked",
  ),
  ignore,
  async fn() {
    using client = await simulatedCudaClient();
    const N = 256;
    const scale = (id: string, expr: string): CudaKernel => ({
      id,
      source: `extern "C" __global__ void k(const float* x, float* y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = ${expr}; }
}`,
    });
    const candidate = (name: string, kernel: CudaKernel) => ({
      name,
      run: (x: Handle) => {
        const y = client.createBytes(N * 4);
        client.execute(kernel, { threads: N, buffers: [x, y], params: { n: N } });
        return y;
      },
    });
    const set = new TunableSet("cuda_scale", {
      key: () => ({ n: N }),
      candidates: [
        candidate("good", scale("test.tune.good", "v * 2.0f")),
        candidate("broken", scale("test.tune.broken", "v * ;")),
        { name: "throws", run: () => Promise.reject(new Error("boom")) },
        candidate("wrong", scale("test.tune.wrong", "v * 3.0f")),
      ],
    });
    const tuner = new Tuner(client, {
      persistent: false,
      progressBar: false,
      checks: true,
      sampling,
    });
    using x = client.createWithData(new Float32Array(N).fill(1));
    const outcome = await tuner.tune(set, x);
    assert.equal(outcome.fastest, "good");
    const status = Object.fromEntries(outcome.results.map((r) => [r.name, r.status]));
    assert.deepEqual(status, { good: "ok", broken: "failed", throws: "failed", wrong: "failed" });
    assert.match(String(outcome.errors.get("broken")), /CompilationError/);
    assert.match(String(outcome.errors.get("wrong")), /TuneMismatchError/);
  },
});
