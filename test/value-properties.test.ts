// Values and messages against the string reference: round trips, media kept, and collisions
// rejected exactly when the reference says two keys of one object decode to the same text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataUriPayload, keptText } from '../src/codec/data-uri-text.ts';
import { createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { referenceDecode, referenceEncode } from './reference.ts';
import { MOBILE_MCP } from './reference-options.ts';

const codec = createCodec();
const text = fc.oneof(fragmentString(8), fc.string({ unit: 'binary', maxLength: 12 }));

/** JSON-ish values whose strings and keys come from the tricky fragments. */
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(text, tie('v'), { maxKeys: 4 }),
  ),
})).v;

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constantFrom('image', 'audio'), data: text, mimeType: text }),
  fc.record({ type: fc.constant('resource'), resource: fc.record({ uri: text, text }) }),
);
/** MCP-shaped traffic: tools/call requests and results with content blocks and structuredContent. */
const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.integer(), text),
    method: fc.constant('tools/call'),
    params: fc.record({ name: text, arguments: fc.dictionary(text, value, { maxKeys: 4 }) }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer(),
    result: fc.record({
      content: fc.array(block, { maxLength: 4 }),
      structuredContent: fc.dictionary(text, value, { maxKeys: 3 }),
      isError: fc.boolean(),
    }),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), error: fc.record({ code: fc.integer(), message: text, data: value }) }),
);

/** The reference transform of a value (recursive: generated values are shallow). */
function referenceMap(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => referenceMap(x, f));
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const media = o.type === 'image' || o.type === 'audio';
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o))
      Object.defineProperty(out, f(k), {
        value: media && k === 'data' ? x : referenceMap(x, f),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return v;
}

/** True if some object in v has two keys that the reference decodes to the same text. */
function referenceCollides(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(referenceCollides);
  if (typeof v !== 'object' || v === null) return false;
  const keys = Object.keys(v).map((k) => referenceDecode(k, MOBILE_MCP));
  return new Set(keys).size !== keys.length || Object.values(v).some(referenceCollides);
}

describe('values', () => {
  it('round-trip, for fc.jsonValue() and for tricky values', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), value), (v) => {
        const encoded = codec.encodeValue(v);
        expect(encoded).toEqual(referenceMap(v, (s) => referenceEncode(s, MOBILE_MCP)));
        expect(codec.decodeValue(encoded)).toEqual(v);
      }),
      runs(1000),
    );
  });

  it('map the keys of many objects of one size, that share some keys and differ in others', () => {
    // Objects of one shape share the keys' transform (key-shapes.ts, KeyMapper: the last few key lists
    // of each length): lists of equal length that agree in a prefix, or differ in one key only,
    // must not be taken for each other.
    const keys = fc.uniqueArray(fc.constantFrom('a', 'b', 'qwen', 'Qwen', '通义', 'x', '__mcp_ref_71__'), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(keys, { minLength: 2, maxLength: 8 }), (lists) => {
        const v = lists.map((ks) => Object.fromEntries(ks.map((k, i) => [k, i])));
        expect(codec.encodeValue(v)).toEqual(referenceMap(v, (s) => referenceEncode(s, MOBILE_MCP)));
        expect(codec.decodeValue(v)).toEqual(referenceMap(v, (s) => referenceDecode(s, MOBILE_MCP)));
      }),
      runs(500),
    );
  });

  it('encode a short value alike the first time and when it repeats (the value memo), in any case and as a data: URI', () => {
    // compiled.ts memoises short values whole, the data: URI rule included: each string must come
    // out as the unmemoised path (keptText over the reference) makes it, whatever came before.
    const shared = createCodec(); // (its memo lives across the runs)
    const piece = fc.constantFrom(
      'qwen',
      'QWEN',
      'Qwen',
      'q-wen',
      'ali',
      'baba',
      '通义',
      '__mcp_ref_',
      '__MCP_REF_',
      '71__',
      'a',
      'b/c',
      '=',
    );
    const short = fc.oneof(
      fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join('')),
      fc
        .tuple(fc.constantFrom('data:a/b;base64,', 'DATA:a;BASE64,', 'data:x/qwen;base64,'), fc.array(piece, { maxLength: 2 }))
        .map(([head, p]) => head + p.join('')),
    );
    const keptFrom = dataUriPayload(MOBILE_MCP.prefix);
    fc.assert(
      fc.property(fc.array(short, { minLength: 1, maxLength: 12 }), (strs) => {
        const want = strs.map((s) => keptText(s, (t) => referenceEncode(t, MOBILE_MCP), keptFrom));
        expect(shared.encodeValue(strs.map((s) => ({ v: s })))).toEqual(want.map((s) => ({ v: s })));
        expect(shared.encodeValue(strs)).toEqual(want);
      }),
      runs(500),
    );
  });

  it('round-trip MCP messages, keeping the envelope and media data', () => {
    fc.assert(
      fc.property(message, (m) => {
        const encoded = codec.encodeMessage(m);
        expect(encoded.jsonrpc).toBe(m.jsonrpc);
        expect((encoded as { id: unknown }).id).toBe((m as { id: unknown }).id);
        if ('method' in m) expect((encoded as typeof m).method).toBe(m.method);
        if ('result' in m) {
          m.result.content.forEach((b, i) => {
            if (b.type === 'image' || b.type === 'audio') expect((encoded as typeof m).result.content[i]).toHaveProperty('data', b.data);
          });
        }
        expect(codec.decodeMessage(encoded)).toEqual(m);
      }),
      runs(1000),
    );
  });

  it('reject a decode exactly when two keys of one object collide', () => {
    fc.assert(
      fc.property(value, (v) => {
        let threw = false;
        try {
          expect(codec.decodeValue(v)).toEqual(referenceMap(v, (s) => referenceDecode(s, MOBILE_MCP)));
        } catch (e) {
          if (!(e instanceof PayloadKeyCollisionError)) throw e;
          threw = true;
        }
        expect(threw).toBe(referenceCollides(v));
      }),
      runs(1000),
    );
  });

  it('always reject generated colliding key pairs', () => {
    const spellings = (s: string) => {
      const token = referenceEncode(s, MOBILE_MCP);
      return [s, token, token.toUpperCase(), token.replace(/[a-f]/g, (c) => c.toUpperCase())];
    };
    fc.assert(
      fc.property(fc.oneof(fragmentString(6), text), fc.nat(3), fc.nat(3), fc.dictionary(text, value, { maxKeys: 3 }), (s, a, b, rest) => {
        const forms = spellings(s).filter((k) => referenceDecode(k, MOBILE_MCP) === referenceDecode(s, MOBILE_MCP));
        const [k1, k2] = [forms[a % forms.length]!, forms[b % forms.length]!];
        fc.pre(k1 !== k2);
        const obj = { ...rest, [k1]: 1, [k2]: 2 };
        expect(() => codec.decodeValue({ wrapper: [obj] })).toThrow(PayloadKeyCollisionError);
      }),
      runs(1000),
    );
  });
});
