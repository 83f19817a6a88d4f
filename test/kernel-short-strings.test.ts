// The matcher on short, final input (assembly/match.ts): in a whole string no match starts
// where the shortest one would run past its end, so those positions, and strings shorter than
// that, are not tried. Checked on term sets whose shortest match is 1 to 10 bytes (ASCII,
// 2- and 3-byte characters, the default terms): every short sequence of term fragments, at the
// end of strings of every length up to two SIMD blocks, through the transducer (one reused
// instance per set), against the reference (test/reference.ts). Both builds (vitest projects).
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { DEFAULT_TERMS } from '../src/codec/terms.ts';
import { createCodec } from '../src/index.ts';
import { Transducer } from '../src/stream/transducer.ts';
import { type ReferenceTerms, referenceEncode } from './reference.ts';

const PREFIX = '__mcp_ref_';
const FILLER = 'z'; // in no term, prefix or suffix
const none = { ascii: [], exact: [], pairs: [] };

const SETS: [string, ReferenceTerms, string[]][] = [
  ['one ASCII byte', { ...none, ascii: ['q', 'wen'] }, ['q', 'Q', 'w', 'e', 'n', 'we']],
  ['two bytes (é)', { ...none, exact: ['é'], ascii: ['dash'] }, ['é', 'e', 'd', 'da', 'sh', 'Dash']],
  ['three bytes (中)', { ...none, exact: ['中', '中国'] }, ['中', '国', '中国', 'x']],
  ['the default terms', DEFAULT_TERMS, ['q', 'wen', 'Qwen', 'ali', 'baba', '-', '通义', '通', '淘宝', 'damo', '__mcp_re', 'f_']],
  ['only the prefix and long terms', { ...none, ascii: ['dashscope'] }, ['dash', 'scope', 'dashscop', '__mcp_ref', '_', 'DashScope']],
];

function* sequences(alphabet: string[], length: number): Generator<string> {
  if (length === 0) return yield '';
  for (const head of sequences(alphabet, length - 1)) for (const f of alphabet) yield head + f;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The string through the transducer as one JSON string, whole: its value. */
function encodedBy(t: Transducer, s: string): string {
  const message = new TextEncoder().encode(JSON.stringify(s));
  const parts: Uint8Array[] = [];
  const sink = (b: Uint8Array) => void parts.push(b.slice());
  t.begin();
  t.write(message, sink, 1, 0);
  t.finish(sink, 1, message.length);
  return JSON.parse(utf8.decode(Buffer.concat(parts))) as string;
}

describe.each(SETS)('short final strings, %s', (_name, terms, fragments) => {
  const compiled = compile(resolveOptions({ terms }));
  const t = new Transducer({ desc: compiled.desc, mode: 'encode', expansion: compiled.expansion }, 'text');
  afterAll(() => t.release());
  const ref = { prefix: PREFIX, suffix: '__', upper: false, terms };

  it('every sequence of up to three fragments, at the end of strings of every length', () => {
    const wrong: string[] = [];
    for (let n = 1; n <= 3; n++) {
      for (const seq of sequences(fragments, n)) {
        // (No match or token can hold the filler, so the reference's output is the filler and
        // the sequence's: worked out once per sequence, the reference being the slow part.)
        const encoded = referenceEncode(seq, ref);
        for (let lead = 0; lead <= 33; lead++) {
          const s = FILLER.repeat(lead) + seq;
          const want = FILLER.repeat(lead) + encoded;
          const got = encodedBy(t, s);
          if (got !== want && wrong.length < 10)
            wrong.push(`${JSON.stringify(s)}: core ${JSON.stringify(got)}, reference ${JSON.stringify(want)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

// With fold 'nfkc' the shortest match is read from the lookalike automaton's start set; the
// oracle is the same codec's encodeText (strings this short are matched in JS, on the tables).
describe('short final strings, fold nfkc', () => {
  const options = resolveOptions({ fold: 'nfkc' });
  const compiled = compile(options);
  const codec = createCodec({ fold: 'nfkc' });
  const t = new Transducer({ desc: compiled.desc, mode: 'encode', expansion: compiled.expansion }, 'text');
  afterAll(() => t.release());
  const fragments = ['ｑ', 'ｗｅｎ', 'q\u200B', 'wen', 'ali\u00A0', 'cloud', '⽀', '付宝', 'ﬁ', 'Q'];

  it('every sequence of up to two fragments, at the end of strings of many lengths', () => {
    const wrong: string[] = [];
    for (let n = 1; n <= 2; n++) {
      for (const seq of sequences(fragments, n)) {
        for (let lead = 0; lead <= 33; lead += 3) {
          const s = FILLER.repeat(lead) + seq;
          const got = encodedBy(t, s);
          const want = codec.encodeText(s);
          if (got !== want && wrong.length < 10)
            wrong.push(`${JSON.stringify(s)}: core ${JSON.stringify(got)}, encodeText ${JSON.stringify(want)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
