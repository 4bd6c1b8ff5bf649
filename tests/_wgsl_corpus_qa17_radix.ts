/**
 * QA wave 17, written after kishimisu/WebGPU-Radix-Sort's kernels (`src/shaders/`, stored version
 * 4c7d5cb8cf6bc584b18ee3ee38422b74e52fb6b3; the constructs are theirs, the code is not copied):
 * overrides without defaults sizing the workgroup and workgroup arrays (`array<u32, ITEMS * 2>`,
 * `2 * (THREADS + 1)`), modules of several entry points of which one leaves another's overrides
 * unset (check_sort's `reset`), a bare `u32` storage flag, a `var` in a block shadowing a `let`
 * of the function, `select` over an index past the end (robust access picks a value, both
 * branches are evaluated); the bank-conflict-free prefix sum's shift of a u32 by a const 32 is
 * refused. See `_wgsl_corpus_qa17.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";

/** After prefix_sum.js: a work-efficient scan of 2 items a thread, then the block sums added. */
const SCAN = `
@group(0) @binding(0) var<storage, read_write> items: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;

override WG_X: u32;
override WG_Y: u32;
override THREADS: u32;
override ITEMS: u32;
override COUNT: u32;

var<workgroup> scratch: array<u32, ITEMS * 2>;

@compute @workgroup_size(WG_X, WG_Y, 1)
fn scan_block(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * groups.x;
    let g = (block * THREADS + t) * 2;
    let ai = t * 2;
    scratch[ai] = select(items[g], 0, g >= COUNT);
    scratch[ai + 1] = select(items[g + 1], 0, g + 1 >= COUNT);
    var step: u32 = 1;
    for (var d: u32 = ITEMS >> 1; d > 0; d >>= 1) {
        workgroupBarrier();
        if (t < d) {
            var ai: u32 = step * (2 * t + 1) - 1;
            scratch[ai + step] += scratch[ai];
        }
        step *= 2;
    }
    if (t == 0) {
        sums[block] = scratch[ITEMS - 1];
        scratch[ITEMS - 1] = 0;
    }
    for (var d: u32 = 1; d < ITEMS; d *= 2) {
        step >>= 1;
        workgroupBarrier();
        if (t < d) {
            let lo = step * (2 * t + 1) - 1;
            let keep = scratch[lo];
            scratch[lo] = scratch[lo + step];
            scratch[lo + step] += keep;
        }
    }
    workgroupBarrier();
    if (g < COUNT) { items[g] = scratch[ai]; }
    if (g + 1 < COUNT) { items[g + 1] = scratch[ai + 1]; }
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn add_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * groups.x;
    let g = (block * THREADS + t) * 2;
    if (g >= COUNT) {
        return;
    }
    items[g] += sums[block];
    if (g + 1 >= COUNT) {
        return;
    }
    items[g + 1] += sums[block];
}`;

/** After radix_sort.js: per-digit ranks within the workgroup by a double-buffered scan. */
const RANK = `
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> ranks: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;

override GROUPS: u32;
override THREADS: u32;
override WG_X: u32;
override WG_Y: u32;
override BIT: u32;
override COUNT: u32;

var<workgroup> buf: array<u32, 2 * (THREADS + 1)>;

@compute @workgroup_size(WG_X, WG_Y, 1)
fn rank(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * groups.x;
    let g = block * THREADS + t;
    let digit: u32 = (select(keys[g], 0, g >= COUNT) >> BIT) & 0x3;
    var mine = array<u32, 4>(0, 0, 0, 0);
    var last: u32 = 0xffffffff;
    if (block < GROUPS) {
        last = min(THREADS, COUNT - block * THREADS) - 1;
    }
    let half = THREADS + 1;
    var from_: u32 = t;
    var to: u32 = t + half;
    for (var b: u32 = 0; b < 4; b++) {
        let hit = select(0u, 1u, digit == b);
        buf[from_ + 1] = hit;
        workgroupBarrier();
        var acc: u32 = 0;
        for (var o: u32 = 1; o < THREADS; o *= 2) {
            acc = select(buf[from_], buf[from_] + buf[from_ - o], t >= o);
            buf[to] = acc;
            let swap = from_;
            from_ = to;
            to = swap;
            workgroupBarrier();
        }
        mine[b] = acc;
        if (t == last) {
            counts[b * GROUPS + block] = acc + hit;
        }
        let swap = from_;
        from_ = to;
        to = swap;
    }
    if (g < COUNT) {
        ranks[g] = mine[digit];
    }
}`;

