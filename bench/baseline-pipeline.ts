// The baselines for byte streams: what people write with JSON.parse, the regex walk's rules
// (baseline-walk.ts) on every message. `pipeline` is the plain one: the whole input decoded
// to one string and split, every line parsed, walked into a copy and stringified, the lines
// joined and encoded. `carefulPipeline` is what a careful engineer writes, so that no ratio
// rests on the plain one's garbage: lines found in the bytes, each decoded by one reused
// TextDecoder, its parsed value (fresh, so ours to change) transformed in place, and the text
// written by encodeInto into one output buffer kept from call to call. Both give the same bytes.
import { createRegexCodec } from './baseline-regex.ts';
import { createWalkCodec } from './baseline-walk.ts';

type Mode = 'encode' | 'decode';
type Mapper = (s: string) => string;

const walker = createWalkCodec();
const regex = createRegexCodec();

export function pipeline(mode: Mode, input: Uint8Array): Uint8Array {
  const f = mode === 'encode' ? walker.encodeMessage : walker.decodeMessage;
  const lines = new TextDecoder().decode(input).split('\n');
  return new TextEncoder().encode(lines.map((l) => (l ? JSON.stringify(f(JSON.parse(l))) : l)).join('\n'));
}

/** baseline-walk.ts's walk, changing the value in place; an object is rebuilt only when a key changes (to keep the order). */
function walkInPlace(v: unknown, f: Mapper): unknown {
  if (typeof v === 'string') return f(v);
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = walkInPlace(v[i], f);
    return v;
  }
  const o = v as Record<string, unknown>;
  const media = o.type === 'image' || o.type === 'audio';
  const keys = Object.keys(o);
  const mapped = keys.map(f);
  const renamed = mapped.some((k, i) => k !== keys[i]);
  const out: Record<string, unknown> = renamed ? {} : o;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out[mapped[i]!] = media && k === 'data' ? o[k] : walkInPlace(o[k], f);
  }
  return out;
}

function messageInPlace(m: unknown, f: Mapper): unknown {
  if (Array.isArray(m)) {
    for (let i = 0; i < m.length; i++) m[i] = messageInPlace(m[i], f);
    return m;
  }
  const o = m as Record<string, unknown>;
  for (const field of ['params', 'result', 'error']) if (field in o) o[field] = walkInPlace(o[field], f);
  return o;
}

/** A careful pipeline for one direction; each call's output is a view of its buffer, valid until the next call. */
export function carefulPipeline(mode: Mode): (input: Uint8Array) => Uint8Array {
  const f = mode === 'encode' ? regex.encodeText : regex.decodeText;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let out = new Uint8Array(1 << 20);
  return (input) => {
    let w = 0;
    for (let start = 0; start < input.length; ) {
      let nl = input.indexOf(10, start);
      if (nl < 0) nl = input.length;
      const text = nl > start ? JSON.stringify(messageInPlace(JSON.parse(decoder.decode(input.subarray(start, nl))), f)) : '';
      if (out.length - w < 3 * text.length + 1) {
        // (3 bytes per UTF-16 unit at most: room for the line and its newline)
        const grown = new Uint8Array(Math.max(2 * out.length, w + 3 * text.length + 1));
        grown.set(out.subarray(0, w));
        out = grown;
      }
      if (text) w += encoder.encodeInto(text, out.subarray(w)).written;
      if (nl < input.length) out[w++] = 10;
      start = nl + 1;
    }
    return out.subarray(0, w);
  };
}
