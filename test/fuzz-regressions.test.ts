// Every counterexample a property ever found, kept as a named fixture in
// test/fixtures/regressions/ and replayed through the property it broke (the same predicate the
// property runs), so the bug stays fixed even when the generators drift away from it. How to add
// one: docs/TESTING.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wholeEvents } from '../src/http/sse-events.ts';
import { headerAsReference } from './content-length-reference.ts';
import { encodesAsParserReads, streamedAsParserReads } from './sse-properties.ts';
import { bytes, streamAgreesWithObjectApi } from './stream-helpers.ts';

const DIR = join(import.meta.dirname, 'fixtures', 'regressions');

interface Fixture {
  property: keyof typeof PROPERTIES;
  /** The commit that fixed it, the property that found it, and what was wrong. */
  found: string;
  input: unknown;
}

/** A stream of `chunks`, then its end (or an error, as an upstream that drops the connection). */
function chunked(chunks: Uint8Array[], fail: boolean): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream(
    { pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]!) : fail ? c.error(new Error('connection reset')) : c.close()) },
    { highWaterMark: 0 },
  );
}

const PROPERTIES = {
  /** field-policy.test.ts: the streams agree with the object API; here cut as found, and at every byte. */
  'stream-agrees-with-object-api': (input: { mode: 'encode' | 'decode'; options: object; ndjson: string; cuts: number[] }) => {
    streamAgreesWithObjectApi(input.mode, input.options, input.ndjson, input.cuts);
    for (let cut = 0; cut <= bytes(input.ndjson).length; cut++) streamAgreesWithObjectApi(input.mode, input.options, input.ndjson, [cut]);
  },
  /** http-body.test.ts: wholeEvents passes whole events only, and says when a stream was cut. */
  'whole-events': async (input: { chunks: string[]; fail: boolean; whole: string; truncated: boolean }) => {
    const truncated: unknown[] = [];
    let out = '';
    for await (const c of wholeEvents(
      chunked(input.chunks.map(bytes), input.fail),
      1 << 20,
      (e) => void truncated.push(e),
    ) as unknown as AsyncIterable<Uint8Array>) {
      out += Buffer.from(c).toString('latin1');
    }
    expect(out).toBe(Buffer.from(bytes(input.whole)).toString('latin1'));
    expect(truncated.length > 0).toBe(input.truncated);
  },
  /** stream-content-length-header.test.ts: a header block is read as the regular expressions read it. */
  'content-length-header-reference': headerAsReference,
  /** stream-sse-parser.test.ts: SSE events read by eventsource-parser, encoded one to one. */
  'sse-encodes-as-parser-reads': encodesAsParserReads,
  /** stream-sse-streamed.test.ts: the same for streamed events, fields anywhere, maxMessageBytes. */
  'sse-streamed-as-parser-reads': streamedAsParserReads,
} satisfies Record<string, (input: never) => unknown>;

const fixtures = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture] as const);

describe('fuzz regressions', () => {
  it('every fixture names a known property and where it was found', () => {
    expect(fixtures.length).toBeGreaterThan(0);
    for (const [name, f] of fixtures) {
      expect(Object.keys(PROPERTIES), name).toContain(f.property);
      expect(f.found, name).toMatch(/^[0-9a-f]{7,40}\b.*\btest\/[\w.-]+\.ts\b/);
    }
  });

  it.each(fixtures)('%s', async (_, f) => {
    await (PROPERTIES[f.property] as (input: unknown) => unknown)(f.input);
  });
});
