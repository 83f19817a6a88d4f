// The field policy (src/codec/protocol-fields.ts): protocol fields and opaque base64 pass untouched,
// tool schemas' maxLength is widened, everything else stays payload; the object API against a
// small recursive reference, and the streams (the core's own copy of the rules) against the
// object API, on generated MCP messages with terms in every field.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBase64DataUri, schemaWidening } from '../src/codec/protocol-fields.ts';
import { expandPatterns } from '../src/codec/terms.ts';
import { type Codec, createCodec, DEFAULT_TERMS, encodeText, PayloadKeyCollisionError } from '../src/index.ts';
import { fragmentString, runs } from './arbitraries.ts';
import { bytes, choices, split, streamAgreesWithObjectApi, transformChunks, writeJson } from './stream-helpers.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Transform = (s: string) => string;

// ---- the reference: the policy as the MCP schema states it, written as plainly as possible ----

const PARAMS_IDS = ['progressToken', 'requestId', 'protocolVersion', 'cursor', 'taskId', 'elicitationId', 'url'];
const RESULT_IDS = ['protocolVersion', 'nextCursor', 'taskId'];
const DATA_URI = /^data:[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]*;base64,[A-Za-z0-9+/_-]*={0,2}$/i;

/**
 * `uris`: encoding's token prefix, whole data: URIs without it (any ASCII case) keep their
 * base64 (after the first comma; the header is text); false: decoding, which restores a token
 * in one too.
 */
function refPayload(v: Json, f: Transform, uris: string | false): Json {
  if (typeof v === 'string') {
    if (uris === false || !DATA_URI.test(v) || v.toLowerCase().includes(uris.toLowerCase())) return f(v);
    const body = v.indexOf(',') + 1;
    return f(v.slice(0, body)) + v.slice(body);
  }
  if (Array.isArray(v)) return v.map((x) => refPayload(x, f, uris));
  if (v === null || typeof v !== 'object') return v;
  const out: { [k: string]: Json } = {};
  const media = v.type === 'image' || v.type === 'audio';
  for (const [k, x] of Object.entries(v)) {
    const opaque = k === '_meta' || (k === 'data' && media) || (k === 'blob' && 'uri' in v);
    out[f(k)] = opaque ? x : refPayload(x, f, uris);
  }
  return out;
}

/** A JSON Schema with maxLength multiplied by `k` in schema positions only. */
function refWiden(schema: Json, k: number): Json {
  if (Array.isArray(schema)) return schema.map((s) => refWiden(s, k));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: { [k: string]: Json } = {};
  for (const [key, x] of Object.entries(schema)) {
    if (key === '_meta') out[key] = x;
    else if (key === 'maxLength' && typeof x === 'number' && Number.isInteger(x) && x >= 0 && x * k <= Number.MAX_SAFE_INTEGER)
      out[key] = x * k;
    else if (
      ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'].includes(key) &&
      x &&
      typeof x === 'object' &&
      !Array.isArray(x)
    ) {
      out[key] = Object.fromEntries(Object.entries(x).map(([name, s]) => [name, name === '_meta' ? s : refWiden(s, k)]));
    } else if (['const', 'default', 'enum', 'examples'].includes(key)) out[key] = x;
    else out[key] = refWiden(x, k);
  }
  return out;
}

/** The reference for one message: ids kept by path, then payload rules, then widening. */
function refMessage(m: Json, f: Transform, widen: number, uris: string | false): Json {
  if (Array.isArray(m)) return m.map((x) => refMessage(x, f, widen, uris));
  if (m === null || typeof m !== 'object') return m;
  const out: { [k: string]: Json } = { ...m };
  const object = (x: Json | undefined): x is { [k: string]: Json } => x !== null && typeof x === 'object' && !Array.isArray(x);
  // The protocol fields: transform around them, then put them back as they were.
  const member = (value: Json, keep: string[]): Json => {
    if (!object(value)) return refPayload(value, f, uris);
    const t = refPayload(Object.fromEntries(Object.entries(value).filter(([k]) => !keep.includes(k))), f, uris) as { [k: string]: Json };
    const r: { [k: string]: Json } = {};
    for (const [k, x] of Object.entries(value)) r[keep.includes(k) ? k : f(k)] = keep.includes(k) ? x : t[f(k)]!;
    return r;
  };
  if ('params' in m) out.params = member(m.params!, PARAMS_IDS);
  if ('error' in m) out.error = refPayload(m.error!, f, uris);
  if ('result' in m) {
    const result = m.result!;
    out.result = member(result, RESULT_IDS);
    if (object(result) && object(out.result)) {
      const r = out.result;
      if (object(result.task) && object(r[f('task')])) r[f('task')] = member(result.task, ['taskId']);
      if (Array.isArray(result.tasks)) r[f('tasks')] = result.tasks.map((t) => member(t, ['taskId']));
      if (Array.isArray(result.tools) && widen) {
        r[f('tools')] = (r[f('tools')] as Json[]).map((tool) => {
          if (!object(tool)) return tool;
          const w = { ...tool };
          for (const s of ['inputSchema', 'outputSchema']) if (f(s) in w) w[f(s)] = refWiden(w[f(s)]!, widen);
          return w;
        });
      }
    }
  }
  return out;
}