/** After radix_sort_reorder.js: every key and value moved to its place. */
const REORDER_SRC = `
@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(2) var<storage, read> ranks: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> values_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> values_out: array<u32>;

override GROUPS: u32;
override THREADS: u32;
override WG_X: u32;
override WG_Y: u32;
override BIT: u32;
override COUNT: u32;

@compute @workgroup_size(WG_X, WG_Y, 1)
fn reorder(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * groups.x;
    let g = block * THREADS + t;
    if (g >= COUNT) {
        return;
    }
    let k = keys_in[g];
    let at = offsets[((k >> BIT) & 0x3) * GROUPS + block] + ranks[g];
    keys_out[at] = k;
    values_out[at] = values_in[g];
}`;

/**
 * After check_sort.js as checkSortSource renders it (first pass, last pass 'full'): inversions
 * counted by a workgroup reduction; the last pass sets a bare u32 flag and writes the dispatch
 * size; `reset` (which CheckSortKernel creates without THREADS and START) restores it.
 */
const check = (firstPass: boolean) => `
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<storage, read> original: array<u32>;
@group(0) @binding(3) var<storage, read_write> is_sorted: u32;

override WG_X: u32;
override WG_Y: u32;
override THREADS: u32;
override COUNT: u32;
override START: u32;

var<workgroup> partial: array<u32, THREADS>;

@compute @workgroup_size(WG_X, WG_Y, 1)
fn reset(@builtin(local_invocation_index) t: u32) {
    if (t >= COUNT) {
        return;
    }
    if (t == 0) {
        is_sorted = 0u;
    }
    output[t * 3] = original[t * 3];
}

@compute @workgroup_size(WG_X, WG_Y, 1)
fn check_sort(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) t: u32,
) {
    let block = wid.x + wid.y * groups.x;
    let g = block * THREADS + START + t;
    ${
  firstPass
    ? `let here = select(0u, input[g], g < COUNT);
    let next = select(0u, input[g + 1], g < COUNT - 1);
    partial[t] = select(0u, 1u, g < COUNT - 1 && here > next);`
    : "partial[t] = select(0u, input[g], g < COUNT);"
}
    for (var d = 1u; d < THREADS; d *= 2u) {
        workgroupBarrier();
        if (t % (2u * d) == 0u) {
            partial[t] += partial[t + d];
        }
    }
    workgroupBarrier();
    ${
  firstPass ? "if (t == 0) { output[block] = partial[0]; }" : `if (t * 3 >= arrayLength(&output)) {
        return;
    }
    if (t == 0 && partial[0] == 0) {
        is_sorted = 1u;
    }
    output[t * 3] = select(0, original[t * 3], partial[0] != 0);`
}
}`;

/** The sort's shape: 100 keys, workgroups of 8 x 4 (32 threads), 4 of them; bits 2-3. */
const N = 100, THREADS = 32, GROUPS = 4, BIT = 2;
const SORT = { WG_X: 8, WG_Y: 4, GROUPS, THREADS, COUNT: N, BIT };
const KEYS = u(N, 1 << 12);

/**
 * What the rank kernel and the scan make of KEYS (each key's rank among its workgroup's keys of
 * its digit; the exclusive scan of the per-digit counts, digit-major), so that the reorder gets
 * a consistent input and writes every position once, as in the library's pipeline.
 */
function reorderInputs(): { ranks: Uint32Array<ArrayBuffer>; offsets: Uint32Array<ArrayBuffer> } {
  const ranks = new Uint32Array(N), counts = new Uint32Array(4 * GROUPS);
  for (let i = 0; i < N; i++) {
    const digit = (KEYS[i] >> BIT) & 3, group = Math.floor(i / THREADS);
    ranks[i] = counts[digit * GROUPS + group]++;
  }
  const offsets = new Uint32Array(4 * GROUPS);
  for (let k = 1; k < offsets.length; k++) offsets[k] = offsets[k - 1] + counts[k - 1];
  return { ranks, offsets };
}
const REORDER = reorderInputs();

/** 100 keys sorted but for two swaps (the first pass counts each inversion). */
const NEARLY_SORTED = Uint32Array.from({ length: N }, (_, i) => i * 3);
[NEARLY_SORTED[10], NEARLY_SORTED[11]] = [NEARLY_SORTED[11], NEARLY_SORTED[10]];
[NEARLY_SORTED[70], NEARLY_SORTED[90]] = [NEARLY_SORTED[90], NEARLY_SORTED[70]];

/** The scan's shape: 150 items, 32 threads of 2 items each (3 workgroups). */
const SCAN_SHAPE = { WG_X: 8, WG_Y: 4, THREADS: 32, ITEMS: 64, COUNT: 150 };

/** The check's last pass: one workgroup of 32 over the first pass's 4 counts. */
const LAST = { COUNT: GROUPS, WG_X: 32, WG_Y: 1, THREADS: 32, START: 0 };

