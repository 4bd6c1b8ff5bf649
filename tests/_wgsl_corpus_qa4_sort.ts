/**
 * QA wave 4, sorters of Gaussian-splatting renderers and GPU radix sorts: consts declared
 * after their use in array counts and `@workgroup_size`, 2-D atomic arrays in storage structs and
 * bindings, tabs, `while true`, `j++`; see `_wgsl_corpus_qa4.ts`.
 */
import { B, type CorpusCase, u } from "./_wgsl_corpus_qa_base.ts";
import { w } from "./_wgsl_corpus_qa3_base.ts";

// 1,024 (key, value) entries; keys spread over every top byte.
const KEYS = u(1024, 0xffffffff);
const ENTRIES = Uint32Array.from({ length: 2048 }, (_, i) => i % 2 ? i >> 1 : KEYS[i >> 1]);
const DIGIT = (k: number) => k >>> 24;
// onesweep bin's output is determined only while no 32 keys in a row share a digit (see it).
for (let g = 0; g < KEYS.length; g += 32) {
  if (new Set(Array.from(KEYS.subarray(g, g + 32), DIGIT)).size < 32) throw new Error("KEYS");
}
const COUNTS = new Uint32Array(256);
for (const k of KEYS) COUNTS[DIGIT(k)]++;
/** SortingGlobal: digitHistogram[4][256] (row 3: the exclusive prefix of the top digits), a counter. */
const SORTING = new Uint32Array(4 * 256 + 1);
for (let d = 0, sum = 0; d < 256; sum += COUNTS[d++]) SORTING[3 * 256 + d] = sum;

const SPLAT_SORT = (tail: string) =>
  /* wgsl */ `const RADIX_BITS_PER_DIGIT = 8u;
const RADIX_DIGIT_PLACES = 4u;
const ENTRIES_PER_INVOCATION = 4u;
const RADIX_BASE = 1u << RADIX_BITS_PER_DIGIT;
const RADIX_MASK = RADIX_BASE - 1;
const WORKGROUP_ENTRIES_BINNING = RADIX_BASE * ENTRIES_PER_INVOCATION;
const MAX_TILE_COUNT_BINNING = 4u;

const STATUS_NOT_READY = 0x00000000u;
const STATUS_LOCAL = 0x40000000u;
const STATUS_GLOBAL = 0x80000000u;
const STATUS_MASK = 0xC0000000u;
const VALUE_MASK = ~STATUS_MASK;

struct Entry { key: u32, value: u32 }

struct DrawIndirect {
\tvertexCount: u32,
\tinstanceCount: atomic<u32>,
\t_baseVertex: u32,
\t_baseInstance: u32,
};

struct SortingGlobal {
\tdigitHistogram: array<array<atomic<u32>, RADIX_BASE>, RADIX_DIGIT_PLACES>,
\tassignmentCounter: atomic<u32>,
};

@group(0) @binding(2) var<uniform> passIndex: u32;
@group(0) @binding(3) var<storage, read_write> sorting: SortingGlobal;
@group(0) @binding(4) var<storage, read_write> statusCounter: array<array<atomic<u32>, RADIX_BASE>, MAX_TILE_COUNT_BINNING>;
@group(0) @binding(5) var<storage, read_write> drawIndirect: DrawIndirect;
@group(0) @binding(6) var<storage, read_write> entriesIn: array<Entry>;
@group(0) @binding(7) var<storage, read_write> entriesOut: array<Entry>;

@compute @workgroup_size(1)
fn exPrefixSum(@builtin(global_invocation_id) globalID: vec3<u32>) {
    var sum = 0u;
\tfor (var digit = 0u; digit < RADIX_BASE; digit += 1u) {
\t\tsum += atomicExchange(&sorting.digitHistogram[globalID.y][digit], sum);
\t}
}
${tail}`;

