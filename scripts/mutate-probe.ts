// The probe of `npm run mutate` (scripts/mutate.mjs): a fixed corpus in the shapes the suite
// draws (fragments of terms and tokens, awkward characters, MCP messages written raw and with
// escapes, JSONTestSuite's documents, several codecs, three framings, whole and cut) through
// the object API, the byte streams and the integrity checks. It prints one hash of everything
// they wrote, threw and reported. A surviving mutant whose hash is the unmutated one changes
// nothing the probe can see (only speed, or a path no input reaches): it is classed as
// equivalent, and kept out of the score, but listed.
//
//   node scripts/run-ts.mjs scripts/mutate-probe.ts
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { type CodecOptions, createCodec, findReplacementBytes, findReplacementCharacters } from '../src/index.ts';
import { createByteTransformer } from '../src/stream/index.ts';
import { anyString, fragmentString } from '../test/arbitraries.ts';

const hash = createHash('sha256');
const note = (...parts: unknown[]) => hash.update(`${JSON.stringify(parts)}\n`);
const failure = (e: unknown) => {
  const x = e as { name?: string; code?: string; message?: string; messageNumber?: number; byteOffset?: number };
  return ['threw', x.name, x.code, x.message, x.messageNumber, x.byteOffset];
};
const attempt = (label: string, f: () => unknown) => {
  try {
    note(label, f());
  } catch (e) {
    note(label, failure(e));
  }
};

const SEED = 20261206;
const texts = [
  ...fc.sample(fragmentString(24), { seed: SEED, numRuns: 250 }),
  ...fc.sample(anyString(60), { seed: SEED, numRuns: 60 }),
  '\u{10000}\u{103FF}\u{1F7FF}\u{10FFFF}',
  'Qwen'.repeat(300),
  'data:image/png;base64,UXdlbg==',
];

/** JSON text for s with every character past ASCII written as \u escapes, hex case by index. */
const escaped = (s: string, k: number) =>
  `"${[...s]
    .map((ch) => {
      const units = [...Array(ch.length).keys()].map((i) => ch.charCodeAt(i));
      if (ch.length === 1 && units[0]! >= 0x20 && units[0]! < 0x7f && ch !== '"' && ch !== '\\') return ch;
      return units
        .map((u) => `\\u${u.toString(16).padStart(4, '0')}`)
        .map((e) => (k % 2 ? e.toUpperCase().replace('\\U', '\\u') : e))
        .join('');
    })
    .join('')}"`;

const messages = (s: string, k: number) => [
  JSON.stringify({ jsonrpc: '2.0', id: k, result: { content: [{ type: 'text', text: s }], [s]: s } }),
  `{"jsonrpc":"2.0","id":${k},"result":{"text":${escaped(s, k)},"k":{${escaped(s, k + 1)}:1}}}`,
  JSON.stringify({
    jsonrpc: '2.0',
    id: k,
    result: {
      tools: [
        { name: s, inputSchema: { type: 'object', properties: { [s]: { type: 'string', maxLength: k } }, default: { maxLength: k } } },
      ],
    },
  }),
  JSON.stringify({
    jsonrpc: '2.0',
    id: k,
    result: {
      content: [
        { type: 'image', data: s, mimeType: 'image/png' },
        { data: s, type: 'audio' },
      ],
    },
  }),
  JSON.stringify({
    jsonrpc: '2.0',
    id: k,
    result: {
      contents: [
        { uri: s, blob: s },
        { blob: s, uri: 'x' },
      ],
      _meta: { s },
    },
  }),
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: s, message: s, progress: 0.5 } }),
];

const codecs: CodecOptions[] = [
  {},
  { prefix: '__cuaf_', hexCase: 'upper' },
  { terms: { exact: ['\u{1F7FF}', '\u{10000}y', 'a"b', '\t'], ascii: ['vwxyz'], pairs: [['ali', 'cloud']] } },
  { terms: { ascii: ['vwxyz'] } }, // (maxLength widened by 4.4, rounded up: the others' factors are whole)
  { fold: 'nfkc' },
];

const jsonSuite = join('test', 'fixtures', 'json-test-suite');
const documents = readdirSync(jsonSuite)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => readFileSync(join(jsonSuite, f)));

const cut = (b: Uint8Array, every: number) => {
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += every) out.push(b.subarray(i, i + every));
  return out;
};

function stream(label: string, mode: 'encode' | 'decode', options: object, chunks: Uint8Array[]) {
  const out: string[] = [];
  const t = createByteTransformer(
    mode,
    {
      ...options,
      maxMessageBytes: 64 * 1024,
      onInvalidMessage: (e) => void out.push(JSON.stringify(failure(e))),
      onCollision: (e) => void out.push(JSON.stringify(failure(e))),
    },
    (b) => void out.push(Buffer.from(b).toString('hex')),
  );
  try {
    for (const c of chunks) t.push(c);
    t.close();
  } catch (e) {
    out.push(JSON.stringify(failure(e)));
  }
  note(label, mode, out.join(','));
}

const enc = new TextEncoder();
for (const [c, options] of codecs.entries()) {
  let codec: ReturnType<typeof createCodec>;
  try {
    codec = createCodec(options);
  } catch (e) {
    note('codec', c, failure(e));
    continue;
  }
  for (const s of texts) {
    attempt('encodeText', () => codec.encodeText(s));
    attempt('decodeText', () => codec.decodeText(s));
    attempt('decodeText(encodeText)', () => codec.decodeText(codec.encodeText(s)));
  }
  const lines = texts.flatMap((s, k) => messages(s, k));
  for (const line of lines) {
    attempt('encodeMessage', () => codec.encodeMessage(JSON.parse(line)));
    attempt('decodeMessage', () => codec.decodeMessage(JSON.parse(codec.encodeMessage(JSON.parse(line)) as never)));
  }
  const ndjson = enc.encode(lines.map((l) => `${l}\n`).join(''));
  const framed = enc.encode(lines.map((l) => `Content-Length: ${enc.encode(l).length}\r\n\r\n${l}`).join(''));
  const sse = enc.encode(lines.map((l, k) => `id: ${k}\ndata: ${l}\n\n`).join(''));
  for (const mode of ['encode', 'decode'] as const) {
    for (const every of [1 << 20, 7, 4096]) {
      stream(`ndjson ${c} ${every}`, mode, { ...options, framing: 'ndjson' }, cut(ndjson, every));
      stream(`content-length ${c} ${every}`, mode, { ...options, framing: 'content-length' }, cut(framed, every));
      stream(`sse ${c} ${every}`, mode, { ...options, framing: 'sse' }, cut(sse, every));
    }
  }
}
// JSONTestSuite: each document as a message's params, and as a Content-Length body.
for (const doc of documents) {
  const head = enc.encode('{"jsonrpc":"2.0","id":1,"method":"x","params":');
  const line = new Uint8Array([...head, ...doc, 0x7d, 0x0a]);
  for (const mode of ['encode', 'decode'] as const) {
    stream('json-test-suite ndjson', mode, {}, [line]);
    stream('json-test-suite content-length', mode, { framing: 'content-length' }, [
      enc.encode(`Content-Length: ${doc.length}\r\n\r\n`),
      doc,
    ]);
  }
}
for (const s of texts) {
  attempt('findReplacementCharacters', () => findReplacementCharacters({ text: s, list: [s, { s }] }));
  attempt('findReplacementBytes', () => findReplacementBytes(enc.encode(s)));
}
console.log(hash.digest('hex'));
