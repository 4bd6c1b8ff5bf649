/**
 * The CUDA C of the PTX fuzzer's trees (tests/cuda_ptx_fuzz_test.ts): one statement a node,
 * temporaries `v0`, `v1`...; a call's `__noinline__` function collected for the module.
 *
 * @module
 */
import { C_TYPE, type Ty } from "./_cuda_fuzz_values.ts";
import { LEAF_C, LOADS, type Node, THREADS, VARS } from "./_cuda_fuzz_node.ts";

/** Writes the statements of `n` into `out` (temporaries `v0`, `v1`, ...); returns its name. */
export function emit(n: Node, out: string[], ids: { n: number; funcs?: string[] }): string {
  const tmp = (t: Ty, expr: string) => {
    const name = `v${ids.n++}`;
    out.push(`${C_TYPE[t]} ${name} = ${expr};`);
    return name;
  };
  switch (n.k) {
    case "var":
      return tmp(n.t, LEAF_C[n.t](n.i));
    case "const":
      return tmp(n.t, n.c);
    case "op":
      return tmp(n.t, n.op.c(...n.a.map((a) => emit(a, out, ids))));
    case "call": { // a __noinline__ function of the operation: the simulator inlines its call
      const args = n.a.map((a) => emit(a, out, ids)), f = `f${ids.n++}`;
      const params = n.op.args.map((t, i) => `${C_TYPE[t]} p${i}`).join(", ");
      (ids.funcs ??= []).push(
        `__device__ __noinline__ ${C_TYPE[n.t]} ${f}(${params}) { return ${
          n.op.c(...n.op.args.map((_, i) => `p${i}`))
        }; }`,
      );
      return tmp(n.t, `${f}(${args.join(", ")})`);
    }
    case "if": {
      const c = emit(n.c, out, ids), name = `v${ids.n++}`;
      out.push(`${C_TYPE[n.t]} ${name};`, `if (${c}) {`);
      out.push(`${name} = ${emit(n.a, out, ids)};`, "} else {");
      out.push(`${name} = ${emit(n.b, out, ids)};`, "}");
      return name;
    }
    case "loop": {
      const init = emit(n.init, out, ids), step = emit(n.step, out, ids), cnt = emit(n.n, out, ids);
      const name = tmp(n.t, init), k = `k${ids.n++}`;
      out.push(
        `for (unsigned ${k} = 0; ${k} < (${cnt} & 7u); ${k}++) ${name} = ${n.op.c(name, step)};`,
      );
      return name;
    }
    case "shfl": {
      const x = emit(n.x, out, ids), lane = emit(n.lane, out, ids);
      const arg = n.mode === "idx" || n.mode === "xor" ? `${lane} & 31u` : `${lane} & 15u`;
      const fn = n.mode === "idx" ? "__shfl_sync" : `__shfl_${n.mode}_sync`;
      return tmp(n.t, `${fn}(0xffffffffu, ${x}, ${arg}${n.w === 32 ? "" : `, ${n.w}`})`);
    }
    case "dwarp": {
      const x = emit(n.x, out, ids), y = emit(n.y, out, ids), name = `v${ids.n++}`;
      let m1 = 0;
      for (let l = 0; l < 32; l++) if ((l >> n.bit) & 1) m1 |= 1 << l;
      const call = (mask: number, v: string) =>
        n.fn === "shfl"
          ? `__shfl_xor_sync(${mask >>> 0}u, ${v}, ${n.off})`
          : n.fn === "ballot"
          ? `__ballot_sync(${mask >>> 0}u, ${v})`
          : n.fn === "add"
          ? `__reduce_add_sync(${mask >>> 0}u, ${v})`
          : `__match_any_sync(${mask >>> 0}u, ${v})`;
      out.push(
        `${C_TYPE[n.t]} ${name};`,
        `if ((t >> ${n.bit}) & 1u) {`,
        `${name} = ${call(m1, x)};`,
      );
      out.push("} else {", `${name} = ${call(~m1, y)};`, "}");
      return name;
    }
    case "warp": {
      const x = emit(n.x, out, ids);
      if (n.fn === "match") return tmp(n.t, `__match_any_sync(0xffffffffu, ${x})`);
      if (n.fn === "any" || n.fn === "all") {
        return tmp(n.t, `__${n.fn}_sync(0xffffffffu, ${x}) != 0`);
      }
      return tmp(n.t, `__reduce_${n.fn}_sync(0xffffffffu, ${x})`);
    }
    case "load": {
      const idx = emit(n.idx, out, ids);
      const [ty, per] = LOADS[n.w];
      const at = `((const ${ty}*)U)[t * ${VARS * per} + (${idx} & ${VARS * per - 1}u)]`;
      return tmp(n.t, `(${C_TYPE[n.t]})${n.hint ? `${n.hint}(&${at})` : at}`);
    }
    case "xchg": {
      const x = emit(n.x, out, ids), off = emit(n.off, out, ids);
      out.push(`sh_${n.t}[t] = ${x};`, "__syncthreads();");
      const name = tmp(n.t, `sh_${n.t}[(t + ${off}) & ${THREADS - 1}u]`);
      out.push("__syncthreads();");
      return name;
    }
    case "arr": {
      const items = n.items.map((i) => emit(i, out, ids)),
        idx = emit(n.idx, out, ids),
        a = `a${ids.n++}`;
      out.push(`${C_TYPE[n.t]} ${a}[4] = {${items.join(", ")}};`);
      return tmp(n.t, `${a}[${idx} & 3u]`);
    }
    case "ballot":
      return tmp(n.t, `__ballot_sync(0xffffffffu, ${emit(n.p, out, ids)})`);
    case "atom": {
      const x = emit(n.x, out, ids),
        slot = emit(n.slot, out, ids),
        a = `${n.global ? "ga" : "sa"}_${n.t}`;
      const init = n.t === "u64"
        ? `${n.init}ull`
        : n.t === "i64"
        ? `(long long)${BigInt.asUintN(64, n.init as bigint)}ull`
        : n.t === "u32"
        ? `${n.init}u`
        : `(int)${(n.init as number) >>> 0}u`;
      out.push(`if (t < 8) ${a}[t] = ${init};`, "__syncthreads();");
      out.push(
        `atomic${n.fn[0].toUpperCase()}${n.fn.slice(1)}(&${a}[${slot} & 7u], ${x});`,
        "__syncthreads();",
      );
      const name = tmp(n.t, `${a}[t & 7u]`);
      out.push("__syncthreads();");
      return name;
    }
    case "pun": {
      const x = emit(n.x, out, ids), off = emit(n.off, out, ids);
      const [from, read, mask] = n.t === "u32"
        ? ["u64", "unsigned", 2 * THREADS - 1]
        : ["u32", "unsigned long long", THREADS / 2 - 1];
      out.push(`sh_${from}[t] = ${x};`, "__syncthreads();");
      const scale = n.t === "u32" ? "2u * t" : "t";
      const name = tmp(n.t, `((${read}*)sh_${from})[(${scale} + ${off}) & ${mask}u]`);
      out.push("__syncthreads();");
      return name;
    }
    case "vload": {
      const idx = emit(n.idx, out, ids), q = `q${ids.n++}`;
      if (n.t === "u32" && n.w === 4) {
        out.push(`uint4 ${q} = ((const uint4*)U)[t];`);
        return tmp(n.t, `${q}.x ^ (${q}.y << 1) ^ (${q}.z << 2) ^ (${q}.w << 3) ^ ${idx}`);
      }
      const [vt, arr, comb] = n.t === "u32"
        ? ["uint2", "U", "-"]
        : n.t === "u64"
        ? ["ulonglong2", "L", "^"]
        : ["double2", "Db", "+"];
      out.push(`${vt} ${q} = ((const ${vt}*)${arr})[t * 2 + (${idx} & 1u)];`);
      return tmp(n.t, `${q}.x ${comb} ${q}.y`);
    }
  }
}
