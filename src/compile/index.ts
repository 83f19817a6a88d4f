// The term compiler: patterns in, the tables the core walks (and short-match.ts reads) out.
//   dfa.ts          ASCII-case and exact patterns -> DFA (subsets.ts), byte classes, filters
//   ../fold/        the same tables for fold: 'nfkc', built from each character's lookalikes
//   subsets.ts      subset construction and row packing, shared by both
//   byte-classes.ts bytes that behave alike share a class
//   teddy.ts        stage 1 filter: three-byte fingerprints in 8 buckets
//   start-set.ts    stage 2 filter: hashed set of the first four bytes
import { compileFoldAutomaton } from '../fold/compile.js';
import type { Pattern } from '../terms.js';
import { type Automaton, compilePatternDfa } from './dfa.js';

export type { Automaton } from './dfa.js';

export function compileAutomaton(patterns: readonly Pattern[]): Automaton {
  // fold: 'nfkc' (every pattern is folded): the same tables, built from the fold's alternatives.
  if (patterns.some((p) => p.folded)) return compileFoldAutomaton(patterns.map((p) => p.text));
  return compilePatternDfa(patterns);
}
