// The predicates of the SSE properties, shared with their regression fixtures
// (test/fuzz-regressions.test.ts): a stream as the property renders it, the encoding stream run
// on it, and what eventsource-parser reads before and after, compared (test/sse-reference.ts).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import { createEncodeStream, type PayloadStreamError } from '../src/stream/index.ts';
import { expectEventsEncoded, readEventsChecked } from './sse-reference.ts';
import { bytes, oneByteChunks, run, split } from './stream-helpers.ts';

/** A stream of test/stream-sse-parser.test.ts: events as lines ('#' in a line: the event's number), line endings taken in turn. */
export interface ParserStream {
  bom: boolean;
  events: string[][];
  endings: string[];
  cuts: number[];
  oneByte: boolean;
}

/** What eventsource-parser reads in `input` (its events as test/sse-reference.ts reads them, checked), and its retry fields. */
export function parseSse(input: Uint8Array) {
  const events: EventSourceMessage[] = [];
  const retries: number[] = [];
  const parser = createParser({ onEvent: (e) => void events.push(e), onRetry: (r) => void retries.push(r) });
  const text = new TextDecoder().decode(input); // (as the SDK's TextDecoderStream: a BOM goes)
  parser.feed(text);
  return { events: readEventsChecked(text, events), retries };
}

export function renderParserStream(s: ParserStream): Uint8Array {
  let k = 0;
  const eol = () => s.endings[k++ % s.endings.length]!;
  // (A last '\n': a CR ending followed by the LF of a blank line is one CRLF, so the last event
  // would be left open, and never dispatched.)
  const body = s.events.map((lines, k) => lines.map((l) => l.replace('#', `e${k}`) + eol()).join('') + eol()).join('') + '\n';
  const b = bytes(body);
  return s.bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...b]) : b;
}

/** Message events come out encoded, every other event untouched, one to one; each refused one reported once. */
export async function encodesAsParserReads(s: ParserStream): Promise<void> {
  const input = renderParserStream(s);
  const errors: PayloadStreamError[] = [];
  const out = await run(
    createEncodeStream({ framing: 'sse', onInvalidMessage: (e) => void errors.push(e) }),
    s.oneByte ? oneByteChunks(input) : split(input, s.cuts),
  );
  const before = parseSse(input);
  const after = parseSse(out);
  expect(after.retries).toEqual(before.retries);
  // Events match by id (each event has its own); merged events (a CR then the LF of a blank
  // line is one CRLF) keep the last id, in both.
  expect(errors.length).toBe(expectEventsEncoded(before.events, after.events));
}
