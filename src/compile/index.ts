// The term compiler: patterns in, the tables the core walks (and short-match.ts reads) out.
//   dfa.ts          ASCII-case and exact patterns -> DFA (subsets.ts), byte classes, filters
//   ../fold/        the same tables for fold: 'nfkc', built from each character's lookalikes
//   subsets.ts      subset construction and row packing, shared by both
//   byte-classes.ts bytes that behave alike share a class
//   teddy.ts        stage 1 filter: four-byte fingerprints in 8 buckets (teddy-cost.ts: placed
//                   by the passes expected in ASCII and CJK text)
//   start-set.ts    stage 2 filter: hashed set of the first four bytes
//   default-tables  the default terms' tables, compiled ahead of time (default-automaton.ts)

import type { Pattern } from '../codec/terms.js';
import { compileFoldAutomaton } from '../fold/compile.js';
import { defaultAutomaton } from './default-tables.js';
import { type Automaton, compilePatternDfa } from './dfa.js';
import { patternsKey } from './patterns-key.js';

export type { Automaton } from './dfa.js';

export function compileAutomaton(patterns: readonly Pattern[]): Automaton {
  // fold: 'nfkc' (every pattern is folded): the same tables, built from the fold's alternatives.
  if (patterns.some((p) => p.folded)) return compileFoldAutomaton(patterns.map((p) => p.text));
  // The default terms' tables were compiled ahead of time (scripts/gen-default-automaton.ts).
  return defaultAutomaton(patternsKey(patterns)) ?? compilePatternDfa(patterns);
}
