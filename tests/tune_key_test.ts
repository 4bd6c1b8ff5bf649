import assert from "node:assert/strict";
import fc from "fast-check";
import { anchor, keyString } from "../runtime/tune/mod.ts";

Deno.test("anchor rounds sizes up to powers of the base, clamped", () => {
  assert.equal(anchor(1000), 1024);
  assert.equal(anchor(1024), 1024);
  assert.equal(anchor(1025), 2048);
  assert.equal(anchor(0), 1);
  assert.equal(anchor(3, { min: 16 }), 16);
  assert.equal(anchor(5000, { max: 4096 }), 4096);
  assert.equal(anchor(101, { base: 10 }), 1000);
  assert.throws(() => anchor(-1), RangeError);
  assert.throws(() => anchor(8, { base: 1 }), RangeError);
  assert.throws(() => anchor(8, { min: 8, max: 4 }), RangeError);
});

Deno.test("anchor: at least x (within max), a power of the base, idempotent, monotonic", () => {
  fc.assert(fc.property(
    fc.integer({ min: 0, max: 1 << 24 }),
    fc.integer({ min: 0, max: 1 << 24 }),
    fc.constantFrom(2, 3, 4, 10),
    (x, y, base) => {
      const a = anchor(x, { base });
      assert.ok(a >= x);
      assert.ok(a < Math.max(x, 1) * base); // the next power, not a later one
      let p = a;
      while (p % base === 0) p /= base;
      assert.equal(p, 1); // a power of the base
      assert.equal(anchor(a, { base }), a);
      if (x <= y) assert.ok(a <= anchor(y, { base }));
    },
  ));
});

Deno.test("keyString is stable across property order and rejects nested values", () => {
  assert.equal(keyString({ n: 512, m: 256, t: "f32" }), keyString({ t: "f32", m: 256, n: 512 }));
  assert.equal(keyString({ b: true, a: 1 }), "a=1,b=true");
  assert.throws(() => keyString({ a: {} as unknown as number }), TypeError);
});

Deno.test("keyString: keys that differ give different forms, separators in strings included", () => {
  const keys: Record<string, string | number>[] = [
    { a: "1,b=2" },
    { a: "1", b: "2" },
    { a: 1, b: 2 },
    { "a=1,b": 2 },
    { a: '"1,b=2"' },
    { a: "x", b: 'y",c="z' },
    { a: "x", b: "y", c: "z" },
    { a: "\\" },
    { a: '"\\\\"' },
  ];
  const forms = keys.map(keyString);
  // Numbers and their decimal strings share a form: a set's key function gives one type a field.
  assert.equal(new Set(forms).size, keys.length - 1, forms.join("\n"));
  assert.equal(keyString({ a: "1,b=2" }), 'a="1,b=2"');
  assert.equal(keyString({ m: 64, op: "sum", dot: false }), "dot=false,m=64,op=sum"); // as before
});
