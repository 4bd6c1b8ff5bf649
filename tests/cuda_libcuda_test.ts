/**
 * The CUDA backend's loading code against NVIDIA's real driver library: Debian bookworm's
 * `libcuda1` (non-free), fetched and unpacked by `tools/fetch_libcuda.sh` (`.ci/run` runs it), on
 * a machine without a GPU. The library opens with the backend's symbol table (every required
 * symbol resolves; the optional ones are present exactly on the drivers that have them),
 * `cuDriverGetVersion` reports the CUDA version of the driver's branch, and
 * `createClient({ backend: "cuda" })` fails with `BACKEND_UNAVAILABLE` saying no CUDA device was
 * found. The simulated driver is checked against it too: the same error names and texts, and the
 * same answers after a failed `cuInit`. Skipped, with the reason, where the package could not be
 * fetched.
 */
import assert from "node:assert/strict";
import { createClient, listDevices } from "../mod.ts";
import { BackendUnavailableError } from "../backend.ts";
import {
  CUDA_SYMBOLS,
  CudaDriver,
  CudaDriverError,
  type CudaSymbols,
} from "../runtime/server/cuda/mod.ts";
import { cudaVersionName } from "../runtime/server/cuda/_ptx_version.ts";
import { simDriver, simErrorCodes, withSimEnv } from "./fixtures/cuda_sim.ts";

/** What tools/fetch_libcuda.sh left: the package version and the library, or why not. */
const fetched = (() => {
  const status = new URL("../.tmp/libcuda/STATUS", import.meta.url);
  let text;
  try {
    text = Deno.readTextFileSync(status).trim();
  } catch {
    return "the package was not fetched (run sh tools/fetch_libcuda.sh)";
  }
  const ok = /^ok (\S+) (\S+)$/.exec(text);
  if (ok === null) return text.replace(/^unavailable: /, "");
  return { version: ok[1], library: new URL(`../${ok[2]}`, import.meta.url).pathname };
})();

// Opened here, outside the tests (a library opened inside one trips the resource sanitizer).
const opened = (() => {
  if (typeof fetched === "string") return { skip: fetched };
  try {
    const driver = CudaDriver.open({ library: fetched.library });
    return { driver, init: driver.symbols.cuInit(0) };
  } catch (error) {
    return { error };
  }
})();
const skip = "skip" in opened ? opened.skip : undefined;
const name = (what: string) =>
  skip === undefined
    ? `libcuda ${(fetched as { version: string }).version}: ${what}`
    : `libcuda: ${what} (skipped: ${skip})`;
const real = (): CudaDriver => {
  if ("error" in opened) throw opened.error;
  return opened.driver!;
};

/** The CUDA version of NVIDIA's driver branches (the first release of each). */
const BRANCH_CUDA: Readonly<Record<string, number>> = {
  "525": 12000,
  "530": 12010,
  "535": 12020,
  "545": 12030,
  "550": 12040,
  "555": 12050,
  "560": 12060,
  "565": 12070,
  "570": 12080,
  "575": 12090,
  "580": 13000,
};

/** The CUDA version that introduced each optional symbol of the backend. */
const OPTIONAL_SINCE: Readonly<Record<string, number>> = {
  cuMemAllocAsync: 11020,
  cuMemFreeAsync: 11020,
  cuEventElapsedTime_v2: 12080,
  cuLaunchHostFunc: 10000, // wakes the blocking host waits (queue/_wake.ts)
  // Launch graphs (cuda.h: the stream capture and graph API of CUDA 10.0 to 11.4).
  cuStreamEndCapture: 10000,
  cuGraphLaunch: 10000,
  cuGraphDestroy: 10000,
  cuGraphExecDestroy: 10000,
  cuStreamBeginCapture_v2: 10010,
  cuGraphExecKernelNodeSetParams: 10010,
  cuStreamGetCaptureInfo_v2: 11030,
  cuGraphInstantiateWithFlags: 11040,
};

Deno.test({
  name: name(
    "opens with the backend's symbol table; required symbols resolve, optional ones detected",
  ),
  ignore: skip !== undefined,
  fn() {
    const driver = real(); // Deno.dlopen throws for a required symbol the library lacks
    const symbols = driver.symbols as unknown as Record<string, unknown>;
    const optional = Object.entries(CUDA_SYMBOLS).filter(([, s]) => "optional" in s && s.optional);
    assert.deepEqual(optional.map(([n]) => n).sort(), Object.keys(OPTIONAL_SINCE).sort());
    for (const [symbol, definition] of Object.entries(CUDA_SYMBOLS)) {
      if ("optional" in definition) continue;
      assert.equal(typeof symbols[symbol], "function", `${symbol} resolves`);
    }
    for (const [symbol, since] of Object.entries(OPTIONAL_SINCE)) {
      const present = symbols[symbol] !== null;
      assert.equal(present, driver.version >= since, `${symbol} (CUDA ${since}+)`);
    }
  },
});

