/**
 * What to do about NVRTC's commonest complaint on sources written for nvcc: a header or a host
 * macro it does not have. nvcc compiles with the CUDA Toolkit's include folder and the host's C
 * library (`<math.h>` comes in through `cuda_runtime.h`); NVRTC only knows the device runtime it
 * builds in (`threadIdx`, the math functions, the intrinsics, the vector types), and the runtime
 * gives it no include path unless the kernel's `compileOptions` name one. NVRTC 12.x builds in
 * none of the toolkit's headers.
 *
 * @module
 */

/** Headers of the CUDA Toolkit that kernels include (the folders by their first part). */
const TOOLKIT =
  /^(?:cuda_fp16|cuda_bf16|cuda_fp8|cuda_fp6|cuda_fp4|cooperative_groups|mma|cuda_runtime|cuda_runtime_api|cuda|math_constants|device_launch_parameters|curand\w*|cuComplex|sm_\d+_intrinsics|crt\/\w+|cooperative_groups\/\w+|cub\/[\w/]+|thrust\/[\w/]+|cuda\/[\w/]+)(?:\.h|\.hpp|\.cuh)?$/;

/** Host macros that kernels use without including their header (nvcc brings them in). */
const HOST_MACROS: Record<string, string> = {
  INFINITY: "<math.h>: `#define INFINITY __int_as_float(0x7f800000)`",
  NAN: "<math.h>: `#define NAN __int_as_float(0x7fffffff)`",
  HUGE_VALF: "<math.h>: `#define HUGE_VALF __int_as_float(0x7f800000)`",
  M_PI: "<math.h>: `#define M_PI 3.14159265358979323846`",
  M_SQRT2: "<math.h>: `#define M_SQRT2 1.41421356237309504880`",
  M_E: "<math.h>: `#define M_E 2.7182818284590452354`",
  M_LN2: "<math.h>: `#define M_LN2 0.69314718055994530942`",
  FLT_MAX: "<float.h>: `#define FLT_MAX 3.402823466e+38f`",
  FLT_MIN: "<float.h>: `#define FLT_MIN 1.175494351e-38f`",
  FLT_EPSILON: "<float.h>: `#define FLT_EPSILON 1.192092896e-07f`",
  DBL_MAX: "<float.h>: `#define DBL_MAX 1.7976931348623158e+308`",
  INT_MAX: "<limits.h>: `#define INT_MAX 2147483647`",
  INT_MIN: "<limits.h>: `#define INT_MIN (-2147483647 - 1)`",
  UINT_MAX: "<limits.h>: `#define UINT_MAX 4294967295u`",
};

/** The host's <stdint.h> types (nvcc brings them in through cuda_runtime.h), as glibc declares them. */
const STDINT: Record<string, string> = {
  int8_t: "signed char",
  uint8_t: "unsigned char",
  int16_t: "short",
  uint16_t: "unsigned short",
  int32_t: "int",
  uint32_t: "unsigned int",
  int64_t: "long",
  uint64_t: "unsigned long",
  intptr_t: "long",
  uintptr_t: "unsigned long",
};

/** The host's <sys/types.h> shorthands (glibc; cuda-samples' kernels use `uint` with no include). */
const SYS_TYPES: Record<string, string> = {
  uint: "unsigned int",
  ushort: "unsigned short",
  ulong: "unsigned long",
};

/**
 * Host headers whose device functions NVRTC builds in (`assert`, `printf`, the math functions):
 * the include is only to be dropped; and those of macros only (the kernel defines what it uses).
 */
const BUILT_IN: Record<string, string> = {
  "assert.h": "NVRTC builds in assert()",
  cassert: "NVRTC builds in assert()",
  "stdio.h": "NVRTC builds in printf()",
  cstdio: "NVRTC builds in printf()",
  "math.h":
    "NVRTC builds in the math functions (not its macros: `#define M_PI 3.14159265358979323846`)",
  cmath:
    "NVRTC builds in the math functions (not its macros: `#define M_PI 3.14159265358979323846`)",
  "float.h": "define the macros the kernel uses (`#define FLT_MAX 3.402823466e+38f`)",
  cfloat: "define the macros the kernel uses (`#define FLT_MAX 3.402823466e+38f`)",
  "limits.h": "define the macros the kernel uses (`#define INT_MAX 2147483647`)",
  climits: "define the macros the kernel uses (`#define INT_MAX 2147483647`)",
};

