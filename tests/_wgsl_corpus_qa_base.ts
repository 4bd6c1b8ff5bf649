/**
 * The shape of the QA wave's WGSL corpus cases (`_wgsl_corpus_qa.ts`) and their data helpers.
 */
import type { PlainBinding } from "./_plain_webgpu.ts";

/** One shader: its plain WebGPU bindings and dispatch, and the client's launch. */
export interface CorpusCase {
  readonly name: string;
  readonly source: string;
  readonly entryPoint?: string;
  /** Every binding, uniforms included; the client gets the rest in (group, binding) order. */
  readonly plain: readonly PlainBinding[];
  readonly workgroups: [number, number, number];
  /** The client's `threads`; `undefined`: `count` of `workgroups`. */
  readonly threads?: number | [number, number];
  readonly params?: Record<string, unknown>;
  /** Pipeline constants, given to the client as `overrides` under the same keys. */
  readonly constants?: Record<string, number>;
  /** The client's `overrides` where they differ from `constants` (a bool override takes a bool). */
  readonly overrides?: Record<string, number | boolean>;
  readonly samplers?: Record<string, GPUSamplerDescriptor>;
  readonly features?: readonly GPUFeatureName[];
  /** Limits above WebGPU's defaults plain WebGPU's device needs (the client has the adapter's). */
  readonly limits?: Record<string, number>;
  /** Bindings whose bytes the WGSL leaves to the order invocations run in; see {@link OrderFree}. */
  readonly orderFree?: OrderFree;
}

/**
 * Where the WGSL does not determine some bindings' bytes on a parallel GPU (an `atomicAdd`'s
 * return value used as an index: which invocation gets which slot is the order they ran in),
 * those bindings are compared in a canonical form that keeps exactly what the WGSL determines
 * (each slot's segment sorted, each index written once...); every other binding bit for bit.
 */
export interface OrderFree {
  /** Indices into the case's `plain` of the bindings compared only through `canonical`. */
  readonly bindings: readonly number[];
  /** Why the bytes are the GPU's choice and what is checked instead. */
  readonly why: string;
  /**
   * The canonical form of one run's bytes (every binding, in `plain`'s order); equal for plain
   * WebGPU and the client. It throws where the bytes break what the WGSL determines.
   */
  canonical(bytes: readonly Uint8Array[]): unknown;
}

/** A deterministic f32 ramp: `((i * 37) % 101) * scale + offset`. */
export const f = (n: number, scale = 1, offset = 0): Float32Array<ArrayBuffer> =>
  Float32Array.from({ length: n }, (_, i) => ((i * 37) % 101) * scale + offset);
/** A deterministic u32 pattern below `m`. */
export const u = (n: number, m: number): Uint32Array<ArrayBuffer> =>
  Uint32Array.from({ length: n }, (_, i) => (i * 2654435761) % m);
/** A buffer binding. */
export const B = (
  group: number,
  binding: number,
  buffer: ArrayBufferView<ArrayBuffer>,
  uniform = false,
): PlainBinding => ({ group, binding, buffer, uniform });
