/**
 * The tuner in a browser, over two loads of this page in one browser profile (`?load=1`, then
 * `?load=2`): the first tunes a reduction on a stream of its own and stores the pick in
 * IndexedDB, the second finds it there and runs no benchmark. The entry carries the same
 * checksum and version namespace as the file cache.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createClient } from "../../mod.ts";
import { reduceSet, TuneCache, Tuner } from "../../runtime/tune/mod.ts";
import { VERSION } from "../../runtime/tune/_version.ts";
import { runGroups } from "./_page_harness.ts";

const load = new URL(location.href).searchParams.get("load");
const TUNER = "browser-test";
const STREAM = 3;

// The part of IndexedDB used here (the tests type-check without the DOM library).
interface IdbRequest<T> {
  result: T;
  error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface IdbDatabase {
  createObjectStore(name: string): unknown;
  transaction(name: string, mode: "readwrite"): {
    objectStore(name: string): {
      get(key: string): IdbRequest<unknown>;
      put(value: unknown, key: string): IdbRequest<unknown>;
    };
  };
  close(): void;
}
const { indexedDB } = globalThis as unknown as {
  indexedDB: {
    open(name: string, version: number): IdbRequest<IdbDatabase> & {
      onupgradeneeded: (() => void) | null;
    };
  };
};

/** The body stored under `key` (or `replace` put there), with IndexedDB itself, not the runtime. */
async function stored(key: string, replace?: unknown): Promise<unknown> {
  const open = indexedDB.open("gpucompute", 1);
  const db = await new Promise<IdbDatabase>((resolve, reject) => {
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
    open.onupgradeneeded = () => open.result.createObjectStore("tune-cache");
  });
  try {
    const store = db.transaction("tune-cache", "readwrite").objectStore("tune-cache");
    const request = replace === undefined ? store.get(key) : store.put(replace, key);
    return await new Promise((resolve, reject) => {
      request.onsuccess = () => resolve(replace ?? request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

runGroups({
  [`tuner, page load ${load}`]: async (t) => {
    using client = await createClient();
    using x = client.createWithData(Float32Array.from({ length: 1 << 14 }, (_, i) => i % 9));
    const set = reduceSet(client, "sum");
    const tuner = new Tuner(client, { name: TUNER, stream: STREAM, progressBar: false });
    const recorder = client.trace();
    const outcome = await tuner.tune(set, { x });
    const trace = await recorder.stop();
    const cache = await tuner.cache();
    const { backend, deviceName } = client.server.properties;
    const device = `${backend}-${deviceName}`.toLowerCase().replace(/[^a-z0-9._-]+/g, "-");
    const key = `v${VERSION}/${device}/${TUNER}`;

    await t.step("the cache is IndexedDB, namespaced by version, device and tuner", () => {
      assert.equal(cache.store, "indexeddb");
      assert.equal(cache.location, key);
      assert.equal(cache.file, undefined);
      assert.deepEqual(cache.warnings, []);
    });

    if (load === "1") {
      await t.step("first load tunes, on the tuner's own stream only", () => {
        assert.equal(outcome.fromCache, false);
        assert.ok(tuner.stats.runs > set.names.length, `${tuner.stats.runs} runs`);
        const streams = new Set(trace.events.flatMap((e) => e.type === "kernel" ? [e.stream] : []));
        assert.deepEqual([...streams], [STREAM]);
        localStorage.setItem(
          "tuned",
          JSON.stringify({ key: outcome.key, fastest: outcome.fastest }),
        );
      });
      await t.step("the pick is stored with its set's checksum", async () => {
        const body = await stored(key) as { format: number; entries: Record<string, unknown> };
        assert.equal(body.format, 1);
        const entry = body.entries[`${set.name}/${outcome.key}`] as {
          checksum: string;
          fastest: string;
        };
        assert.equal(entry.checksum, set.checksum);
        assert.equal(entry.fastest, outcome.fastest);
      });
      return;
    }

    await t.step("second load finds the pick in IndexedDB and runs no benchmark", () => {
      const first = JSON.parse(localStorage.getItem("tuned") ?? "null");
      assert.ok(first !== null, "the first load stored its outcome");
      assert.equal(outcome.fromCache, true);
      assert.equal(tuner.stats.runs, 0);
      assert.deepEqual({ key: outcome.key, fastest: outcome.fastest }, first);
    });
    await t.step("a corrupt body is reported once, ignored, then replaced", async () => {
      await stored("corrupt", { format: 1, entries: { "a/n=1": { chec: 1 } } });
      const corrupt = await TuneCache.open("corrupt", { store: "indexeddb" });
      assert.equal(corrupt.size, 0);
      assert.equal(corrupt.warnings.length, 1);
      assert.match(corrupt.warnings[0], /indexeddb:gpucompute\/tune-cache\/corrupt is corrupt/);
      await corrupt.set("a/n=2", { checksum: "c", fastest: "f", results: [] });
      const body = await stored("corrupt") as { entries: Record<string, { fastest: string }> };
      assert.deepEqual(Object.keys(body.entries), ["a/n=2"]);
      const reopened = await TuneCache.open("corrupt", { store: "indexeddb" });
      assert.equal(reopened.get("a/n=2", "c")?.fastest, "f");
    });
    await t.step("persistent: false and the file store stay in memory", async () => {
      const memory = await new Tuner(client, { persistent: false }).cache();
      assert.equal(memory.store, "memory");
      const file = await TuneCache.open("/tmp/t.json", { store: "file" });
      assert.equal(file.store, "memory");
      assert.match(file.warnings[0], /No file system in this host/);
    });
  },
});
