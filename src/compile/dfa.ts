// The automaton of ASCII-case-insensitive and exact patterns: an anchored DFA over UTF-8
// bytes, by subset construction (so case-insensitive and exact patterns share prefixes
// without matching each other's spellings), with byte classes and both filter stages.

import type { Pattern } from '../codec/terms.js';
import type { CoreTables } from '../core/descriptor.js';
import { patternClasses } from './byte-classes.js';
import { patternStartSet } from './start-set.js';
import { determinize } from './subsets.js';
import { patternTeddy } from './teddy.js';

/** The core's tables of a term set, and what the host derives from the patterns. */
export interface Automaton extends CoreTables {
  readonly minPatternBytes: number;
  /** Fewest code points a match can span (a folded match may be one code point: `℡`). */
  readonly minMatchCodePoints?: number;
}

const utf8 = new TextEncoder();

/** Byte alternatives per position: [lower, upper] for cased ASCII letters. */
export function patternBytes(p: Pattern): number[][] {
  return Array.from(utf8.encode(p.text), (b) => {
    const lower = b | 0x20;
    if (p.ignoreCase && lower >= 0x61 && lower <= 0x7a) return [lower, lower & ~0x20];
    return [b];
  });
}

export function compilePatternDfa(patterns: readonly Pattern[]): Automaton {
  const seqs = patterns.map(patternBytes);
  const { classes, classCount } = patternClasses(seqs);
  // Each position's edges once per class (a letter's two cases may share one).
  const edges = seqs.map((seq) => seq.map((alts) => [...new Set(alts.map((b) => classes[b]!))]));
  // A DFA state is a set of NFA positions (pattern index, bytes matched), encoded p * stride + k.
  const stride = Math.max(...seqs.map((s) => s.length)) + 1;
  const start = seqs.map((_, p) => p * stride);
  const { rows, accepting } = determinize(
    start,
    (pos, edge) => {
      const seq = edges[Math.floor(pos / stride)]!;
      const k = pos % stride;
      if (k === seq.length) return true;
      for (const c of seq[k]!) edge(c, pos + 1);
      return false;
    },
    false,
    '',
    classCount,
  );
  const transitions = new Uint16Array(rows.length * classCount);
  for (let s = 0; s < rows.length; s++) transitions.set(rows[s]!, s * classCount);
  return {
    transitions,
    classes,
    classCount,
    accepting: Uint8Array.from(accepting),
    ...patternStartSet(seqs),
    teddy: patternTeddy(seqs),
    minPatternBytes: Math.min(...seqs.map((s) => s.length)),
  };
}