/** The math functions of two or three floating arguments, which nvcc promotes when mixed. */
const MIXED_MATH =
  /^(?:pow|fmax|fmin|atan2|fmod|hypot|copysign|fdim|remainder|nextafter|fma|remquo)$/;

/** Types of the toolkit's headers, by the header that declares them. */
const HEADER_TYPES: Record<string, string> = {
  __half: "cuda_fp16.h",
  half: "cuda_fp16.h",
  __half2: "cuda_fp16.h",
  half2: "cuda_fp16.h",
  __nv_bfloat16: "cuda_bf16.h",
  __nv_bfloat162: "cuda_bf16.h",
  nv_bfloat16: "cuda_bf16.h",
  cooperative_groups: "cooperative_groups.h",
  cg: "cooperative_groups.h",
};

/**
 * A note for NVRTC's log `log` when it fails on a header or a host macro the source expects
 * (the first such failure), else `undefined`.
 */
export function nvrtcHint(log: string): string | undefined {
  if (/device-side kernel launch could not be processed/.test(log)) {
    return "note: a kernel launch inside a kernel (dynamic parallelism) needs relocatable device " +
      "code linked with the CUDA device runtime (cudadevrt), which the runtime does not do: " +
      "launch the child kernel from the host with another `execute` after this one";
  }
  const header = /(?:could not|cannot) open source file "([^"]+)"/.exec(log)?.[1];
  if (header !== undefined && header in BUILT_IN) {
    return `note: <${header}> is a header of the host's C library, which this NVRTC does not ` +
      `build in and the runtime gives no include path to: ${BUILT_IN[header]}, so remove the ` +
      `#include`;
  }
  if (header !== undefined) {
    const what = TOOLKIT.test(header)
      ? `<${header}> is a CUDA Toolkit header, which this NVRTC does not build in`
      : /^(?:stdint\.h|cstdint)$/.test(header)
      ? `<${header}> is a header of the host's C library, which this NVRTC does not build in`
      : `<${header}> is a host or project header`;
    return `note: ${what}, and the runtime compiles CUDA C with no include path: give the ` +
      `folder holding it in the kernel's \`compileOptions\` (\`--include-path=/usr/local/cuda/` +
      `include\` where the CUDA Toolkit is installed), declare what the kernel needs from it in ` +
      `its source, or compile the kernel with nvcc and pass its PTX as \`ptx\``;
  }
  // `pow(x, 2.0)` of a float x: nvcc's <crt/math_functions.h> promotes it to pow(double, double)
  // through templates of the host's type traits, which NVRTC has not
  const mixed =
    /more than one instance of overloaded function "(\w+)" matches the argument list:[\s\S]*?argument types are: \(([^)]*)\)/
      .exec(log);
  if (mixed !== null && MIXED_MATH.test(mixed[1]) && /\bdouble\b/.test(mixed[2])) {
    return `note: NVRTC declares ${mixed[1]} for float and for double only, so a call of ` +
      `(${mixed[2]}) matches both; nvcc's CUDA headers add templates that run such a call in ` +
      `double, which NVRTC does not build in: give the arguments one type (\`${mixed[1]}f\` and ` +
      `float literals, or a cast to double as nvcc would compute it)`;
  }
  const name = /identifier "(\w+)" is undefined/.exec(log)?.[1] ??
    /namespace "(\w+)"/.exec(log)?.[1];
  if (name === undefined) return undefined;
  if (name in HOST_MACROS) {
    return `note: ${name} is a macro of the host's ${HOST_MACROS[name].split(":")[0]}, which ` +
      `nvcc brings in and NVRTC does not have: define it in the kernel's source (${
        HOST_MACROS[name].slice(HOST_MACROS[name].indexOf(":") + 2)
      })`;
  }
  if (name in STDINT) {
    return `note: ${name} is a type of the host's <stdint.h>, which nvcc brings in (through ` +
      `cuda_runtime.h) and NVRTC does not have: declare it in the kernel's source ` +
      `(\`typedef ${STDINT[name]} ${name};\`)`;
  }
  if (name in SYS_TYPES) {
    return `note: ${name} is a type of the host's <sys/types.h>, which nvcc brings in (through ` +
      `cuda_runtime.h) and NVRTC does not have: declare it in the kernel's source ` +
      `(\`typedef ${SYS_TYPES[name]} ${name};\`)`;
  }
  if (name in HEADER_TYPES) {
    return `note: ${name} is declared by the CUDA Toolkit's <${HEADER_TYPES[name]}>, which ` +
      `this NVRTC does not build in (and the runtime compiles CUDA C with no include path)`;
  }
  return undefined;
}
