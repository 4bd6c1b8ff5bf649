/**
 * The simulated driver's `CUDA_SIM_PEER` knob (issue #26, item 12): `all`/`1`, `none`/`0` and
 * directed pairs `a>b,...` configure `cuDeviceCanAccessPeer`; any other value makes `cuInit` fail
 * with `CUDA_ERROR_INVALID_VALUE` (and the simulator prints the value), so no test runs on a guess.
 */
import assert from "node:assert/strict";
import { BackendUnavailableError } from "../backend.ts";
import { CudaServer } from "../runtime/server/cuda/mod.ts";
import { SIM_LIBRARY, withSimEnv } from "./fixtures/cuda_sim.ts";

// Opened here, outside the tests (a library opened inside one trips the resource sanitizer).
const driver = Deno.dlopen(SIM_LIBRARY, {
  cuInit: { parameters: ["u32"], result: "i32" },
  cuDeviceCanAccessPeer: { parameters: ["buffer", "i32", "i32"], result: "i32" },
});

const DEVICES = 3;

/** `cuInit`'s result under `CUDA_SIM_PEER=peer`, and on success who may access whom ("0>1"...). */
function peers(peer: string): Promise<number | string[]> {
  return withSimEnv({ CUDA_SIM_PEER: peer, CUDA_SIM_DEVICES: String(DEVICES) }, () => {
    const result = driver.symbols.cuInit(0);
    if (result !== 0) return result;
    const can = new Int32Array(1);
    const pairs: string[] = [];
    for (let a = 0; a < DEVICES; a++) {
      for (let b = 0; b < DEVICES; b++) {
        assert.equal(driver.symbols.cuDeviceCanAccessPeer(can, a, b), 0);
        if (can[0] !== 0) pairs.push(`${a}>${b}`);
      }
    }
    return pairs;
  });
}

const EVERY = ["0>1", "0>2", "1>0", "1>2", "2>0", "2>1"];

Deno.test("CUDA_SIM_PEER: all, 1, none, 0 and directed pairs", async () => {
  assert.deepEqual(await peers("all"), EVERY);
  assert.deepEqual(await peers("1"), EVERY);
  assert.deepEqual(await peers(""), EVERY); // unset: the default
  assert.deepEqual(await peers("none"), []);
  assert.deepEqual(await peers("0"), []);
  assert.deepEqual(await peers("0>1,2>0"), ["0>1", "2>0"]);
  assert.deepEqual(await peers("1>2"), ["1>2"]);
});

Deno.test("CUDA_SIM_PEER: any other value fails cuInit with CUDA_ERROR_INVALID_VALUE", async () => {
  for (const bad of ["yes", "true", "2", "-1", "0>0", "0>8", "0-1", "0>1x", "0>1;1>0", ">1"]) {
    assert.equal(await peers(bad), 1, `CUDA_SIM_PEER=${bad}`);
  }
  await withSimEnv({ CUDA_SIM_PEER: "both" }, () => {
    assert.throws(
      () => CudaServer.create({ library: SIM_LIBRARY }),
      (e) =>
        e instanceof BackendUnavailableError &&
        /cuInit returned CUDA_ERROR_INVALID_VALUE \(1\)/.test(e.message),
    );
  });
  // Fixed, the next start works.
  assert.deepEqual(await peers("none"), []);
  using server = CudaServer.create({ library: SIM_LIBRARY });
  assert.equal(server.properties.backend, "cuda");
});