// ---- generated MCP traffic with terms in every field ----

const term = fc.constantFrom(
  ...DEFAULT_TERMS.ascii.slice(0, 6),
  ...DEFAULT_TERMS.exact.slice(0, 3),
  'Qwen',
  '__mcp_ref_',
  '__mcp_ref_7177656e__',
);
const str = fc.oneof(term, fragmentString(4), fc.constantFrom('', 'a', '/tmp/x'));
// (A token too, and pieces of prefixes: decoding restores a token in a data: URI, so encoding
// keeps a whole one only without the prefix.)
const b64 = fc
  .array(
    fc.constantFrom('qwen', 'QWEN', 'cXdl', 'bg', 'A', '+', '/', '_', '-', '__mcp_ref_7177656e__', '__MCP', '_ref_', '__cuaf_', 'CUAF'),
    { maxLength: 6 },
  )
  .map((p) => p.join(''));
const dataUri = fc
  .tuple(
    fc.constantFrom('data:', 'DATA:', 'Data:', 'dat:', ''),
    fc.constantFrom('image/png', 'text/plain;charset=qwen', '', 'a b', 'x,y', 'é', 'x/__mcp_ref_22__', 'x/__Cuaf_'),
    fc.constantFrom(';base64,', ';BASE64,', ';base64', ',', ';base64,;base64,'),
    b64,
    fc.constantFrom('', '=', '==', '===', ' qwen', '\\', '"'),
  )
  .map((parts) => parts.join(''));
const anyStr = fc.oneof({ weight: 3, arbitrary: str }, { weight: 1, arbitrary: dataUri });
const scalar = fc.oneof(anyStr, fc.integer({ min: -5, max: 100 }), fc.boolean(), fc.constant(null));
const value: fc.Arbitrary<Json> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(str, fc.constantFrom('_meta', 'data', 'blob', 'uri', 'type', 'taskId')), tie('v'), { maxKeys: 3 }),
  ),
})).v as fc.Arbitrary<Json>;

/** An object with these members in a random order (data before type, blob before uri...). */
const shuffled = (members: fc.Arbitrary<[string, Json][]>) =>
  fc.tuple(members, fc.array(fc.nat(), { maxLength: 8 })).map(([entries, order]) => {
    const e = [...entries]; // (never reorder what fast-check generated)
    for (let i = e.length - 1; i > 0; i--) {
      const j = (order[i % Math.max(1, order.length)] ?? 0) % (i + 1);
      [e[i], e[j]] = [e[j]!, e[i]!];
    }
    return Object.fromEntries(e) as Json;
  });
const some = (pairs: [string, fc.Arbitrary<Json>][]) =>
  fc
    .tuple(
      ...pairs.map(([k, a]) =>
        fc.option(
          a.map((v) => [k, v] as [string, Json]),
          { nil: undefined },
        ),
      ),
    )
    .map((xs) => xs.filter((x): x is [string, Json] => x !== undefined));