// The `bin` entry point verbatim (one tile: no lookback wait).
const BIN = /* wgsl */ `
const WARPSIZE = 32u;
const WARPCOUNT = RADIX_BASE / WARPSIZE;

var<workgroup> entries: array<atomic<u32>, WORKGROUP_ENTRIES_BINNING>;
var<workgroup> scan: array<atomic<u32>, RADIX_BASE>;
var<workgroup> warpHists: array<array<u32, RADIX_BASE>, WARPCOUNT>;
var<workgroup> warpKeys: array<array<u32, WARPSIZE>, WARPCOUNT>;

fn exclusiveScan(index: u32) -> u32 {
\tvar offset = 1u;
\tfor (var d = RADIX_BASE >> 1; d > 0; d >>= 1) {
\t\tworkgroupBarrier();
\t\tif(index < d) {
\t\t\tvar leftIndex = offset * (2 * index + 1) - 1;
\t\t\tvar rightIndex = offset * (2 * index + 2) - 1;
\t\t\tatomicAdd(&scan[rightIndex], atomicLoad(&scan[leftIndex]));
\t\t}
\t\toffset <<= 1;
\t}
\tif (index == 0) {
\t\tatomicStore(&scan[RADIX_BASE - 1], 0);
\t}
\tfor (var d = 1u; d < RADIX_BASE; d <<= 1) {
\t\tworkgroupBarrier();
\t\toffset >>= 1;
\t\tif (index < d) {
\t\t\tvar leftIndex = offset * (2 * index + 1) - 1;
\t\t\tvar rightIndex = offset * (2 * index + 2) - 1;
\t\t\tatomicStore(
\t\t\t\t&scan[leftIndex],
\t\t\t\tatomicAdd(
\t\t\t\t\t&scan[rightIndex],
\t\t\t\t\tatomicLoad(&scan[leftIndex])
\t\t\t\t)
\t\t\t);
\t\t}
\t}
\tworkgroupBarrier();
\treturn atomicLoad(&scan[index]);
}

@compute @workgroup_size(RADIX_BASE)
fn bin(@builtin(local_invocation_id) localID: vec3<u32>) {
\tif (localID.x == 0u) {
\t\tatomicStore(&entries[0], atomicAdd(&sorting.assignmentCounter, 1u));
\t}
\tatomicStore(&scan[localID.x], 0u);
\tworkgroupBarrier();

\tlet assignment = atomicLoad(&entries[0]);
\tlet global_entry_offset = assignment * WORKGROUP_ENTRIES_BINNING;
\tif (localID.x == 0u && (global_entry_offset + WORKGROUP_ENTRIES_BINNING) >= arrayLength(&entriesIn)) {
\t\tatomicStore(&sorting.assignmentCounter, 0u);
\t}
\tlet warpIdx = localID.x / WARPSIZE;
\tlet laneIdx = localID.x % WARPSIZE;
\tvar keys: array<u32, ENTRIES_PER_INVOCATION>;
\tvar ranks: array<u32, ENTRIES_PER_INVOCATION>;
\tfor (var entry_index = 0u; entry_index < ENTRIES_PER_INVOCATION; entry_index += 1u) {
\t\tlet idx = global_entry_offset + RADIX_BASE * entry_index + localID.x;
\t\tvar key = ~0u;
\t\tif (idx < arrayLength(&entriesIn)) {
\t\t\tkey = entriesIn[idx].key;
\t\t}
\t\tkeys[entry_index] = key;
\t\tlet digit = (key >> (passIndex * RADIX_BITS_PER_DIGIT)) & RADIX_MASK;
\t\twarpKeys[warpIdx][laneIdx] = digit;
\t\tworkgroupBarrier();
\t\tvar ballot = 0u;
\t\tfor (var j = 0u; j < WARPSIZE; j++) {
\t\t\tif (digit == warpKeys[warpIdx][j]) {
\t\t\t\tballot |= (1u << j);
\t\t\t}
\t\t}
\t\tlet rank = countOneBits(ballot << (31u - laneIdx)) - 1;
\t\tranks[entry_index] = warpHists[warpIdx][digit] + rank;
\t\tif (rank == 0u) {
\t\t\twarpHists[warpIdx][digit] += countOneBits(ballot);
\t\t}
\t\tworkgroupBarrier();
\t}
\tworkgroupBarrier();
\tvar local_digit_count = 0u;
\tfor (var i = 0u; i < WARPCOUNT; i += 1u) {
\t\tlet temp = warpHists[i][localID.x];
\t\twarpHists[i][localID.x] = local_digit_count;
\t\tlocal_digit_count += temp;
\t}
\tatomicStore(&scan[localID.x], local_digit_count);
\tlet local_digit_offset = exclusiveScan(localID.x);
\tatomicStore(&statusCounter[assignment][localID.x], STATUS_LOCAL | local_digit_count);
\tvar global_digit_count = 0u;
\tvar previous_tile = assignment;
\twhile true {
\t\tif (previous_tile == 0u) {
\t\t\tglobal_digit_count += atomicLoad(&sorting.digitHistogram[passIndex][localID.x]);
\t\t\tbreak;
\t\t}
\t\tprevious_tile -= 1u;
\t\tvar status_counter = STATUS_NOT_READY;
\t\twhile ((status_counter & STATUS_MASK) == STATUS_NOT_READY) {
\t\t\tstatus_counter = atomicLoad(&statusCounter[previous_tile][localID.x]);
\t\t}
\t\tglobal_digit_count += status_counter & VALUE_MASK;
\t\tif ((status_counter & STATUS_GLOBAL) != 0u) {
\t\t\tbreak;
\t\t}
\t}
\tatomicStore(&statusCounter[assignment][localID.x], STATUS_GLOBAL | (global_digit_count + local_digit_count));
\tif (passIndex == RADIX_DIGIT_PLACES - 1u && localID.x == RADIX_BASE - 2u && (global_entry_offset + WORKGROUP_ENTRIES_BINNING) >= arrayLength(&entriesIn)) {
\t\tdrawIndirect.vertexCount = 4u;
\t\tatomicStore(&drawIndirect.instanceCount, global_digit_count + local_digit_count);
\t}
\tfor (var entry_index = 0u; entry_index < ENTRIES_PER_INVOCATION; entry_index += 1u) {
\t\tlet key = keys[entry_index];
\t\tlet digit = (key >> (passIndex * RADIX_BITS_PER_DIGIT)) & RADIX_MASK;
\t\tranks[entry_index] += warpHists[warpIdx][digit] + atomicLoad(&scan[digit]);
\t\tatomicStore(&entries[ranks[entry_index]], key);
\t}
\tworkgroupBarrier();
\tatomicStore(&scan[localID.x], global_digit_count - local_digit_offset);
\tworkgroupBarrier();
\tfor (var entry_index = 0u; entry_index < ENTRIES_PER_INVOCATION; entry_index += 1u) {
\t\tlet key = atomicLoad(&entries[RADIX_BASE * entry_index + localID.x]);
\t\tlet digit = (key >> (passIndex * RADIX_BITS_PER_DIGIT)) & RADIX_MASK;
\t\tkeys[entry_index] = digit;
\t\tentriesOut[atomicLoad(&scan[digit]) + RADIX_BASE * entry_index + localID.x].key = key;
\t}
\tworkgroupBarrier();
\tfor (var entry_index = 0u; entry_index < ENTRIES_PER_INVOCATION; entry_index += 1u) {
\t\tlet value = entriesIn[global_entry_offset + RADIX_BASE * entry_index + localID.x].value;
\t\tatomicStore(&entries[ranks[entry_index]], value);
\t}
\tworkgroupBarrier();
\tfor (var entry_index = 0u; entry_index < ENTRIES_PER_INVOCATION; entry_index += 1u) {
\t\tlet value = atomicLoad(&entries[RADIX_BASE * entry_index + localID.x]);
\t\tlet digit = keys[entry_index];
\t\tentriesOut[atomicLoad(&scan[digit]) + RADIX_BASE * entry_index + localID.x].value = value;
\t}
}`;

