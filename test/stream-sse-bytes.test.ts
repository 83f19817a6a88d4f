// SSE events read by the batch (src/stream/sse-batch.ts: EventBatch, isDataLine, isEventLine, the held
// event) against the per-line way (`lines: false`) and against eventsource-parser, on every
// single-byte change of usual events: each byte value in place of each byte, inserted before
// it, and each byte deleted; the stream fed whole and one byte at a time. A generator with a
// small alphabet can miss one byte value at one place for many runs (the Content-Length reader
// once took a bare CR for the name's '-'); this tries them all.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { describeError, loggedBytes, outputAppender } from './ndjson-scenarios.ts';
import { parsesAsJson, withoutStacks } from './no-stacks.ts';
import { expectBe, expectEqual } from './quick-expect.ts';
import { expectEventsEncoded, readEventsChecked } from './sse-reference.ts';
import { latin1, oneByteAway, oneByteChunks } from './stream-helpers.ts';

/** What a stream (reporting invalid messages) did with `chunks`: output as text (logText) between callbacks, callbacks, the error it threw. */
function trace(chunks: Uint8Array[], lines: boolean): unknown[] {
  const log: unknown[] = [];
  const t = byteTransformer(
    'encode',
    {
      framing: 'sse',
      onInvalidMessage: (e) => void log.push(['invalid', ...describeError(e)]),
      onCollision: (e) => void log.push(['dropped', ...describeError(e)]),
    },
    outputAppender(log),
    { lines },
  );
  withoutStacks(() => {
    try {
      for (const c of chunks) t.push(c);
      t.close();
    } catch (e) {
      log.push(['threw', ...describeError(e)]);
    }
  });
  return log;
}

const decoder = new TextDecoder();

function parse(input: Uint8Array) {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (e) => void events.push(e), onRetry: (r) => void retries.push(r) });
  // (Ended with a blank line: the stream checks and writes an event it ends inside as a whole
  // one, and a CR last is a line's end to it, where the parser waits for the next byte.)
  const text = `${decoder.decode(input)}\n\n`;
  // (It makes a ParseError for each line it cannot read: one a byte spoils, by the thousand.)
  withoutStacks(() => parser.feed(text));
  return { events: readEventsChecked(text, events), retries };
}

/**
 * What eventsource-parser reads in the output of an encoding stream (with onInvalidMessage) that
 * wrote `log` for `input`: events one to one (matched by id, each event has its own), message
 * events with encodeMessage of their data, every other event as it came; an event whose data is
 * not JSON is reported and reaches the receiver, if at all, with data that does not parse.
 */
function expectAsParserReadsIt(input: Uint8Array, log: unknown[]): void {
  const before = parse(input);
  const ids = before.events.map((e) => e.id);
  if (new Set(ids).size !== ids.length) return; // (an id changed into another: events cannot be matched)
  const after = parse(loggedBytes(log));
  expectEqual(after.retries, before.retries);
  // (U+FFFD: bytes that are not UTF-8, which TextDecoder replaced and the stream refuses.)
  const refused = expectEventsEncoded(before.events, after.events, (d) => !parsesAsJson(d) || d.includes('\uFFFD'));
  expectBe(log.filter((x) => Array.isArray(x) && x[0] === 'invalid').length, refused);
}

// Usual events: a message with a term in one data line, LF endings, `data: ` (every byte
// replaced, inserted, deleted); and with an empty `event:` field, CR endings, `data:` (every
// byte replaced or deleted). (About 13,000 and 7,500 inputs.)
const EVENTS: [string, { insert: boolean }][] = [
  ['data: {"result":"qwen"}\n\n', { insert: true }],
  ['event:\rdata:{"result":"Qwen"}\r\r', { insert: false }],
];

describe('SSE events one byte away from usual ones', () => {
  it.each(EVENTS)(
    '%j: the batch reads them as the per-line way (whole, a byte at a time) and as eventsource-parser does',
    (event, { insert }) => {
      const seed = latin1(event);
      const wrong: string[] = [];
      for (const input of oneByteAway(seed)) {
        if (input.length > seed.length && !insert) continue;
        const expected = trace([input], false);
        const whole = trace([input], true);
        const got = [whole];
        // A byte at a time (the event held until its blank line, then taken whole): for the
        // inputs of the seed's length (a byte replaced), which cost a stream per byte.
        if (input.length === seed.length) got.push(trace(oneByteChunks(input), true));
        if (got.some((g) => JSON.stringify(g) !== JSON.stringify(expected)) && wrong.length < 5)
          wrong.push(
            `${JSON.stringify(Buffer.from(input).toString('latin1'))}: ${JSON.stringify(got)}, per line ${JSON.stringify(expected)}`,
          );
        expectAsParserReadsIt(input, whole);
      }
      expect(wrong).toEqual([]);
    },
  );
});
