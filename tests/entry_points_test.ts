import { deepEqual } from "node:assert/strict";
import * as user from "../mod.ts";
import * as backend from "../backend.ts";
import * as webgpu from "../runtime/server/webgpu/mod.ts";
import * as cuda from "../runtime/server/cuda/mod.ts";
import * as trace from "../runtime/trace/mod.ts";
import * as tune from "../runtime/tune/mod.ts";
import * as sync from "../sync/mod.ts";

// Each entry point's runtime exports, pinned: adding or leaking a name is a visible change here.
// (Type-only exports are listed explicitly in each entry file.)

Deno.test("the user entry point exports only what kernel users need", () => {
  deepEqual(Object.keys(user).sort(), USER);
});

Deno.test("the backend entry point exports the contract, core, memory and streams", () => {
  deepEqual(Object.keys(backend).sort(), BACKEND);
});

Deno.test("the webgpu entry point exports the WebGPU backend", () => {
  deepEqual(Object.keys(webgpu).sort(), WEBGPU);
});

Deno.test("the cuda entry point exports the CUDA backend and opens no library", () => {
  deepEqual(Object.keys(cuda).sort(), CUDA);
});

Deno.test("the sync entry point exports the timeline signals", () => {
  deepEqual(Object.keys(sync).sort(), SYNC);
});

const SYNC = ["CpuTimelineSignal", "TimeoutError", "WebGpuTimelineSignal"];
const CUDA = [
  "CUDA_KERNELS",
  "CUDA_LIBRARY_ENV",
  "CUDA_SIGNAL_RING_SIZE",
  "CUDA_SYMBOLS",
  "CudaDevice",
  "CudaDriver",
  "CudaDriverError",
  "CudaServer",
  "CudaTimelineSignal",
  "ModuleCache",
  "cudaBackend",
  "libraryCandidates",
  "listCudaDevices",
  "lowerPtxIsa",
];
Deno.test("the trace entry point exports the two trace writers", () => {
  deepEqual(Object.keys(trace).sort(), ["renderTraceSvg", "toChromeTrace"]);
});

Deno.test("the tune entry point exports the autotuner and its tunable sets", () => {
  deepEqual(Object.keys(tune).sort(), TUNE);
});

const USER = [
  "AbortedError",
  "BackendUnavailableError",
  "BufferTooBigError",
  "CompilationError",
  "ComputeClient",
  "ComputeError",
  "CpuTimelineSignal",
  "CubeCount",
  "DestroyedError",
  "DeviceLostError",
  "DriverError",
  "InvalidHandleError",
  "KernelArgumentError",
  "NoAdapterError",
  "OutOfMemoryError",
  "StreamUnhealthyError",
  "Texture",
  "TimeoutError",
  "UnsupportedError",
  "argmax",
  "argmin",
  "argsort",
  "bincount",
  "createClient",
  "createClients",
  "cumsum",
  "dot",
  "elementwise",
  "formatMemoryUsage",
  "gather",
  "histogram",
  "listDevices",
  "matmul",
  "random",
  "recordKernels",
  "reduce",
  "reduction",
  "scan",
  "scatterAdd",
  "segmentReduce",
  "sort",
  "topk",
  "transpose",
];
const BACKEND = [
  "AbortedError",
  "AllocationDescriptor",
  "BackendUnavailableError",
  "BufferTooBigError",
  "CompilationError",
  "ComputeError",
  "CubeCount",
  "DEFAULT_STREAM",
  "DTYPE_SIZE",
  "DestroyedError",
  "DeviceLostError",
  "DriverError",
  "EMPTY_MEMORY_USAGE",
  "Handle",
  "HandleRef",
  "InvalidHandleError",
  "KernelArgumentError",
  "KernelArguments",
  "LOG_CATEGORY",
  "MemoryManagement",
  "MultiStream",
  "NoAdapterError",
  "NotReadyError",
  "OrderInProgressError",
  "OrderedStream",
  "OutOfMemoryError",
  "ProfileNotRegisteredError",
  "STORAGE_TYPE_SIZE",
  "ScalarArgument",
  "SchedulerMultiStream",
  "ServerState",
  "SliceHandle",
  "SlicePin",
  "SliceRecord",
  "SliceRef",
  "StreamErrors",
  "StreamPool",
  "StreamUnhealthyError",
  "TextureViewRef",
  "TimeoutError",
  "TraceActiveError",
  "UnknownError",
  "UnsupportedError",
  "arrayTypeOf",
  "assertDType",
  "assertStreamId",
  "asyncStreamScope",
  "backendNames",
  "checkEmpty",
  "checkHandleKind",
  "combineMemoryUsage",
  "contiguousExtent",
  "contiguousLayout",
  "contiguousStrides",
  "copyDescriptor",
  "copyTarget",
  "copyThroughHost",
  "createAllocations",
  "createWithData",
  "currentStreamId",
  "dtypeOf",
  "formatBytes",
  "formatMemoryUsage",
  "isContiguous",
  "leaseResource",
  "loadBackend",
  "readPermittedEnv",
  "registerBackend",
  "resolveConfig",
  "resolveStreamId",
  "runtimeLogger",
  "warnVisibly",
  "withStream",
  "writeTargets",
];
const WEBGPU = [
  "INFO_SCALAR_ORDER",
  "WebGpuDevice",
  "WebGpuProfiler",
  "WebGpuServer",
  "WebGpuStorage",
  "listWebGpuAdapters",
  "packInfo",
  "requestListedAdapter",
  "webgpuBackend",
];
const TUNE = [
  "MATMUL_VARIANTS",
  "REDUCE_VARIANTS",
  "TunableSet",
  "TuneCache",
  "TuneFailedError",
  "TuneMismatchError",
  "Tuner",
  "anchor",
  "fastestOf",
  "keyString",
  "matmulKernel",
  "matmulSet",
  "reduceSet",
  "sampleGroup",
];
