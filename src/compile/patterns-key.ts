import type { Pattern } from '../codec/terms.js';

/** A pattern list as one string (equal lists, equal keys; JSON, so no two lists share one). */
export const patternsKey = (patterns: readonly Pattern[]): string =>
  JSON.stringify(patterns.map((p) => [p.text, p.ignoreCase, p.folded === true]));
