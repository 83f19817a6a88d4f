// Numbers and literals in the core (assembly/json/lexer.ts scalarRun: a run of a scalar's bytes
// read in one loop, its state carried between calls), against JSON.parse: every short sequence
// of number and literal characters, as a bare value and inside an array, whole and cut at every
// byte, is accepted exactly when JSON.parse accepts it, and comes out as it went in. Both builds.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { Transducer } from '../src/stream/transducer.ts';
import { runs } from './arbitraries.ts';

const ALPHABET = ['0', '1', '9', '-', '+', '.', 'e', 'E', 't', 'r', 'u', 'l', 'f', 'n', ' ', ']', 'x'];
const latin1 = new TextDecoder('latin1');

function* sequences(length: number): Generator<string> {
  if (length === 0) return yield '';
  for (const head of sequences(length - 1)) for (const c of ALPHABET) yield head + c;
}

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('scalars', () => {
  const compiled = compile(resolveOptions({}));
  const t = new Transducer({ desc: compiled.desc, mode: 'encode', expansion: compiled.expansion }, true);
  afterAll(() => t.release());

  /** The text through the core in pieces cut at `cuts`: its output, or null if refused. */
  function through(text: string, cuts: number[]): string | null {
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    let out = '';
    const sink = (b: Uint8Array) => {
      out += latin1.decode(b);
    };
    t.begin();
    try {
      let from = 0;
      for (const c of [...cuts, bytes.length]) {
        t.write(bytes.subarray(from, c), sink, 1, from);
        from = c;
      }
      return t.finish(sink, 1, bytes.length) ? out : null;
    } catch {
      return null;
    }
  }

  /** Disagreements with JSON.parse for the text whole and cut once at every byte. */
  function check(text: string): string[] {
    const want = parses(text) ? text : null;
    const wrong: string[] = [];
    for (let c = 0; c <= text.length; c++) {
      const got = through(text, c === 0 ? [] : [c]);
      if (got !== want) wrong.push(`${JSON.stringify(text)} cut at ${c}: core ${JSON.stringify(got)}, JSON.parse ${JSON.stringify(want)}`);
    }
    return wrong;
  }

  it('every sequence of up to three characters, bare and in an array, whole and cut anywhere', () => {
    const wrong: string[] = [];
    for (let n = 1; n <= 3; n++) for (const s of sequences(n)) wrong.push(...check(s), ...check(`[${s}]`));
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('random numbers, literals and near misses, cut in random places', () => {
    const piece = fc.oneof(
      fc.constantFrom(...ALPHABET, 'true', 'false', 'null', '00', '123456789', '.5', 'e+', 'E-'),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    );
    const text = fc.array(piece, { minLength: 1, maxLength: 5 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, fc.boolean(), fc.uniqueArray(fc.nat(40), { maxLength: 4 }), (s, wrapped, cutsAt) => {
        const v = wrapped ? `[${s}]` : s;
        const cuts = cutsAt.filter((c) => c > 0 && c < v.length).sort((a, b) => a - b);
        expect(through(v, cuts)).toBe(parses(v) ? v : null);
      }),
      runs(300),
    );
  });
});
