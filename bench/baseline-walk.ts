// Baseline for values and messages: the recursive object walk people write today, applying the
// regex codec to every key and string (image/audio data kept, envelope untouched).
import { createRegexCodec } from './baseline-regex.ts';

type Mapper = (s: string) => string;

export function walk(v: unknown, f: Mapper): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => walk(x, f));
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    const media = o.type === 'image' || o.type === 'audio';
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(o)) out[f(k)] = media && k === 'data' ? o[k] : walk(o[k], f);
    return out;
  }
  return v;
}

export function createWalkCodec() {
  const regex = createRegexCodec();
  const message = (m: unknown, f: Mapper): unknown => {
    if (Array.isArray(m)) return m.map((x) => message(x, f));
    const o = { ...(m as Record<string, unknown>) };
    for (const field of ['params', 'result', 'error']) if (field in o) o[field] = walk(o[field], f);
    return o;
  };
  return {
    encodeMessage: (m: unknown) => message(m, regex.encodeText),
    decodeMessage: (m: unknown) => message(m, regex.decodeText),
  };
}