export const SORT4: readonly CorpusCase[] = [
  {
    // A WebGPU Gaussian-splatting renderer's onesweep sort "based on
    // https://github.com/Lichtso/splatter" (tab-indented; the `histogram` entry point, which
    // needs the renderer's camera and splat buffers, left out): `exPrefixSum` alone, whose
    // layout holds `sorting` only, a struct of `array<array<atomic<u32>, RADIX_BASE>, 4>`
    // (RADIX_BASE = 1u << 8u) then an atomic counter (4,100 bytes).
    name: "splat onesweep exPrefixSum (2-D atomic array in a storage struct, 1u << 8u count)",
    entryPoint: "exPrefixSum",
    source: SPLAT_SORT(""),
    plain: [B(0, 3, Uint32Array.from({ length: 1025 }, (_, i) => (i * 7) % 13))],
    workgroups: [1, 4, 1],
  },
  {
    // The same module's `bin` entry point, one tile of 1,024 entries: workgroup 2-D atomic and
    // plain arrays sized by consts, a 2-D atomic storage binding, `while true`, `j++`, `>>=`,
    // `atomicStore(&scan[RADIX_BASE - 1], 0)` with an abstract int. Determined only because no
    // 32-lane group of a round holds one digit twice (the lane of rank 0 adds to
    // `warpHists[warp][digit]` while the others of that digit read it, with no barrier between:
    // a race on a GPU whose subgroups are not those 32 lanes); KEYS is checked so.
    name: "splat onesweep bin (workgroup multisplit, chained scan, drawIndirect atomics)",
    entryPoint: "bin",
    source: SPLAT_SORT(BIN),
    plain: [
      B(0, 2, w(3), true),
      B(0, 3, SORTING),
      B(0, 4, new Uint32Array(4 * 256)),
      B(0, 5, new Uint32Array(4)),
      B(0, 6, ENTRIES),
      B(0, 7, new Uint32Array(2048)),
    ],
    workgroups: [1, 1, 1],
    params: { passIndex: 3 },
  },
  {
    // https://github.com/AsherJingkongChen/gausplat-renderer/blob/main/src/scene/gaussian_3d/render/forward/wgpu/kernel/radix_sort_scatter_key.wgsl
    // verbatim: the bindings' names on the line after `var<...>`, `array<atomic<u32>, RADIX>`
    // and `@workgroup_size(RADIX, 1, 1)` before `RADIX` is declared, which is itself
    // `1u << RADIX_BIT_COUNT` declared after it. One key per radix digit: deterministic.
    name: "gausplat-renderer radix_sort_scatter_key (consts declared after their use)",
    source: /* wgsl */ `struct Arguments {
    // (0 ~ , + 2^R)
    radix_bit_offset: u32,
}

@group(0) @binding(0) var<storage, read>
arguments: Arguments;
// [N]
@group(0) @binding(1) var<storage, read_write>
keys_input: array<u32>;
// [N]
@group(0) @binding(2) var<storage, read_write>
keys_output: array<u32>;
// [2^R]
@group(0) @binding(3) var<storage, read_write>
radix_offsets: array<atomic<u32>, RADIX>;

// 2^R
const RADIX: u32 = 1u << RADIX_BIT_COUNT;
// R
const RADIX_BIT_COUNT: u32 = 8u;
// 2^R - 1
const RADIX_BIT_MASK: u32 = RADIX - 1u;

@compute @workgroup_size(RADIX, 1, 1)
fn main(
    @builtin(global_invocation_id) global_id: vec3<u32>,
) {
    // Specifying the index

    let index = global_id.x;

    // Scattering the keys

    if index < arrayLength(&keys_input) {
        let key = keys_input[index];
        let radix = key >> arguments.radix_bit_offset & RADIX_BIT_MASK;

        let index_new = atomicAdd(&radix_offsets[radix], 1u);
        keys_output[index_new] = key;
    }
}
`,
    plain: [
      B(0, 0, w(8)),
      B(0, 1, Uint32Array.from({ length: 256 }, (_, i) => ((i * 97) % 256) << 8 | i)),
      B(0, 2, new Uint32Array(256)),
      B(0, 3, Uint32Array.from({ length: 256 }, (_, i) => 255 - i)),
    ],
    workgroups: [1, 1, 1],
  },
  {
    // https://github.com/MatiasHiltunen/simple-knn-wgpu/blob/main/src/shaders/sort.wgsl's
    // `radix_reorder` with its struct fixed (commas for `;`) and cut to the read-only atomics:
    // WGSL allows atomics only in read_write storage, yet wgpu's compiler runs it; so must the
    // client (it binds read-only storage as read_write).
    name: "simple-knn-wgpu radix_reorder with commas (atomic<u32> in var<storage, read>)",
    entryPoint: "radix_reorder",
    source: /* wgsl */ `struct Params { num: u32, bit: u32 };
@group(0) @binding(3) var<storage, read> r_counts: array<atomic<u32>, 2>;
@group(0) @binding(4) var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(6) var<uniform> r_params: Params;
@compute @workgroup_size(256)
fn radix_reorder(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= r_params.num) { return; }
    out_keys[gid.x] = atomicLoad(&r_counts[0]);
}
`,
    plain: [B(0, 3, w(77, 5)), B(0, 4, new Uint32Array(256)), B(0, 6, w(200, 0), true)],
    workgroups: [1, 1, 1],
    params: { num: 200, bit: 0 },
  },
];
