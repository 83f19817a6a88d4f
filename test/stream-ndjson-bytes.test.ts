// NDJSON lines read by the fast paths (the core's batch of whole lines, jsonLines; the indexed
// path, stage 1 and 2, for each whole line; a line cut by a chunk's end held until it ends)
// against the per-message path (`lines: false`), on every single-byte change of usual lines:
// each byte value in place of each byte, inserted before it, and each byte deleted; the stream
// fed whole and one byte at a time. A generator with a small alphabet can miss one byte value at
// one place for many runs; this tries them all.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { asReceived, describeError, loggedBytes, outputAppender } from './ndjson-scenarios.ts';
import { withoutStacks } from './no-stacks.ts';
import { latin1, oneByteAway, oneByteChunks } from './stream-helpers.ts';

type Mode = 'encode' | 'decode';

/**
 * What a stream (reporting invalid messages) did with `chunks`, as a receiver reads it
 * (asReceived: how much of an invalid line goes out before its error depends on the path), and
 * what it had written after each push that ended at a line's end.
 */
function trace(mode: Mode, chunks: Uint8Array[], lines: boolean): { log: unknown[]; atEnds: number[] } {
  return withoutStacks(() => {
    const log: unknown[] = [];
    const append = outputAppender(log);
    let written = 0;
    const atEnds: number[] = [];
    const t = byteTransformer(
      mode,
      {
        onInvalidMessage: (e) => void log.push(['invalid', ...describeError(e)]),
        onCollision: (e) => void log.push(['dropped', ...describeError(e)]),
      },
      (b) => {
        written += b.length;
        append(b);
      },
      { lines },
    );
    try {
      for (const c of chunks) {
        t.push(c);
        if (c[c.length - 1] === 0x0a) atEnds.push(written);
      }
      t.close();
    } catch (e) {
      log.push(['threw', ...describeError(e)]);
    }
    return { log: asReceived(log), atEnds };
  });
}

/** Where the output's lines end (each line in gives one line out, when all are valid). */
function lineEnds(log: unknown[]): number[] {
  const out = loggedBytes(log);
  const ends: number[] = [];
  for (let i = 0; i < out.length; i++) if (out[i] === 0x0a) ends.push(i + 1);
  return ends;
}

// Usual lines: a message with a term, one with an escape and a token, a batch. (A few dozen
// bytes each: about 15,000 inputs per line.)
const LINES: [Mode, string][] = [
  ['encode', '{"id":1,"result":"Qwen"}\n'],
  ['decode', '{"result":"\\u0071__mcp_ref_71__"}\r\n'],
  ['encode', '[{"method":"m","params":{"t":"q"}}]\n'],
];

describe('NDJSON lines one byte away from usual ones', () => {
  it.each(LINES)('%s %j: the fast paths read them as the per-message path, whole and a byte at a time', (mode, line) => {
    const wrong: string[] = [];
    for (const input of oneByteAway(latin1(line))) {
      const expected = trace(mode, [input], false).log;
      const whole = trace(mode, [input], true).log;
      // (A byte at a time: every line held until it ends, and written out in the push that ends it.)
      const bytewise = trace(mode, oneByteChunks(input), true);
      const valid = !expected.some((x) => Array.isArray(x));
      const wrongEnds = valid && !isDeepStrictEqual(bytewise.atEnds, lineEnds(expected));
      if ((!isDeepStrictEqual(whole, expected) || !isDeepStrictEqual(bytewise.log, expected) || wrongEnds) && wrong.length < 5)
        wrong.push(
          `${JSON.stringify(Buffer.from(input).toString('latin1'))}: ${JSON.stringify([whole, bytewise])}, per message ${JSON.stringify(expected)}`,
        );
    }
    expect(wrong).toEqual([]);
  });
});
