/**
 * The CUDA C++ prelude of the helpers' translated WGSL expressions (`_wgsl_expression.ts`):
 * WGSL's integer division, remainder and shifts, `round`, the clamping conversions and the
 * scalar built-ins CUDA lacks.
 *
 * @module
 */

/** CUDA C++ of WGSL's integer division, remainder and shifts, `round`, and missing built-ins. */
export const WGSL_OPERATORS = `
__device__ __forceinline__ int wgsl_div_(int a, int b) {
  return b == 0 || (a == (int)0x80000000 && b == -1) ? a : a / b; }
__device__ __forceinline__ unsigned int wgsl_div_(unsigned int a, unsigned int b) {
  return b == 0u ? a : a / b; }
__device__ __forceinline__ float wgsl_div_(float a, float b) { return a / b; }
__device__ __forceinline__ int wgsl_rem_(int a, int b) {
  return b == 0 || (a == (int)0x80000000 && b == -1) ? 0 : a % b; }
__device__ __forceinline__ unsigned int wgsl_rem_(unsigned int a, unsigned int b) {
  return b == 0u ? 0u : a % b; }
__device__ __forceinline__ float wgsl_rem_(float a, float b) {
  return __fsub_rn(a, __fmul_rn(b, truncf(__fdiv_rn(a, b)))); }
template <class A, class B> __device__ __forceinline__ auto wgsl_div(A a, B b) -> decltype(a / b) {
  return wgsl_div_((decltype(a / b))a, (decltype(a / b))b); }
template <class A, class B> __device__ __forceinline__ auto wgsl_rem(A a, B b) -> decltype(a / b) {
  return wgsl_rem_((decltype(a / b))a, (decltype(a / b))b); }
template <class A, class B> __device__ __forceinline__ auto wgsl_shl(A a, B b) -> decltype(a << 1) {
  return a << ((unsigned int)b & 31u); }
template <class A, class B> __device__ __forceinline__ auto wgsl_shr(A a, B b) -> decltype(a >> 1) {
  return a >> ((unsigned int)b & 31u); }
__device__ __forceinline__ float wgsl_round(float x) { return rintf(x); }
__device__ __forceinline__ int wgsl_i32(float x) {
  return x != x ? 0 : (int)fminf(fmaxf(x, -2147483648.0f), 2147483520.0f); }
__device__ __forceinline__ int wgsl_i32(int x) { return x; }
__device__ __forceinline__ int wgsl_i32(unsigned int x) { return (int)x; }
__device__ __forceinline__ int wgsl_i32(bool x) { return x ? 1 : 0; }
__device__ __forceinline__ unsigned int wgsl_u32(float x) {
  return x != x ? 0u : (unsigned int)fminf(fmaxf(x, 0.0f), 4294967040.0f); }
__device__ __forceinline__ unsigned int wgsl_u32(int x) { return (unsigned int)x; }
__device__ __forceinline__ unsigned int wgsl_u32(unsigned int x) { return x; }
__device__ __forceinline__ unsigned int wgsl_u32(bool x) { return x ? 1u : 0u; }
__device__ __forceinline__ float fract(float x) { return x - floorf(x); }
__device__ __forceinline__ float sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }
__device__ __forceinline__ int sign(int x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
__device__ __forceinline__ unsigned int abs(unsigned int x) { return x; }
__device__ __forceinline__ float saturate(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }
__device__ __forceinline__ float step(float edge, float x) { return edge <= x ? 1.0f : 0.0f; }
__device__ __forceinline__ float smoothstep(float lo, float hi, float x) {
  float t = fminf(fmaxf((x - lo) / (hi - lo), 0.0f), 1.0f); return t * t * (3.0f - 2.0f * t); }
__device__ __forceinline__ float mix(float a, float b, float t) { return a * (1.0f - t) + b * t; }
__device__ __forceinline__ float inverseSqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ float degrees(float x) { return x * 57.295779513082322865f; }
__device__ __forceinline__ float radians(float x) { return x * 0.017453292519943295f; }
__device__ __forceinline__ unsigned int countOneBits(unsigned int x) { return __popc(x); }
__device__ __forceinline__ int countOneBits(int x) { return __popc(x); }
__device__ __forceinline__ unsigned int reverseBits(unsigned int x) { return __brev(x); }
__device__ __forceinline__ int reverseBits(int x) { return (int)__brev((unsigned int)x); }
__device__ __forceinline__ unsigned int countLeadingZeros(unsigned int x) { return __clz(x); }
__device__ __forceinline__ int countLeadingZeros(int x) { return __clz(x); }
__device__ __forceinline__ unsigned int countTrailingZeros(unsigned int x) { return __clz(__brev(x)); }
__device__ __forceinline__ int countTrailingZeros(int x) { return __clz(__brev((unsigned int)x)); }
__device__ __forceinline__ unsigned int firstLeadingBit(unsigned int x) {
  return x == 0u ? 0xffffffffu : 31u - __clz(x); }
__device__ __forceinline__ int firstLeadingBit(int x) {
  int s = x < 0 ? ~x : x; return s == 0 ? -1 : 31 - __clz(s); }
__device__ __forceinline__ unsigned int firstTrailingBit(unsigned int x) {
  return x == 0u ? 0xffffffffu : __clz(__brev(x)); }
__device__ __forceinline__ int firstTrailingBit(int x) {
  return x == 0 ? -1 : __clz(__brev((unsigned int)x)); }
__device__ __forceinline__ unsigned int extractBits(unsigned int e, unsigned int offset, unsigned int count) {
  unsigned int o = min(offset, 32u), c = min(count, 32u - o);
  return c == 0u ? 0u : c == 32u ? e : (e >> o) & ((1u << c) - 1u); }
__device__ __forceinline__ int extractBits(int e, unsigned int offset, unsigned int count) {
  unsigned int o = min(offset, 32u), c = min(count, 32u - o);
  return c == 0u ? 0 : c == 32u ? e : (int)((unsigned int)e << (32u - c - o)) >> (32u - c); }
__device__ __forceinline__ unsigned int insertBits(unsigned int e, unsigned int newbits,
    unsigned int offset, unsigned int count) {
  unsigned int o = min(offset, 32u), c = min(count, 32u - o);
  unsigned int mask = c == 0u ? 0u : (c == 32u ? 0xffffffffu : (1u << c) - 1u) << o;
  return c == 0u ? e : (e & ~mask) | ((newbits << o) & mask); }
__device__ __forceinline__ int insertBits(int e, int newbits, unsigned int offset, unsigned int count) {
  return (int)insertBits((unsigned int)e, (unsigned int)newbits, offset, count); }
__device__ __forceinline__ float length(float x) { return fabsf(x); }
__device__ __forceinline__ float distance(float a, float b) { return fabsf(a - b); }
__device__ __forceinline__ bool all(bool x) { return x; }
__device__ __forceinline__ bool any(bool x) { return x; }
`;