const schemaLeaf = shuffled(
  some([
    ['type', fc.constantFrom('string', 'object', 'array')],
    ['maxLength', fc.oneof(fc.nat(50), fc.constant(2 ** 52), fc.constant(-1), fc.constant(2.5))],
    ['enum', fc.array(str, { maxLength: 2 })],
    ['default', fc.oneof(scalar, fc.record({ maxLength: fc.nat(9) }))],
    ['const', fc.record({ maxLength: fc.nat(9) })],
    ['description', str],
  ]),
);
const schema: fc.Arbitrary<Json> = fc.letrec((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    schemaLeaf,
    shuffled(
      some([
        ['type', fc.constant('object')],
        ['maxLength', fc.nat(50)],
        [
          'properties',
          fc.dictionary(fc.oneof(str, fc.constantFrom('maxLength', 'default', 'properties', '_meta')), tie('s') as fc.Arbitrary<Json>, {
            maxKeys: 2,
          }) as fc.Arbitrary<Json>,
        ],
        ['items', tie('s') as fc.Arbitrary<Json>],
        ['anyOf', fc.array(tie('s') as fc.Arbitrary<Json>, { maxLength: 2 }) as fc.Arbitrary<Json>],
        ['default', fc.record({ maxLength: fc.nat(9) })],
      ]),
    ),
  ),
})).s;
const content = shuffled(
  some([
    ['type', fc.constantFrom('text', 'image', 'audio', 'resource')],
    ['text', anyStr],
    ['data', anyStr],
    ['mimeType', str],
    ['_meta', value],
  ]),
);
const resource = shuffled(
  some([
    ['uri', str],
    ['blob', anyStr],
    ['text', anyStr],
    ['mimeType', str],
  ]),
);
// (`details` nests the same keys one level deeper, where they are payload again.)
const nestedIds = fc.record({ taskId: str, inputSchema: fc.record({ maxLength: fc.nat(9) }), progressToken: str });
const tool = shuffled(
  some([
    ['name', str],
    ['description', str],
    ['inputSchema', schema],
    ['outputSchema', schema],
    ['_meta', value],
    ['details', nestedIds],
  ]),
);
const task = shuffled(
  some([
    ['taskId', str],
    ['status', str],
    ['statusMessage', str],
    ['details', nestedIds],
  ]),
);
const params = shuffled(
  some([
    ['progressToken', fc.oneof(str, fc.integer())],
    ['requestId', fc.oneof(str, fc.integer())],
    ['protocolVersion', str],
    ['cursor', str],
    ['taskId', str],
    ['elicitationId', str],
    ['url', str],
    ['name', str],
    ['arguments', value],
    ['_meta', value],
    ['message', anyStr],
    ['uri', str],
    ['details', nestedIds],
  ]),
);
const result = shuffled(
  some([
    ['protocolVersion', str],
    ['nextCursor', str],
    ['taskId', str],
    ['task', task],
    ['tasks', fc.array(task, { maxLength: 2 })],
    ['tools', fc.array(tool, { maxLength: 2 })],
    ['content', fc.array(content, { maxLength: 3 })],
    ['contents', fc.array(resource, { maxLength: 2 })],
    ['structuredContent', value],
    ['_meta', value],
    ['cursor', str],
  ]),
);
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), method: str, params }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), str), result }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), error: fc.record({ code: fc.integer(), message: anyStr, data: value }) }),
  fc.record({ params: result, result: params }), // the rules are by path: a member's name decides
) as fc.Arbitrary<Json>;
const traffic = fc.oneof({ weight: 4, arbitrary: message }, { weight: 1, arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }) });

const FORMATS = [{}, { prefix: '__cuaf_', hexCase: 'upper' as const }];