/** kishimisu's radix sort kernels. */
export const RADIX: readonly CorpusCase[] = [
  {
    name: "kishimisu-style scan_block (an override-sized workgroup array, `var ai` shadowing)",
    source: SCAN,
    entryPoint: "scan_block",
    plain: [B(0, 0, u(150, 1000)), B(0, 1, new Uint32Array(3))],
    workgroups: [3, 1, 1],
    constants: SCAN_SHAPE,
  },
  {
    name: "kishimisu-style add_sums (the entry point without the workgroup array, ITEMS unset)",
    source: SCAN,
    entryPoint: "add_sums",
    plain: [B(0, 0, u(150, 1000)), B(0, 1, Uint32Array.of(5, 700, 90000))],
    workgroups: [3, 1, 1],
    constants: { WG_X: 8, WG_Y: 4, THREADS: 32, COUNT: 150 },
  },
  {
    name: "kishimisu-style rank (`array<u32, 2 * (THREADS + 1)>`, six overrides)",
    source: RANK,
    plain: [B(0, 0, KEYS), B(0, 1, new Uint32Array(N)), B(0, 2, new Uint32Array(4 * GROUPS))],
    workgroups: [GROUPS, 1, 1],
    constants: SORT,
  },
  {
    // Fed the ranks and offsets the rank kernel and the scan make for KEYS: each key and value
    // lands on its own position, so the output is what the WGSL determines.
    name: "kishimisu-style reorder (six bindings, a key's place from two lookups)",
    source: REORDER_SRC,
    plain: [
      B(0, 0, KEYS),
      B(0, 1, new Uint32Array(N)),
      B(0, 2, REORDER.ranks),
      B(0, 3, REORDER.offsets),
      B(0, 4, Uint32Array.from({ length: N }, (_, i) => i * 11)),
      B(0, 5, new Uint32Array(N)),
    ],
    workgroups: [GROUPS, 1, 1],
    constants: SORT,
  },
  {
    name: "kishimisu-style check_sort first pass (an override-sized array, a select past the end)",
    source: check(true),
    entryPoint: "check_sort",
    plain: [B(0, 0, NEARLY_SORTED), B(0, 1, new Uint32Array(GROUPS))],
    workgroups: [GROUPS, 1, 1],
    constants: { COUNT: N, WG_X: 32, WG_Y: 1, THREADS: 32, START: 0 },
  },
  {
    name: "kishimisu-style check_sort last pass (a bare u32 storage flag, arrayLength of output)",
    source: check(false),
    entryPoint: "check_sort",
    plain: [
      B(0, 0, new Uint32Array(GROUPS)),
      B(0, 1, Uint32Array.of(9, 9, 9)),
      B(0, 2, Uint32Array.of(4, 1, 1)),
      B(0, 3, new Uint32Array(1)),
    ],
    workgroups: [1, 1, 1],
    constants: LAST,
  },
  {
    name: "kishimisu-style check_sort last pass, inversions left (the dispatch size copied)",
    source: check(false),
    entryPoint: "check_sort",
    plain: [
      B(0, 0, Uint32Array.of(0, 2, 0, 1)),
      B(0, 1, Uint32Array.of(9, 9, 9)),
      B(0, 2, Uint32Array.of(4, 1, 1)),
      B(0, 3, Uint32Array.of(5)),
    ],
    workgroups: [1, 1, 1],
    constants: LAST,
  },
  {
    // CheckSortKernel's 'reset' mode gives only COUNT and the workgroup size: THREADS (which
    // sizes the workgroup array check_sort uses) and START stay unset.
    name: "kishimisu-style check_sort reset (overrides another entry point uses left unset)",
    source: check(false),
    entryPoint: "reset",
    plain: [
      B(0, 1, new Uint32Array(12)),
      B(0, 2, Uint32Array.from({ length: 12 }, (_, i) => 100 + i)),
      B(0, 3, Uint32Array.of(7)),
    ],
    workgroups: [1, 1, 1],
    constants: { COUNT: 4, WG_X: 32, WG_Y: 1 },
  },
];

/** kishimisu's kernels plain WebGPU refuses, which the client must refuse with a typed error. */
export const RADIX_REFUSED: readonly CorpusCase[] = [
  {
    // After prefix_sum_no_bank_conflict.js's get_offset: `offset >> BANKS` shifts a u32 by a
    // const 32, a shader-creation error in WGSL (naga: "Shift amount exceeds the bit width").
    name: "kishimisu-style bank-conflict-free offset (`i >> BANKS`, a const shift of 32)",
    source: `
@group(0) @binding(0) var<storage, read_write> items: array<u32>;

const BANKS: u32 = 32;
const LOG_BANKS: u32 = 5;

fn padded(i: u32) -> u32 {
    return i + (i >> BANKS) + (i >> (2 * LOG_BANKS));
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    items[padded(id.x)] = id.x;
}`,
    plain: [B(0, 0, new Uint32Array(128))],
    workgroups: [1, 1, 1],
  },
];
