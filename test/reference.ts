// The oracle: a deliberately plain implementation of the wire-format semantics (the design
// card docs/DESIGN.md section 1, and docs/GUARANTEES.md), written for
// obviousness, not speed. It works on UTF-16 strings and tries, at every index, every pattern
// that starts with the unit there.

export interface ReferenceTerms {
  ascii: readonly string[];
  exact: readonly string[];
  pairs: readonly (readonly [string, string])[];
}

export interface ReferenceOptions {
  prefix: string;
  suffix: string;
  upper: boolean;
  terms: ReferenceTerms;
}

// (Most pieces hold no capital: those are returned as they are.)
const lowerAscii = (s: string) => (/[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (c) => c.toLowerCase()) : s);

interface Pattern {
  text: string;
  ignoreCase: boolean;
  /** `text` in lower case (ASCII), for the comparisons that ignore case. */
  lower: string;
}

// The oracle is asked at every index of every string: each options object's patterns and lower-case
// prefix are worked out once (options are never changed).
// `byFirst` files each pattern under its first unit in lower case (ASCII): only those can match
// where that unit is (term sets of thousands are tried at every index).
interface Table {
  patterns: Pattern[];
  prefix: string;
  byFirst: Map<string, Pattern[]>;
}
const tables = new WeakMap<ReferenceOptions, Table>();

function table(o: ReferenceOptions): Table {
  let t = tables.get(o);
  if (t) return t;
  const list = [
    ...o.terms.ascii.map((text) => ({ text, ignoreCase: true })),
    ...o.terms.exact.map((text) => ({ text, ignoreCase: false })),
    { text: o.prefix, ignoreCase: true },
  ];
  for (const [a, b] of o.terms.pairs) {
    for (const sep of ['', '-', '_', ' ']) list.push({ text: a + sep + b, ignoreCase: true });
  }
  const all = list.map((p) => ({ ...p, lower: lowerAscii(p.text) }));
  const byFirst = new Map<string, Pattern[]>();
  for (const p of all) {
    if (!p.text) continue; // (matches nowhere: longestMatchAt wants more than 0 units)
    const list = byFirst.get(p.lower[0]!);
    if (list) list.push(p);
    else byFirst.set(p.lower[0]!, [p]);
  }
  t = { patterns: all, prefix: lowerAscii(o.prefix), byFirst };
  tables.set(o, t);
  return t;
}

const patterns = (o: ReferenceOptions): Pattern[] => table(o).patterns;

function matchesAt(s: string, i: number, p: Pattern): boolean {
  const piece = s.slice(i, i + p.text.length);
  if (piece.length !== p.text.length) return false;
  return p.ignoreCase ? lowerAscii(piece) === p.lower : piece === p.text;
}

/** Length of the longest pattern starting at index i, or 0. */
export function longestMatchAt(s: string, i: number, o: ReferenceOptions): number {
  let best = 0;
  for (const p of table(o).byFirst.get(lowerAscii(s[i] ?? '')) ?? []) if (p.text.length > best && matchesAt(s, i, p)) best = p.text.length;
  return best;
}

function hex(text: string, upper: boolean): string {
  const h = Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('');
  return upper ? h.toUpperCase() : h;
}

export function referenceEncode(s: string, o: ReferenceOptions): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const n = longestMatchAt(s, i, o);
    if (n > 0) {
      out += o.prefix + hex(s.slice(i, i + n), o.upper) + o.suffix;
      i += n;
    } else {
      out += s[i];
      i += 1;
    }
  }
  return out;
}

function tokenAt(s: string, i: number, o: ReferenceOptions): { text: string; length: number } | undefined {
  const prefix = table(o).prefix;
  if (lowerAscii(s[i] ?? '') !== prefix[0]) return undefined; // (most indexes: no slice made)
  if (lowerAscii(s.slice(i, i + o.prefix.length)) !== prefix) return undefined;
  let j = i + o.prefix.length;
  let digits = '';
  while (j < s.length && /[0-9a-fA-F]/.test(s[j]!)) digits += s[j++];
  if (digits.length < 2 || digits.length % 2 !== 0) return undefined;
  if (!s.startsWith(o.suffix, j)) return undefined;
  const bytes = Uint8Array.from(digits.match(/../g)!, (h) => parseInt(h, 16));
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return { text, length: j + o.suffix.length - i };
  } catch {
    return undefined;
  }
}

export function referenceDecode(s: string, o: ReferenceOptions): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const token = tokenAt(s, i, o);
    if (token) {
      out += token.text;
      i += token.length;
    } else {
      out += s[i];
      i += 1;
    }
  }
  return out;
}

/** Every index where some term (not the prefix) starts, for "no term survives encoding". */
export function termPositions(s: string, o: ReferenceOptions): number[] {
  const terms = patterns(o).filter((p) => !(p.ignoreCase && p.lower === table(o).prefix));
  const found: number[] = [];
  for (let i = 0; i < s.length; i++) if (terms.some((p) => matchesAt(s, i, p))) found.push(i);
  return found;
}

/**
 * How many times its length (in code points) a string can grow when encoded, rounded up to a
 * whole factor: the most any one pattern grows, written whole as one token.
 */
export function referenceWidening(o: ReferenceOptions): number {
  const growth = patterns(o).map((p) => [...referenceEncode(p.text, o)].length / [...p.text].length);
  return Math.ceil(Math.max(1, ...growth));
}
