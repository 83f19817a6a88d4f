// Compiled codecs: a term set and token format compiled once (automaton, core tables, the
// string transforms of both directions) and cached for codecs and streams with equal options.
import { compileAutomaton } from '../compile/index.js';
import { type Descriptor, writeDescriptor } from '../core/descriptor.js';
import { encodeJob, encodeString, SHORT_STRING, type StringJob, sliced } from '../core/encode-string.js';
import { memoise } from '../util/memoise.js';
import { dataUriPayload, keptText } from './data-uri-text.js';
import type { ResolvedOptions } from './options.js';
import { schemaWidening } from './protocol-fields.js';
import { compileShortMatcher } from './short-match.js';
import { compileTokenDecode } from './token-decode.js';
import { compileTokenEncode, HEX_DIGITS } from './token-encode.js';
import { mapWellFormed } from './well-formed.js';

/** One direction (encode or decode) of a compiled codec. */
export interface Direction {
  /** The string transform. */
  readonly text: (s: string) => string;
  /** The same, memoised: keys repeat across objects (every app has a "name"). */
  readonly key: (s: string) => string;
}

export interface Compiled {
  /** The core's tables for this term set and format (the streams run on them). */
  readonly desc: Descriptor;
  /** Encoding through the core (what encode.text uses past the short strings). */
  readonly encodeJob: StringJob;
  readonly encode: Direction;
  /**
   * The object API's string values encoded: a data: URI keeps its payload (dataUriPayload),
   * and short ones repeat (names, ids, paths) and are memoised whole (see VALUE_MEMO).
   */
  readonly valueText: (s: string) => string;
  readonly decode: Direction;
  /** Worst-case output bytes per input byte of encoded text. */
  readonly expansion: number;
  /** The factor `maxLength` grows by in encoded tool schemas (protocol-fields.ts). */
  readonly widen: number;
}

/**
 * Compiled codecs kept for reuse, least recently used first. A codec or stream keeps its own
 * compiled form as long as it lives; this only bounds what is kept for options seen before.
 */
const compiled = new Map<string, Compiled>();
export const MAX_COMPILED = 16;
/** The last one asked for (the most recent in `compiled`). */
let last: { key: string; c: Compiled } | undefined;

/** The directions for a set of options, compiled once per distinct term set and format (while cached). */
export function compile(o: ResolvedOptions): Compiled {
  if (last?.key === o.key) return last.c; // (the most recent already: a stream per response asks again and again)
  let c = compiled.get(o.key);
  if (c) {
    compiled.delete(o.key);
    compiled.set(o.key, c);
    last = { key: o.key, c };
    return c;
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  const automaton = compileAutomaton(o.patterns);
  const hex = HEX_DIGITS[o.hexCase];
  // Core calls are synchronous and never interleave, so one descriptor serves every job.
  // A folded match may be one code point of up to 4 bytes standing for a whole term (`℡`).
  const folded =
    automaton.minMatchCodePoints === undefined ? 1 : Math.ceil((o.prefix.length + o.suffix.length) / automaton.minMatchCodePoints + 8);
  const widen = Math.max(schemaWidening(o.patterns, o.prefix, o.suffix), folded);
  const desc = writeDescriptor(automaton, o.prefix, o.suffix, hex, widen);
  const encode = encodeJob(desc, compileTokenEncode(o.prefix, o.suffix, o.hexCase), automaton.minPatternBytes);
  const matchShort = compileShortMatcher(automaton);
  // Tokens are restored in JS at every length (see token-decode.ts for why).
  const decodeTokens = compileTokenDecode(o.prefix, o.suffix);
  // Short strings are matched in JS on the core's own tables (no crossing into WASM).
  const encodeText = encodeDirection(encode, (s) => {
    const found = matchShort(s);
    if (found === undefined || found.length === 0) return found && s;
    return sliced(encode, s, found);
  });
  const keptFrom = dataUriPayload(o.prefix);
  c = {
    desc,
    encodeJob: encode,
    encode: encodeText,
    // (Here, not per codec: a codec per connection would hold a memo of its own.)
    valueText: memoise((s) => keptText(s, encodeText.text, keptFrom), VALUE_MEMO, SHORT_VALUE),
    decode: { text: decodeTokens, key: memoiseShort(decodeTokens) },
    expansion: 2 + (o.prefix.length + o.suffix.length) / automaton.minPatternBytes,
    widen,
  };
  compiled.set(o.key, c);
  last = { key: o.key, c };
  return c;
}

/**
 * `short` settles a string of at most SHORT_STRING code units without the core, or returns
 * undefined to leave it to the core.
 */
function encodeDirection(job: StringJob, short: (s: string) => string | undefined): Direction {
  const text = (s: string): string => {
    if (s.length === 0) return s;
    if (s.length <= SHORT_STRING) {
      const settled = short(s);
      if (settled !== undefined) return settled;
    }
    const out = encodeString(job, s); // undefined if s holds a lone surrogate
    return out ?? mapWellFormed(s, (piece) => encodeString(job, piece)!);
  };
  return { text, key: memoiseShort(text) };
}

/**
 * String values up to this length are memoised (up to VALUE_MEMO of them): in the 3,000-app
 * list they are three strings in four and 484 distinct ones; the longer ones (window titles,
 * descriptions) are nearly all distinct and would only flush the cache. 8,192, not the keys'
 * 2,048: 2,000 key-heavy messages hold 6,683 distinct short values (ids, times) among common
 * ones, and a smaller cache, flushed by the ids, cost 1.09x the matcher alone. Held per
 * compiled term set (not per codec): under 1 MB when most values are unchanged (their result
 * is the value itself), about 7 MB if all were CJK terms.
 */
const SHORT_VALUE = 32;
const VALUE_MEMO = 8192;

/** Keys are memoised only when short: long keys are rare and would crowd the cache. */
const memoiseShort = (f: (s: string) => string) => memoise(f, 2048, SHORT_STRING);