Deno.test({
  name: name("cuDriverGetVersion reports the CUDA version of the driver's branch"),
  ignore: skip !== undefined,
  fn() {
    const { version } = real();
    const branch = (fetched as { version: string }).version.split(".")[0];
    const expected = BRANCH_CUDA[branch];
    if (expected === undefined) assert.ok(version >= 12000, `branch ${branch}: ${version}`);
    else assert.equal(version, expected, `r${branch}`);
  },
});

Deno.test({
  name: name('createClient({ backend: "cuda" }) is BACKEND_UNAVAILABLE: no CUDA device was found'),
  ignore: skip !== undefined || ("init" in opened && opened.init === 0),
  async fn() {
    const driver = real();
    const library = (fetched as { library: string }).library;
    const cuda = cudaVersionName(driver.version);
    await assert.rejects(createClient({ backend: "cuda", library }), (error) => {
      assert.ok(error instanceof BackendUnavailableError);
      assert.equal(error.code, "BACKEND_UNAVAILABLE");
      assert.match(error.message, /no CUDA device was found/);
      assert.ok(error.message.includes(`"no CUDA-capable device is detected", ${cuda} driver`));
      assert.deepEqual(error.tried, [library]);
      assert.ok(error.cause instanceof CudaDriverError);
      assert.equal(error.cause.errorName, "CUDA_ERROR_NO_DEVICE");
      return true;
    });
    // Discovery says the same, and lists nothing from it when no backend is named.
    await assert.rejects(listDevices({ backend: "cuda", library }), BackendUnavailableError);
    assert.ok((await listDevices({ library })).every((device) => device.backend === "webgpu"));
  },
});

/** `cuGetErrorName` and `cuGetErrorString` of a code: the results and the texts. */
function describe(symbols: CudaSymbols, code: number): string {
  const out = new BigUint64Array(1);
  const text = (result: number) =>
    result === 0 ? Deno.UnsafePointerView.getCString(Deno.UnsafePointer.create(out[0])!) : "";
  const name = symbols.cuGetErrorName(code, out);
  const nameText = text(name);
  const string = symbols.cuGetErrorString(code, out);
  return `${name} ${nameText} | ${string} ${text(string)}`;
}

Deno.test({
  name: name("the simulator has the real driver's error names and texts"),
  ignore: skip !== undefined,
  fn() {
    const codes = [...simErrorCodes(), 35, 9999]; // 35: in no cuda.h of the driver API
    for (const code of codes) {
      assert.equal(describe(simDriver.symbols, code), describe(real().symbols, code), `${code}`);
    }
  },
});

Deno.test({
  name: name("the simulator answers as the real driver after cuInit found no device"),
  ignore: skip !== undefined || ("init" in opened && opened.init === 0),
  async fn() {
    const ptx = new TextEncoder().encode(".version 7.0\n.target sm_75\n.address_size 64\n\0");
    const o = new BigUint64Array(2), i = new Int32Array(2);
    const calls = (s: CudaSymbols): Record<string, number> => ({
      cuInitFlags: s.cuInit(1),
      cuInit: s.cuInit(0),
      cuDeviceGetCount: s.cuDeviceGetCount(i),
      cuDeviceGet: s.cuDeviceGet(i, 0),
      cuDeviceGetName: s.cuDeviceGetName(new Uint8Array(64), 64, 0),
      cuDeviceGetAttribute: s.cuDeviceGetAttribute(i, 75, 0),
      cuDevicePrimaryCtxRetain: s.cuDevicePrimaryCtxRetain(o, 0),
      cuCtxGetCurrent: s.cuCtxGetCurrent(o),
      cuCtxSetCurrent: s.cuCtxSetCurrent(null),
      cuMemAlloc_v2: s.cuMemAlloc_v2(o, 256n),
      cuMemAllocHost_v2: s.cuMemAllocHost_v2(o, 256n),
      cuMemFree_v2: s.cuMemFree_v2(0n),
      cuStreamCreate: s.cuStreamCreate(o, 1),
      cuEventCreate: s.cuEventCreate(o, 2),
      cuEventQuery: s.cuEventQuery(null),
      cuStreamQuery: s.cuStreamQuery(null),
      cuModuleLoadDataEx: s.cuModuleLoadDataEx(o, ptx, 0, null, null),
      cuDeviceCanAccessPeer: s.cuDeviceCanAccessPeer(i, 0, 1),
      cuCtxEnablePeerAccess: s.cuCtxEnablePeerAccess(null, 0),
      cuMemcpyPeerAsync: s.cuMemcpyPeerAsync(0n, null, 0n, null, 0n, null),
      cuDriverGetVersion: s.cuDriverGetVersion(i),
    });
    const expected = calls(real().symbols);
    assert.equal(expected.cuInit, 100);
    await withSimEnv({ CUDA_SIM_NO_DEVICE: "1" }, () => {
      assert.deepEqual(calls(simDriver.symbols), expected);
    });
  },
});
