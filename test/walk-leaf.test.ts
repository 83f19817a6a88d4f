// An object none of whose members is a container is mapped at once, by recursion (walk.ts,
// mapObject). The same object with one more member first, arrays nested deeper than the walk's
// inline depth (which map to themselves), suspends there and maps its other members as a frame
// (mapValue's loop); both must map every member alike: keys, the field policy (`_meta`, opaque
// `data` and `blob`, the protocol fields of `params` and `result`), `maxLength` in tool
// schemas, own `__proto__` keys, and the object itself back when nothing changed.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { INLINE_DEPTH } from '../src/codec/walk.ts';
import { createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { policyKey, runs } from './arbitraries.ts';

const codec = createCodec();
const PAD = '\u0000pad';
/** The pad's value: arrays deeper than INLINE_DEPTH below wherever it sits, so what holds it becomes a frame. */
const DEEP = '['.repeat(INLINE_DEPTH + 1) + ']'.repeat(INLINE_DEPTH + 1);
const deep = () => JSON.parse(DEEP) as unknown[];

const key = policyKey;
const text = fc.constantFrom(
  'image',
  'audio',
  'text',
  'qwen',
  'a Qwen b',
  '__mcp_ref_71776__',
  '通义',
  '',
  'plain',
  'data:a/b;base64,cXdlbg==',
);
const scalar = fc.oneof(text, fc.integer({ min: -2, max: 100 }), fc.constant(1.5), fc.boolean(), fc.constant(null));
const members = fc.uniqueArray(fc.tuple(key, scalar), { maxLength: 6, selector: ([k]) => k });

/** The object as JSON.parse makes it (so `__proto__` is an own key), with the pad member first or not. */
const objectOf = (entries: [string, unknown][], pad: boolean) =>
  JSON.parse(`{${[...(pad ? [[PAD, deep()]] : []), ...entries].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);

/** Where a leaf sits: in a message (at its `params`, in `result`, in a tool schema) or a bare value. */
interface Place {
  build(leaf: unknown): unknown;
  at(mapped: unknown): unknown;
}
const get = (v: unknown, path: (string | number)[]) => path.reduce((o, k) => (o as Record<string | number, unknown>)[k], v);
const inMessage = (
  method: string | undefined,
  field: 'params' | 'result' | 'error',
  path: (string | number)[],
  wrap: (leaf: unknown) => unknown,
): Place => ({
  build: (leaf) => ({ jsonrpc: '2.0', id: 1, ...(method ? { method } : {}), [field]: wrap(leaf) }),
  at: (m) => get(m, [field, ...path]),
});
const places: Place[] = [
  inMessage('notifications/progress', 'params', [], (l) => l),
  inMessage(undefined, 'result', [], (l) => l),
  inMessage(undefined, 'result', ['content', 0], (l) => ({ content: [l] })),
  inMessage(undefined, 'result', ['task'], (l) => ({ task: l })),
  inMessage(undefined, 'result', ['tools', 0, 'inputSchema', 'properties', 'a'], (l) => ({
    tools: [{ name: 't', inputSchema: { type: 'object', properties: { a: l } } }],
  })),
  inMessage(undefined, 'result', ['tools', 0, 'inputSchema'], (l) => ({ tools: [{ name: 't', inputSchema: l }] })),
  inMessage(undefined, 'error', ['data'], (l) => ({ code: 1, message: 'm', data: l })),
  { build: (l) => l, at: (v) => v },
  { build: (l) => [[l]], at: (v) => get(v, [0, 0]) },
];

const withoutPad = (o: unknown) => {
  const copy = { ...(o as Record<string, unknown>) }; // (spread keeps an own __proto__ key)
  delete copy[PAD];
  return copy;
};

it('a leaf object maps as the same object through a frame does (encode and decode, messages and values)', () => {
  const apis = [
    (v: unknown) => codec.encodeMessage(v),
    (v: unknown) => codec.decodeMessage(v),
    (v: unknown) => codec.encodeValue(v),
    (v: unknown) => codec.decodeValue(v),
  ];
  fc.assert(
    fc.property(members, fc.nat(places.length - 1), fc.nat(apis.length - 1), (entries, p, a) => {
      const place = places[p]!;
      const map = apis[a]!;
      const leaf = objectOf(entries, false);
      const framed = objectOf(entries, true);
      let want: unknown;
      try {
        want = place.at(map(place.build(framed)));
      } catch (e) {
        // Decoding two keys to one: refused alike, at the same place (the pad is key 0).
        expect(e).toBeInstanceOf(PayloadKeyCollisionError);
        const { path, keyIndexes } = e as PayloadKeyCollisionError;
        expect(() => map(place.build(leaf))).toThrow(expect.objectContaining({ path, keyIndexes: keyIndexes.map((k) => k - 1) }));
        return;
      }
      const got = place.at(map(place.build(leaf)));
      expect(Object.keys(got as object)).toEqual(Object.keys(withoutPad(want)));
      expect(got).toEqual(withoutPad(want));
      // Unchanged: the object itself, on both paths.
      expect(got === leaf).toBe(want === framed);
    }),
    runs(2000),
  );
});

it('an array of scalars maps as the same array through a frame does', () => {
  // (The frame's array: one more element first, the deep pad, which maps to itself.)
  const apis = [codec.encodeMessage, codec.decodeMessage, codec.encodeValue, codec.decodeValue] as ((v: unknown) => unknown)[];
  fc.assert(
    fc.property(fc.array(scalar, { maxLength: 6 }), fc.nat(places.length - 1), fc.nat(apis.length - 1), (elements, p, a) => {
      const place = places[p]!;
      const map = apis[a]!;
      const leaf = JSON.parse(JSON.stringify(elements));
      const framed = JSON.parse(JSON.stringify([deep(), ...elements]));
      const want = place.at(map(place.build(framed))) as unknown[];
      const got = place.at(map(place.build(leaf)));
      expect(got).toEqual(want.slice(1));
      expect(got === leaf).toBe(want === framed);
    }),
    runs(1000),
  );
});

it('values JSON.parse does not make map alike on both paths: holes, getters, proxies, frozen objects, symbol keys', () => {
  const apis = [codec.encodeValue, codec.decodeValue] as ((v: unknown) => unknown)[];
  for (const map of apis) {
    // Holes: an unchanged array comes back itself (holes and all), a changed one dense.
    for (const [dense, hole] of [
      [['qwen', 0, 'x'], 1],
      [['x', 0, 'y'], 1],
      [[0, '__mcp_ref_71776__'], 0],
    ] as [unknown[], number][]) {
      const elements = dense.slice();
      delete elements[hole];
      const leaf = elements.slice(); // (slice and concat keep holes; a spread fills them)
      const framed = [deep()].concat(elements); // (concat keeps the holes)
      const got = map(leaf) as unknown[];
      const want = map(framed) as unknown[];
      expect(got === leaf).toBe(want === framed);
      expect(Object.keys(leaf).length).toBe(leaf.length - 1); // (a hole, really)
      expect(got.length).toBe(leaf.length);
      for (let k = 0; k < leaf.length; k++) expect([k, k in got, got[k]]).toEqual([k, k + 1 in want, want[k + 1]]);
    }
    // Members read once each, in the same order (a getter, and a proxy's traps), whichever path.
    const reads = (pad: boolean) => {
      const log: string[] = [];
      const target: Record<string, unknown> = {
        ...(pad ? { [PAD]: deep() } : {}),
        get a() {
          log.push('getter a');
          return 'qwen';
        },
        b: 'x',
      };
      const proxy = new Proxy(target, {
        get(o, k, r) {
          log.push(`get ${String(k)}`);
          return Reflect.get(o, k, r);
        },
        ownKeys(o) {
          log.push('keys');
          return Reflect.ownKeys(o);
        },
      });
      const out = map(proxy) as Record<string, unknown>;
      return { log: log.filter((l) => !l.includes(PAD)), out: withoutPad(out) };
    };
    expect(reads(false)).toEqual(reads(true));
    // Frozen objects are read, never written; symbol keys are not members (a rebuilt object has none).
    const s = Symbol('s');
    const frozen = Object.freeze({ a: 'qwen', b: 1, [s]: 'qwen' });
    const frozenFramed = Object.freeze({ [PAD]: deep(), a: 'qwen', b: 1, [s]: 'qwen' });
    const got = map(frozen) as object;
    const want = map(frozenFramed) as object;
    expect(got).toEqual(withoutPad(want));
    expect(got === frozen).toBe(want === frozenFramed);
    expect(Object.getOwnPropertySymbols(got)).toEqual(Object.getOwnPropertySymbols(want));
  }
});

it('reads each array element once, on either path: what it tests is what it maps', () => {
  // An element that is a string at its first read and an object after: read twice (once to
  // see whether the array holds a container, once to map it) it passed as an object, its term
  // untouched.
  for (const framed of [false, true]) {
    let reads = 0;
    const arr: unknown[] = framed ? [deep(), 'x'] : ['x'];
    const at = framed ? 1 : 0;
    Object.defineProperty(arr, at, {
      get: () => (++reads === 1 ? 'qwen' : { text: 'qwen' }),
      enumerable: true,
      configurable: true,
    });
    const out = codec.encodeValue(arr) as unknown[];
    expect([framed, reads, out[at]]).toEqual([framed, 1, codec.encodeText('qwen')]);
  }
});

it("reads a media object's `type` once, on either path, and keeps its `data` by what it read", () => {
  // The media rule (`data` kept when `type` is image or audio) read `type` a second time, after
  // the walk had read every member once: a getter answering differently the second time
  // decided what the walk did with `data`.
  for (const framed of [false, true])
    for (const [first, later, kept] of [
      ['image', 'text', true],
      ['text', 'audio', false],
    ] as const) {
      let reads = 0;
      const o: Record<string, unknown> = { ...(framed ? { [PAD]: deep() } : {}), data: 'qwen' };
      Object.defineProperty(o, 'type', { get: () => (++reads === 1 ? first : later), enumerable: true, configurable: true });
      const out = codec.encodeValue(o) as Record<string, unknown>;
      expect([framed, first, reads, out.data]).toEqual([framed, first, 1, kept ? 'qwen' : codec.encodeText('qwen')]);
    }
});
