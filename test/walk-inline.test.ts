// Containers are mapped by recursion up to a depth below each frame, and past it by frames
// (walk.ts, mapValue: a recursion that reaches the depth suspends, its containers becoming
// frames part-way). Every depth must map alike: the same output, the same unchanged subtrees
// returned as they are, the same collision refused at the same place, and the same reads
// (each member once, in document order, through a proxy's traps). `inlineDepth: 0` is the
// frames alone (with leaves mapped at once); small depths make suspensions at every level.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { PARAMS_RULE, RESULT_RULE } from '../src/codec/protocol-fields.ts';
import { type MapOptions, mapValue } from '../src/codec/walk.ts';
import { createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { policyKey, runs } from './arbitraries.ts';

const codec = createCodec();

const key = policyKey;
const text = fc.constantFrom('image', 'audio', 'qwen', 'a Qwen b', '__mcp_ref_7177656e__', '通义', '', 'plain', 'data:a/b;base64,cXdlbg==');
const scalar = fc.oneof(text, fc.integer({ min: -2, max: 100 }), fc.boolean(), fc.constant(null));

/** JSON text of a tree up to a few levels deep (parsed, an own `__proto__` key stays a member). */
const tree: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 7 },
    scalar.map((s) => JSON.stringify(s)),
    fc.array(tie('v'), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
    fc
      .uniqueArray(fc.tuple(key, tie('v')), { maxLength: 5, selector: ([k]) => k })
      .map((ms) => `{${ms.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).v;

const directions: Omit<MapOptions, 'inlineDepth'>[] = [
  { checkCollisions: false, mapKey: codec.encodeText, widen: 3 },
  { checkCollisions: true, mapKey: codec.decodeText },
];
const rules = [undefined, PARAMS_RULE, RESULT_RULE, { schema: true as const }];

/** The output, with where each container of the input came back as itself (by path). */
function outcome(input: unknown, options: MapOptions, map: (s: string) => string): unknown {
  try {
    const out = mapValue(input, map, options);
    const same: string[] = [];
    const walk = (a: unknown, b: unknown, path: string) => {
      if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return;
      if (a === b) same.push(path);
      for (const k of Object.keys(a)) walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`);
    };
    walk(input, out, '');
    return {
      json: JSON.stringify(out),
      keys: JSON.stringify(out, (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : v)),
      same,
    };
  } catch (e) {
    if (!(e instanceof PayloadKeyCollisionError)) throw e;
    return { path: e.path, keyIndexes: e.keyIndexes };
  }
}

/** Every container of the parsed tree behind a proxy that logs its traps, in one shared log. */
function logged(json: string): { value: unknown; log: string[] } {
  const log: string[] = [];
  let n = 0;
  const wrap = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const id = n++;
    const target = Array.isArray(v) ? v.map(wrap) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wrap(x)]));
    if (!Array.isArray(v) && Object.hasOwn(v, '__proto__'))
      Object.defineProperty(target, '__proto__', {
        value: wrap(Object.getOwnPropertyDescriptor(v, '__proto__')!.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    const note = <T>(what: string, then: () => T): T => {
      log.push(`${id} ${what}`);
      return then();
    };
    return new Proxy(target, {
      get: (o, k, r) => note(`get ${String(k)}`, () => Reflect.get(o, k, r)),
      ownKeys: (o) => note('keys', () => Reflect.ownKeys(o)),
      has: (o, k) => note(`has ${String(k)}`, () => Reflect.has(o, k)),
      getOwnPropertyDescriptor: (o, k) => note(`own ${String(k)}`, () => Reflect.getOwnPropertyDescriptor(o, k)),
    });
  };
  return { value: wrap(JSON.parse(json)), log };
}

it('every inline depth maps a tree as the frames alone do: output, unchanged subtrees, collisions', () => {
  fc.assert(
    fc.property(tree, fc.nat(directions.length - 1), fc.nat(rules.length - 1), fc.integer({ min: 1, max: 4 }), (json, d, r, depth) => {
      const base = { ...directions[d]!, rule: rules[r], basePath: ['result'] };
      const map = d === 0 ? codec.encodeText : codec.decodeText;
      const want = outcome(JSON.parse(json), { ...base, inlineDepth: 0 }, map);
      expect(outcome(JSON.parse(json), { ...base, inlineDepth: depth }, map)).toEqual(want);
      expect(outcome(JSON.parse(json), base, map)).toEqual(want); // (the default depth)
    }),
    runs(3000),
  );
});

it('every inline depth reads a tree as the frames alone do: each member once, in the same order', () => {
  fc.assert(
    fc.property(tree, fc.nat(directions.length - 1), fc.nat(rules.length - 1), fc.integer({ min: 1, max: 4 }), (json, d, r, depth) => {
      const base = { ...directions[d]!, rule: rules[r] };
      const map = d === 0 ? codec.encodeText : codec.decodeText;
      const reads = (inlineDepth?: number) => {
        const { value, log } = logged(json);
        try {
          mapValue(value, map, { ...base, inlineDepth });
        } catch (e) {
          if (!(e instanceof PayloadKeyCollisionError)) throw e;
        }
        return log;
      };
      const want = reads(0);
      expect(reads(depth)).toEqual(want);
      expect(reads()).toEqual(want);
    }),
    runs(1500),
  );
});

it('a cycle is refused, and deep nesting mapped, at every inline depth', () => {
  for (const inlineDepth of [0, 1, 5, undefined]) {
    const cyclic: unknown[] = ['qwen'];
    cyclic.push({ again: [cyclic] });
    expect(() => mapValue(cyclic, codec.encodeText, { checkCollisions: false, inlineDepth })).toThrow(/cyclic/);
    let deep: unknown = 'qwen';
    for (let k = 0; k < 20_000; k++) deep = k % 2 ? [deep] : { qwen: deep };
    let out = mapValue(deep, codec.encodeText, { checkCollisions: false, inlineDepth });
    for (let k = 20_000 - 1; k >= 0; k--) out = k % 2 ? (out as unknown[])[0] : (out as Record<string, unknown>)[codec.encodeText('qwen')];
    expect(out).toBe(codec.encodeText('qwen'));
  }
});
