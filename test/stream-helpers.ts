// Running a TransformStream over chunks, and writing JSON text the way varied producers do.
import fc from 'fast-check';
import { createCodec, PayloadKeyCollisionError } from '../src/index.ts';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { concat } from '../src/util/concat.ts';
import { expectBe, expectEqual } from './quick-expect.ts';

export const bytes = (s: string) => new TextEncoder().encode(s);
/** Each UTF-16 unit of `s` as one byte (bytes that are not UTF-8 written as text). */
export const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
export const text = (b: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true, fatal: true }).decode(b);

/** Pipes `chunks` through `stream` and returns everything it wrote, or throws its error. */
export async function run(stream: TransformStream<Uint8Array, Uint8Array>, chunks: Uint8Array[]): Promise<Uint8Array> {
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  const parts: Uint8Array[] = [];
  await source.pipeThrough(stream).pipeTo(new WritableStream({ write: (p) => void parts.push(p) }));
  return parts.length === 0 ? new Uint8Array(0) : concat(parts).slice();
}

/** Splits `data` at the given cut points (sorted, deduplicated, in range). */
export function split(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(data.length, c))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const p of points) {
    if (p > from) out.push(data.slice(from, p));
    from = p;
  }
  if (from < data.length) out.push(data.slice(from));
  return out;
}

/** Each byte of `data` as a chunk of its own (not `new Uint8Array([b])`, which builds an array first: 5x the time). */
export function oneByteChunks(data: Uint8Array): Uint8Array[] {
  const out = new Array<Uint8Array>(data.length);
  for (let i = 0; i < data.length; i++) {
    const one = new Uint8Array(1);
    one[0] = data[i]!;
    out[i] = one;
  }
  return out;
}

/**
 * Every input one byte away from `seed`: each byte replaced by every other value, every value
 * inserted at every place, each byte deleted (about 511 inputs per byte of the seed).
 */
export function* oneByteAway(seed: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at <= seed.length; at++) {
    if (at < seed.length) {
      const d = new Uint8Array(seed.length - 1);
      d.set(seed.subarray(0, at));
      d.set(seed.subarray(at + 1), at);
      yield d;
    }
    for (let c = 0; c < 256; c++) {
      if (at < seed.length && seed[at] !== c) {
        const s = seed.slice();
        s[at] = c;
        yield s;
      }
      const s = new Uint8Array(seed.length + 1);
      s.set(seed.subarray(0, at));
      s[at] = c;
      s.set(seed.subarray(at), at + 1);
      yield s;
    }
  }
}

/**
 * JSON text for a value, with choices a real producer might make: escaped characters (\uXXXX,
 * including surrogate pairs, \/ and the short forms), whitespace between tokens, and numbers
 * as written. `choices` drives the randomness so fast-check can shrink it.
 */
export function writeJson(value: unknown, choices: number[]): string {
  let k = 0;
  const next = () => choices[k++ % Math.max(1, choices.length)] ?? 0;
  const ws = () => [' ', '', ' \r ', '\t', '', ''][next() % 6]!; // no '\n': NDJSON ends lines there
  const str = (s: string) => {
    let out = '"';
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      const r = next() % 5;
      if (ch === '"' || ch === '\\' || c < 0x20) out += JSON.stringify(ch).slice(1, -1);
      else if (ch.length === 1 && ch >= '\uD800' && ch <= '\uDFFF') out += `\\u${c.toString(16).padStart(4, '0')}`;
      else if (r === 0) {
        // escape the UTF-16 code units of this character
        for (let i = 0; i < ch.length; i++)
          out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`.replace(/[a-f]/g, (x) => (next() % 2 ? x.toUpperCase() : x));
      } else if (r === 1 && ch === '/') out += '\\/';
      else out += ch;
    }
    return out + '"';
  };
  const write = (v: unknown): string => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return `[${ws()}${v.map((x) => write(x)).join(`${ws()},${ws()}`)}${ws()}]`;
    if (v && typeof v === 'object')
      return `{${ws()}${Object.entries(v)
        .map(([key, x]) => `${str(key)}${ws()}:${ws()}${write(x)}`)
        .join(`,${ws()}`)}${ws()}}`;
    return JSON.stringify(v);
  };
  return write(value);
}

export const choices = fc.array(fc.nat(1000), { minLength: 1, maxLength: 40 });

/**
 * One direction of the synchronous byte transformer over `chunks`: everything it wrote, as
 * text. `internal`: byteTransformer's (`lines: false`, the per-message path only).
 */
export function transformChunks(
  mode: 'encode' | 'decode',
  options: object,
  chunks: Uint8Array[],
  internal: { lines?: boolean } = {},
): string {
  const out: Uint8Array[] = [];
  const t = byteTransformer(mode, options, (b) => void out.push(b.slice()), internal);
  for (const c of chunks) t.push(c);
  t.close();
  return text(Buffer.concat(out));
}

const lines = (ndjson: string) =>
  ndjson
    .split('\n')
    .slice(0, -1)
    .map((l) => JSON.parse(l) as unknown);

/**
 * The property the streams are held to (field policy, fuzz regressions): NDJSON `input`, cut at
 * `cuts`, comes out as the object API transforms each message, and as the same bytes as whole.
 * Input the object API refuses (a key collision) proves nothing and passes; so does a decode
 * stream refusing duplicate keys that JSON.parse merged.
 */
export function streamAgreesWithObjectApi(mode: 'encode' | 'decode', options: object, input: string, cuts: number[]): void {
  const codec = createCodec(options);
  let want: unknown[];
  try {
    want = lines(input).map((m) => (mode === 'encode' ? codec.encodeMessage(m) : codec.decodeMessage(m)));
  } catch (e) {
    if (e instanceof PayloadKeyCollisionError) return;
    throw e;
  }
  const data = bytes(input);
  let out: string;
  try {
    out = transformChunks(mode, options, split(data, cuts));
  } catch (e) {
    if (mode === 'decode' && e instanceof PayloadKeyCollisionError) return;
    throw e;
  }
  expectEqual(lines(out), want);
  expectBe(out, transformChunks(mode, options, [data]));
}
