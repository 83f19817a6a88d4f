// Codec options: defaults, normalisation and the checks that keep the round trip exact.

import { foldText } from '../fold/unicode.js';
import { lowerAscii as foldAscii } from '../util/ascii.js';
import { DEFAULT_TERMS, expandPatterns, type Fold, PAIR_SEPARATORS, type Pattern, type TermSet, type TermSetInput } from './terms.js';

export type HexCase = 'lower' | 'upper';

export interface CodecOptions {
  /** Token prefix; default `__mcp_ref_` (mobile-mcp). cua-driver uses `__cuaf_`. */
  prefix?: string;
  /** Token suffix; default `__`. */
  suffix?: string;
  /** Case of the hex digits written by encoding (decoding accepts both); default `lower`. */
  hexCase?: HexCase;
  /** Terms to alias; default {@link DEFAULT_TERMS}. Missing fields are empty. */
  terms?: TermSetInput;
  /** `ascii` (default): terms match ignoring ASCII case. `nfkc`: also their lookalikes (docs/CODEC.md). */
  fold?: Fold;
}

export interface ResolvedOptions {
  readonly prefix: string;
  readonly suffix: string;
  readonly hexCase: HexCase;
  readonly terms: TermSet;
  readonly fold: Fold;
  readonly patterns: readonly Pattern[];
  /** A stable key: equal keys compile to equal automata. */
  readonly key: string;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const isHex = (c: string) => /^[0-9a-f]$/i.test(c);

function fail(message: string): never {
  throw new TypeError(`createCodec: ${message}`);
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail(`terms.${field} must be an array`);
  return value.map((t, i) => {
    if (typeof t !== 'string' || t.length === 0) fail(`terms.${field}[${i}] must be a non-empty string`);
    return t;
  });
}

function resolveTerms(input: TermSetInput | undefined): TermSet {
  if (input === undefined) return DEFAULT_TERMS;
  if (input === null || typeof input !== 'object') fail('terms must be an object { ascii, exact, pairs }');
  const ascii = stringList(input.ascii, 'ascii');
  ascii.forEach((t, i) => {
    if (!PRINTABLE_ASCII.test(t)) fail(`terms.ascii[${i}] must be printable ASCII`);
  });
  const exact = stringList(input.exact, 'exact');
  exact.forEach((t, i) => {
    if (!t.isWellFormed()) fail(`terms.exact[${i}] contains a lone surrogate`);
  });
  if (input.pairs !== undefined && !Array.isArray(input.pairs)) fail('terms.pairs must be an array');
  const pairs = (input.pairs ?? []).map((pair, i): [string, string] => {
    if (!Array.isArray(pair) || pair.length !== 2) fail(`terms.pairs[${i}] must be a [first, second] pair`);
    const [a, b] = stringList(pair, `pairs[${i}]`) as [string, string];
    if (!PRINTABLE_ASCII.test(a + b)) fail(`terms.pairs[${i}] must be printable ASCII`);
    return [a, b];
  });
  if (ascii.length + exact.length + pairs.length === 0) fail('terms is empty');
  return { ascii, exact, pairs };
}

function checkAffix(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) fail(`${name} must be a non-empty string`);
  if (!PRINTABLE_ASCII.test(value) || /[ "\\]/.test(value)) fail(`${name} must be printable ASCII without spaces, quotes or backslashes`);
  return value;
}

/**
 * Rejects a prefix that lets a failed candidate starting in literal text swallow the start of
 * a real token: if the prefix has period k (it overlaps itself shifted by k), text ending in
 * its first k characters runs into the token's prefix. That candidate then has to fail at
 * once, so the character after the overlap must not be a hex digit.
 */
function checkPrefixPeriods(prefix: string): void {
  const p = foldAscii(prefix);
  if ([...p].every(isHex)) fail('prefix must contain a character that is not a hex digit');
  for (let k = 1; k < p.length; k++) {
    if (p.slice(k) === p.slice(0, p.length - k) && isHex(p[p.length - k]!)) {
      fail(`prefix overlaps itself in a way that makes tokens ambiguous (shift ${k})`);
    }
  }
}

/**
 * Rejects a term that is the prefix itself (ignoring ASCII case for ASCII terms and pairs):
 * every token would contain it. The token check below cannot see this case, since the prefix
 * is also a pattern of its own (its escape) and that one must be skipped there.
 */
function checkTermsAgainstPrefix(terms: TermSet, prefix: string, fold: Fold): void {
  // Compared as the automaton matches them: with 'nfkc', `＿＿ｍｃｐ＿ｒｅｆ＿` is the prefix too.
  const same = fold === 'nfkc' ? (t: string) => foldText(t) === foldText(prefix) : (t: string) => foldAscii(t) === foldAscii(prefix);
  const named = [
    ...terms.ascii.map((t) => [t, same(t)] as const),
    ...terms.exact.map((t) => [t, fold === 'nfkc' ? same(t) : t === prefix] as const),
    ...terms.pairs.flatMap(([a, b]) => PAIR_SEPARATORS.map((sep) => [a + sep + b, same(a + sep + b)] as const)),
  ];
  const how = fold === 'nfkc' ? 'under the NFKC case fold' : 'ignoring ASCII case';
  for (const [text, isPrefix] of named) {
    if (isPrefix) fail(`term ${JSON.stringify(text)} is the prefix (terms match ${how}): every token would contain it`);
  }
}

/**
 * Rejects term sets where a term could appear in encoded text: inside a token, or across its
 * edges with whatever text surrounds it. Tokens are modelled as prefix + hex run + suffix
 * with wildcards on both sides; any alignment of a term that touches the token is a failure.
 * Hex digits are compared in any case for terms matched ignoring case; an exact term meets
 * only the digits `hexCase` writes (both cases when it is not given).
 */
export function checkTermsAgainstTokens(patterns: readonly Pattern[], prefix: string, suffix: string, hexCase?: HexCase): void {
  const WILD = -1;
  const HEX = -2;
  const exactHex = hexCase === 'lower' ? /^[0-9a-f]$/ : hexCase === 'upper' ? /^[0-9A-F]$/ : /^[0-9a-f]$/i;
  for (const { text, ignoreCase } of patterns) {
    // The prefix's own escape; a term equal to it is refused by checkTermsAgainstPrefix.
    if (ignoreCase && foldAscii(text) === foldAscii(prefix)) continue;
    const t = [...text];
    const fold = (c: string) => (ignoreCase ? foldAscii(c) : c);
    const hex = (c: string) => (ignoreCase ? isHex(c) : exactHex.test(c));
    for (let n = 2; n <= t.length + 2; n += 2) {
      const token: (string | number)[] = [...prefix, ...Array<number>(n).fill(HEX), ...suffix];
      const cells = [...Array<number>(t.length).fill(WILD), ...token, ...Array<number>(t.length).fill(WILD)];
      for (let at = 1; at < t.length + token.length; at++) {
        const fits = t.every((ch, q) => {
          const cell = cells[at + q]!;
          if (cell === WILD) return true;
          if (cell === HEX) return hex(ch);
          return fold(cell as string) === fold(ch);
        });
        if (fits)
          fail(
            `term ${JSON.stringify(text)} could appear in encoded text around or inside a token; choose another prefix/suffix or drop the term`,
          );
      }
    }
  }
}

const resolvedCache = new Map<string, ResolvedOptions>();
/** The defaults, resolved (a stream per HTTP response with default options skips the key). */
let defaults: ResolvedOptions | undefined;

/** Checks and completes options; results are cached, since the checks cost a millisecond or so. */
export function resolveOptions(options: CodecOptions = {}): ResolvedOptions {
  if (options === null || typeof options !== 'object') fail('options must be an object');
  const { prefix, suffix, hexCase, terms, fold } = options;
  if (prefix === undefined && suffix === undefined && hexCase === undefined && terms === undefined && fold === undefined) {
    defaults ??= resolveUncached({});
    return defaults;
  }
  if (last?.options === options && sameHeld(last.held, options)) return last.resolved;
  let cacheKey: string | undefined;
  try {
    // (The lists read, not `terms`: a terms object's own toJSON must not stand for what it holds.)
    cacheKey = JSON.stringify([prefix, suffix, hexCase, fold, terms === undefined ? 0 : [terms.ascii, terms.exact, terms.pairs]]);
  } catch {
    cacheKey = undefined; // not JSON (a cyclic terms object): checked below, not cached
  }
  let resolved = cacheKey === undefined ? undefined : resolvedCache.get(cacheKey);
  if (!resolved) {
    resolved = resolveUncached(options);
    if (cacheKey !== undefined) {
      if (resolvedCache.size >= 64) resolvedCache.delete(resolvedCache.keys().next().value!); // (the oldest)
      resolvedCache.set(cacheKey, resolved);
    }
  }
  last = { options, held: held(options), resolved };
  return resolved;
}

// The last options object resolved and what it held then: a stream per HTTP response made with
// the same object compares its fields (~0.2 µs) instead of making the cache key (5-8 µs with
// the default terms given as an object). A field changed in place since is a miss.
let last: { options: CodecOptions; held: unknown[]; resolved: ResolvedOptions } | undefined;

/**
 * Everything of `o` resolveOptions reads, flat, each array before its length and entries (a
 * shift between them shows; a pair's length too, which is checked: its first two strings alone
 * would not show one grown in place); `visit` returns false to stop. Only walked on options once
 * resolved.
 */
function walkHeld(o: CodecOptions, visit: (v: unknown) => boolean): boolean {
  const { prefix, suffix, hexCase, terms, fold } = o;
  if (!(visit(prefix) && visit(suffix) && visit(hexCase) && visit(fold) && visit(terms))) return false;
  if (terms === undefined) return true;
  const { ascii, exact, pairs } = terms;
  return listHeld(ascii, visit) && listHeld(exact, visit) && listHeld(pairs, visit, true);
}

/** walkHeld of one list of terms (or undefined), each pair's length and two strings too when `paired`. */
function listHeld(list: readonly (string | readonly string[])[] | undefined, visit: (v: unknown) => boolean, paired = false): boolean {
  if (!visit(list)) return false;
  if (!Array.isArray(list)) return true; // (undefined, or what resolving refuses: its identity alone)
  if (!visit(list.length)) return false;
  for (const t of list) if (!(visit(t) && (!paired || (visit(t.length) && visit(t[0]) && visit(t[1]))))) return false;
  return true;
}

function held(o: CodecOptions): unknown[] {
  const out: unknown[] = [];
  walkHeld(o, (v) => out.push(v) > 0);
  return out;
}

function sameHeld(before: unknown[], o: CodecOptions): boolean {
  let i = 0;
  return walkHeld(o, (v) => v === before[i++]) && i === before.length;
}

function resolveUncached(options: CodecOptions): ResolvedOptions {
  const prefix = checkAffix(options.prefix ?? '__mcp_ref_', 'prefix');
  const suffix = checkAffix(options.suffix ?? '__', 'suffix');
  const hexCase = options.hexCase ?? 'lower';
  if (hexCase !== 'lower' && hexCase !== 'upper') fail(`hexCase must be 'lower' or 'upper'`);
  if (isHex(suffix[0]!)) fail('suffix must not begin with a hex digit');
  checkPrefixPeriods(prefix);
  const fold = options.fold ?? 'ascii';
  if (fold !== 'ascii' && fold !== 'nfkc') fail(`fold must be 'ascii' or 'nfkc'`);
  const terms = resolveTerms(options.terms);
  const patterns = expandPatterns(terms, prefix, fold);
  // The two wire formats with the default terms are known good (test/options.test.ts checks
  // them in full); skipping the check keeps import time down.
  const known = fold === 'ascii' && terms === DEFAULT_TERMS && suffix === '__' && (prefix === '__mcp_ref_' || prefix === '__cuaf_');
  if (!known) {
    checkTermsAgainstPrefix(terms, prefix, fold);
    checkTermsAgainstTokens(patterns, prefix, suffix, hexCase);
  }
  const key = JSON.stringify([foldAscii(prefix), prefix, suffix, hexCase, terms, fold]);
  return { prefix, suffix, hexCase, terms, fold, patterns, key };
}
