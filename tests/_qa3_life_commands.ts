/**
 * The commands of the random lifecycle programs of `_qa3_life_programs.ts`, and the programs: every
 * slot allocated first, then random commands, with `destroy` at a random point in half of them.
 */
import fc from "fast-check";

/** Elements of every buffer of a program. */
export const LEN = 64;

export type LifeCommand =
  | { op: "alloc"; s: number; h: number; seed: number }
  | { op: "add"; s: number; x: number; y: number; c: number }
  | { op: "write"; s: number; h: number; seed: number }
  | { op: "read"; s: number; h: number }
  | { op: "dispose"; h: number }
  | { op: "sync"; s: number }
  | { op: "mark"; s: number }
  | { op: "gate"; s: number }
  | { op: "open" }
  | { op: "profile"; s: number; x: number; y: number; c: number; wait: boolean }
  | { op: "capture"; x: number; y: number; c: number }
  | { op: "replay"; g: number }
  | { op: "dropGraph"; g: number }
  | { op: "trace" }
  | { op: "abortWait" }
  | { op: "foreign"; s: number }
  | { op: "copyOut"; s: number; h: number }
  | { op: "waitOther"; s: number }
  | { op: "readMany"; s: number; h: number; k: number }
  | { op: "cleanup"; s: number }
  | { op: "copyIn"; s: number; h: number }
  | { op: "destroy" }
  | { op: "yield" };

const stream = fc.nat(2);
const slot = fc.nat(3);
const seed = fc.nat(1000);

/** The commands of a program. */
export const lifeCommand: fc.Arbitrary<LifeCommand> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("alloc" as const), s: stream, h: slot, seed }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("add" as const),
      s: stream,
      x: slot,
      y: slot,
      c: fc.nat(100),
    }),
  },
  fc.record({ op: fc.constant("write" as const), s: stream, h: slot, seed }),
  { weight: 5, arbitrary: fc.record({ op: fc.constant("read" as const), s: stream, h: slot }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("dispose" as const), h: slot }) },
  fc.record({ op: fc.constant("sync" as const), s: stream }),
  fc.record({ op: fc.constant("mark" as const), s: stream }),
  fc.record({ op: fc.constant("gate" as const), s: stream }),
  fc.record({ op: fc.constant("open" as const) }),
  fc.record({
    op: fc.constant("profile" as const),
    s: stream,
    x: slot,
    y: slot,
    c: fc.nat(100),
    wait: fc.boolean(), // fn then awaits a gate of the program's own
  }),
  fc.record({ op: fc.constant("capture" as const), x: slot, y: slot, c: fc.nat(100) }),
  fc.record({ op: fc.constant("replay" as const), g: fc.nat(1) }),
  fc.record({ op: fc.constant("dropGraph" as const), g: fc.nat(1) }),
  fc.record({ op: fc.constant("trace" as const) }),
  fc.record({ op: fc.constant("abortWait" as const) }),
  fc.record({ op: fc.constant("foreign" as const), s: stream }),
  fc.record({ op: fc.constant("copyOut" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("waitOther" as const), s: stream }),
  fc.record({ op: fc.constant("readMany" as const), s: stream, h: slot, k: slot }),
  fc.record({ op: fc.constant("cleanup" as const), s: stream }),
  fc.record({ op: fc.constant("copyIn" as const), s: stream, h: slot }),
  fc.record({ op: fc.constant("yield" as const) }),
);

/**
 * A program: every slot allocated first, then 5 to 30 commands, with `destroy` inserted at a random
 * point in half of them (and sometimes a second time).
 */
export const lifeProgram: fc.Arbitrary<LifeCommand[]> = fc.tuple(
  fc.array(lifeCommand, { minLength: 5, maxLength: 30, size: "max" }),
  fc.option(fc.tuple(fc.nat(30), fc.boolean()), { freq: 2 }),
  fc.array(seed, { minLength: 4, maxLength: 4 }),
).map(([commands, destroy, seeds]) => {
  const program: LifeCommand[] = seeds.map((seed, h) => ({ op: "alloc", s: h % 3, h, seed }));
  program.push(...commands);
  if (destroy !== null) {
    const [at, twice] = destroy;
    const where = 4 + (at % (commands.length + 1));
    program.splice(
      where,
      0,
      ...(twice
        ? [{ op: "destroy" as const }, { op: "destroy" as const }]
        : [{ op: "destroy" as const }]),
    );
  }
  return program;
});