describe('field policy: the object API', () => {
  for (const options of FORMATS) {
    const codec = createCodec(options);
    const widen = schemaWidening(expandPatterns(codec.options.terms, codec.options.prefix), codec.options.prefix, codec.options.suffix);
    it(`encodes every field the reference encodes, and no other (${JSON.stringify(options)})`, () => {
      fc.assert(
        fc.property(traffic, (m) => {
          expect(codec.encodeMessage(m)).toEqual(refMessage(m, codec.encodeText, widen, codec.options.prefix));
        }),
        runs(400),
      );
    });
    it(`decodes every field the reference decodes, and no other (${JSON.stringify(options)})`, () => {
      fc.assert(
        fc.property(traffic, (m) => {
          let want: Json;
          try {
            want = refMessage(m, codec.decodeText, 0, false);
          } catch {
            return;
          }
          const keys = (v: Json): boolean =>
            Array.isArray(v) ? v.every(keys) : v && typeof v === 'object' ? Object.values(v).every(keys) : true;
          try {
            expect(codec.decodeMessage(m)).toEqual(want);
          } catch (e) {
            if (!(e instanceof PayloadKeyCollisionError)) throw e; // (keys that decode alike: the reference merges them)
            expect(keys(m)).toBe(true);
          }
        }),
        runs(400),
      );
    });
  }

  it('keeps each protocol field of the MCP schema, by path', () => {
    const q = 'qwen-1';
    const e = encodeText(q);
    const codec = createCodec();
    const p = codec.encodeMessage({
      jsonrpc: '2.0',
      method: 'x',
      params: {
        progressToken: q,
        requestId: q,
        protocolVersion: q,
        cursor: q,
        taskId: q,
        elicitationId: q,
        url: q,
        nextCursor: q,
        other: q,
        _meta: { progressToken: q, x: [q] },
      },
    });
    expect(p.params).toEqual({
      progressToken: q,
      requestId: q,
      protocolVersion: q,
      cursor: q,
      taskId: q,
      elicitationId: q,
      url: q,
      nextCursor: e,
      other: e,
      _meta: { progressToken: q, x: [q] },
    });
    const r = codec.encodeMessage({
      jsonrpc: '2.0',
      id: q,
      result: {
        protocolVersion: q,
        nextCursor: q,
        taskId: q,
        cursor: q,
        task: { taskId: q, statusMessage: q },
        tasks: [{ taskId: q, status: q }],
        deep: { taskId: q },
      },
    });
    expect(r).toEqual({
      jsonrpc: '2.0',
      id: q,
      result: {
        protocolVersion: q,
        nextCursor: q,
        taskId: q,
        cursor: e,
        task: { taskId: q, statusMessage: e },
        tasks: [{ taskId: q, status: e }],
        deep: { taskId: e },
      },
    });
    // error has no protocol fields; a bare value has only _meta and the opaque ones
    expect(codec.encodeMessage({ jsonrpc: '2.0', id: 1, error: { code: 1, message: q, data: { taskId: q } } }).error).toEqual({
      code: 1,
      message: e,
      data: { taskId: e },
    });
    expect(codec.encodeValue({ progressToken: q, _meta: { q } })).toEqual({ progressToken: e, _meta: { q } });
  });

  it('keeps opaque base64 byte for byte: media data, resource blob, whole data: URIs', () => {
    const codec = createCodec();
    const b = 'qwenQWEN+/==';
    const v = {
      a: { type: 'image', data: b },
      b: { data: b, type: 'audio' },
      c: { uri: 'file:///qwen', blob: b },
      d: { blob: b, mimeType: 'x', uri: 'u' },
      e: { blob: b }, // no uri: not resource contents
      f: 'data:image/png;base64,' + b,
      g: 'see data:image/png;base64,' + b,
      h: 'data:text/plain,qwen',
    };
    const out = codec.encodeValue(v);
    expect([out.a.data, out.b.data, out.c.blob, out.d.blob, out.f]).toEqual([b, b, b, b, v.f]);
    expect(out.c.uri).toBe(encodeText('file:///qwen'));
    expect(out.e.blob).toBe(encodeText(b));
    expect(out.g).toBe(encodeText(v.g));
    expect(out.h).toBe(encodeText(v.h));
    expect(codec.decodeValue(out)).toEqual(v);
  });

  it('recognises data: URIs exactly as the definition says', () => {
    for (const s of ['data:;base64,', 'DATA:image/png;BASE64,qwen==', 'data:a;b=c;base64,-_', 'data:image/svg+xml;base64,qwen'])
      expect(isBase64DataUri(s)).toBe(true);
    for (const s of [
      'data:image/png;base64,qw en',
      'data:image/png,qwen',
      'data:a b;base64,qwen',
      'data:x;base64,qwen===',
      ' data:;base64,',
      'data:x;base64,a=b',
      'data:é;base64,',
      'data:x;base64x,',
    ])
      expect(isBase64DataUri(s)).toBe(false);
  });
});

describe('field policy: maxLength widening keeps encoded values valid', () => {
  const options = fc.record({
    prefix: fc.constantFrom('__mcp_ref_', '__cuaf_', '<<', '§'.replace('§', '@@')),
    suffix: fc.constantFrom('__', '>>', '_Z'),
    terms: fc.constant(undefined),
  });
  it('no string of n code points encodes to more than n x the factor', () => {
    fc.assert(
      fc.property(
        options,
        fc.array(fc.oneof(fragmentString(6), fc.constantFrom('通', '阿里', 'qwen', '__mcp_ref_', '__cuaf_', '😀')), { maxLength: 8 }),
        (o, parts) => {
          let codec: Codec;
          try {
            codec = createCodec({ prefix: o.prefix, suffix: o.suffix });
          } catch {
            return; // (options the codec refuses)
          }
          const widen = schemaWidening(
            expandPatterns(codec.options.terms, codec.options.prefix),
            codec.options.prefix,
            codec.options.suffix,
          );
          const s = parts.join('');
          expect([...codec.encodeText(s)].length).toBeLessThanOrEqual([...s].length * widen);
        },
      ),
      runs(500),
    );
  });

  it('the worst case is reached: a term of the set is as long as the bound allows, rounded', () => {
    const codec = createCodec();
    const widen = schemaWidening(expandPatterns(codec.options.terms, codec.options.prefix), codec.options.prefix, codec.options.suffix);
    const worst = Math.max(
      ...expandPatterns(codec.options.terms, codec.options.prefix).map((p) => encodeText(p.text).length / [...p.text].length),
    );
    expect(widen).toBe(Math.ceil(worst));
    expect(widen).toBeGreaterThan(1);
  });
});

