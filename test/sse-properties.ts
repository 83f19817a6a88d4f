// The predicates of the SSE properties (test/stream-sse-parser.test.ts,
// test/stream-sse-streamed.test.ts), shared with their regression fixtures
// (test/fuzz-regressions.test.ts): a stream as the property renders it, the encoding stream run
// on it, and what eventsource-parser reads before and after, compared (test/sse-reference.ts).
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { createEncodeStream, type PayloadStreamError, type StreamOptions } from '../src/stream/index.ts';
import { parsesAsJson } from './no-stacks.ts';
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

/** Pushes `chunks` through an SSE encoding transformer; what it wrote, the errors it reported, and the most it held (bytes pushed less bytes written, at any push). */
export function encodeSse(chunks: Iterable<Uint8Array>, options: StreamOptions = {}, internal: { lines?: boolean } = {}) {
  const parts: Uint8Array[] = [];
  const errors: PayloadStreamError[] = [];
  let written = 0;
  let pushed = 0;
  let most = 0;
  const t = byteTransformer(
    'encode',
    { framing: 'sse', onInvalidMessage: (e) => void errors.push(e), ...options },
    (b) => {
      written += b.length;
      parts.push(b);
    },
    internal,
  );
  for (const c of chunks) {
    t.push(c);
    pushed += c.length;
    most = Math.max(most, pushed - written);
  }
  t.close();
  return { out: Buffer.concat(parts), errors, most };
}

/** A stream of test/stream-sse-streamed.test.ts: events of fields before, among and after their data lines. */
export interface StreamedStream {
  events: { before: string[]; data: string[]; among: [string, number][]; after: string[]; prefix: string }[];
  endings: string[];
  cuts: number[];
  oneByte: boolean;
  /** The per-line way only (no batch). */
  lines: boolean;
  max: number | undefined;
}

export function renderStreamedStream(s: StreamedStream): string {
  let k = 0;
  const eol = () => s.endings[k++ % s.endings.length]!;
  return `${s.events
    .map((e, n) => {
      const lines = [...e.before, ...e.data.map((d) => e.prefix + d)];
      for (const [f, at] of e.among) lines.splice(e.before.length + 1 + (at % Math.max(1, e.data.length)), 0, f);
      lines.push(...e.after, `id: e${n}`); // (each event its own id, for matching)
      return lines.map((l) => l + eol()).join('') + eol();
    })
    .join('')}\n`;
}

/** Every event reads as the input event encoded whole; refused ones (reported once each) reach no receiver as data that parses. */
export function streamedAsParserReads(s: StreamedStream): void {
  const text = renderStreamedStream(s);
  const input = bytes(text);
  const { out, errors } = encodeSse(
    s.oneByte ? oneByteChunks(input) : split(input, s.cuts),
    { maxMessageBytes: s.max },
    { lines: s.lines },
  );
  const events = (t: string) => {
    const e: EventSourceMessage[] = [];
    createParser({ onEvent: (x) => void e.push(x) }).feed(t);
    return e;
  };
  const before = readEventsChecked(text, events(text));
  expect(errors.length).toBe(expectEventsEncoded(before, events(out.toString()), (d) => !parsesAsJson(d), s.max));
}
