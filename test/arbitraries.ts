// fast-check generators for text where the subtle bugs live: pieces of terms, separators,
// prefixes, suffixes and hex digits, glued together with lone surrogates and multi-byte text.
import fc from 'fast-check';
import { DEFAULT_TERMS } from '../src/index.ts';

const termPieces = [
  ...DEFAULT_TERMS.ascii,
  ...DEFAULT_TERMS.exact,
  ...DEFAULT_TERMS.pairs.flat(),
  ...DEFAULT_TERMS.ascii.flatMap((t) => [t.slice(0, 2), t.slice(2), t.toUpperCase()]),
  ...DEFAULT_TERMS.exact.flatMap((t) => [...t]),
];
const tokenPieces = [
  '__mcp_ref_',
  '__MCP_REF_',
  '__Mcp_',
  '_ref_',
  '__cuaf_',
  '__CUAF_',
  '__',
  '_',
  'mcp',
  'cuaf',
  '7177656e',
  '7177656E',
  '71',
  '7',
  'f',
  'ff',
  'e998bfe9878c',
  'edb080',
  'zz',
  'c3',
  'a9',
  '__mcp_ref_ff__',
  '__mcp_ref_c3a9__',
  '__MCP_REF_E998BF__',
  '__cuaf_C3__',
  '__cuaf_f09f9880__',
  '__mcp_ref_edb080__',
];
// (Four-byte characters whose UTF-8 differs in every byte: '😀' alone left encoder bugs unseen.)
const otherPieces = [
  '-',
  ' ',
  '.',
  '/',
  'a',
  'Z',
  '0',
  '\uD800',
  '\uDC00',
  '\uFFFD',
  '\uFEFF',
  '😀',
  '😎',
  '𐀀',
  '\u{10FFFF}',
  '中文',
  'é',
  '\n',
  '"',
];

/** Strings assembled from fragments of terms, tokens and awkward characters. */
export const fragmentString = (maxPieces = 24) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...termPieces),
        fc.constantFrom(...tokenPieces),
        fc.constantFrom(...otherPieces),
        fc.string({ unit: 'binary', maxLength: 3 }),
      ),
      { maxLength: maxPieces },
    )
    .map((pieces) => pieces.join(''));

/** Any JS string, lone surrogates included. */
export const anyString = (maxLength = 200) => fc.string({ unit: 'binary', maxLength });

/** `n` runs, or FUZZ_RUNS when it is set to a positive number (an empty FUZZ_RUNS is not 0 runs). */
export const runs = (n: number) => {
  const fuzz = Number(process.env.FUZZ_RUNS);
  // FC_SEED and FC_PATH replay a counterexample a run reported (`{ seed: …, path: "…" }`).
  const replay = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true } : {};
  return { numRuns: fuzz > 0 ? fuzz : n, ...replay };
};

/**
 * Object keys the field policy and the walk treat specially (protocol fields, opaque members,
 * schema keywords, `__proto__`), a term, and tokens: one that decodes to the term (a collision)
 * and one that does not decode.
 */
export const policyKey = fc.constantFrom(
  '_meta',
  'data',
  'type',
  'blob',
  'uri',
  'maxLength',
  'name',
  'properties',
  'items',
  'const',
  'tools',
  'inputSchema',
  'task',
  'tasks',
  'taskId',
  'cursor',
  'nextCursor',
  'progressToken',
  '__proto__',
  'qwen',
  '__mcp_ref_71776__',
  '__mcp_ref_7177656e__',
  'text',
);