describe('field policy: the streams agree with the object API', () => {
  for (const options of FORMATS) {
    for (const mode of ['encode', 'decode'] as const) {
      it(`${mode} (${JSON.stringify(options)}), however the input is written and split`, () => {
        fc.assert(
          fc.property(
            fc.array(fc.tuple(traffic, choices), { minLength: 1, maxLength: 3 }),
            fc.array(fc.nat(3000), { maxLength: 10 }),
            (items, cuts) => {
              streamAgreesWithObjectApi(mode, options, items.map(([m, c]) => writeJson(m, c) + '\n').join(''), cuts);
            },
          ),
          runs(300),
        );
      });
    }
  }

  // Terms inside the policy's own key names (`cursor`, `_meta`, `type`, `maxLength`...): the key
  // is encoded, and its rule is the one its name as written gives, in both APIs (decoding, the
  // encoded name: what the object API encoded, so keys hold tokens of those names). No default
  // term is inside such a name, so the formats above cannot tell which name a rule is read from.
  const POLICY_TERMS = {
    terms: { ascii: ['qwen', 'type', 'data', 'uri', 'blob', 'meta', 'cursor', 'task', 'token', 'length', 'schema', 'version', 'tools'] },
  };
  const policyCodec = createCodec(POLICY_TERMS);
  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode} under terms spelt inside protocol and media keys, however written and split`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(traffic, choices), { minLength: 1, maxLength: 3 }),
          fc.array(fc.nat(3000), { maxLength: 10 }),
          (items, cuts) => {
            const input = items.map(([m, c]) => writeJson(mode === 'encode' ? m : policyCodec.encodeMessage(m), c) + '\n');
            streamAgreesWithObjectApi(mode, POLICY_TERMS, input.join(''), cuts);
          },
        ),
        runs(100),
      );
    });
  }

  it('keeps protocol fields and opaque values byte for byte, escapes included', () => {
    const m =
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"q\\u0077en-1","_meta":{"Qwen":"\\/qwen"},"message":"qwen"}}\n' +
      '{"jsonrpc":"2.0","id":1,"result":{"contents":[{"blob":"cXdlbg==qwen","uri":"x"}],"icon":"data:image\\/png;base64,qwen","nextCursor":"qwen"}}\n';
    const out = transformChunks('encode', {}, [bytes(m)]);
    expect(out).toBe(m.replace('"message":"qwen"', `"message":"${encodeText('qwen')}"`));
    for (let cut = 0; cut <= m.length; cut += 7) expect(transformChunks('encode', {}, split(bytes(m), [cut]))).toBe(out);
  });

  it('widens maxLength written as digits (and .0), and leaves other numbers as written', () => {
    const codec = createCodec();
    const widen = schemaWidening(expandPatterns(codec.options.terms, codec.options.prefix), codec.options.prefix, codec.options.suffix);
    const m = (n: string) =>
      `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","maxLength":${n}}}}}]}}\n`;
    expect(transformChunks('encode', {}, [bytes(m('12'))])).toBe(m(String(12 * widen)));
    expect(transformChunks('encode', {}, [bytes(m('0'))])).toBe(m('0'));
    expect(transformChunks('encode', {}, [bytes(m('12.000'))])).toBe(m(String(12 * widen)));
    for (const n of ['-1', '12.5', '1e2', '123456789012345678901234567890', String(2 ** 53)])
      expect(transformChunks('encode', {}, [bytes(m(n))])).toBe(m(n));
    expect(transformChunks('decode', {}, [bytes(m('12'))])).toBe(m('12')); // decoding never narrows
  });
});
