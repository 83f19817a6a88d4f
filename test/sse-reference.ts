// How eventsource-parser reads an SSE stream before and after an encoding stream, compared
// event by event: shared by the SSE parser property (test/stream-sse-parser.test.ts) and the
// one-byte-away SSE test (test/stream-sse-bytes.test.ts).
import type { EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import { createCodec } from '../src/index.ts';
import { parsesAsJson } from './no-stacks.ts';
import { expectBe, expectEqual } from './quick-expect.ts';

const codec = createCodec();

export const isMessage = (e: EventSourceMessage) => !e.event || e.event === 'message';

/**
 * An event as eventsource-parser gives it, whether an encoding stream streams its data, and the
 * bytes it holds of it besides the data (see readEvents).
 */
export type ReadEvent = EventSourceMessage & { streamed: boolean; held: number };

const encoder = new TextEncoder();
const utf8Length = (s: string) => encoder.encode(s).length;

/**
 * The events of an SSE text (BOM already gone) as the spec reads them, in a few plain lines
 * (the tests check that they equal eventsource-parser's), each with `streamed`: its last
 * `event:` line before its first data line named a message ("" or "message"), so an encoding
 * stream sends its data on as it comes and refuses it if its final type is another; and `held`:
 * the bytes of its lines from its first data line on that are not data (each line's ending, and
 * all of a line but a data line's value), which an encoding stream holds within maxMessageBytes
 * of their own (beyond 1,024 lines, each costs 48 bytes more: not counted here). A last line
 * without its ending is not read.
 */
export function readEvents(text: string): ReadEvent[] {
  const out: ReadEvent[] = [];
  let id: string | undefined;
  let type: string | undefined; // (undefined: no `event:` line yet)
  let data: string[] = [];
  let streamed = false;
  let held = 0;
  for (const [, line, ending] of text.matchAll(/([^\r\n]*)(\r\n|\r|\n)/g) as Iterable<[string, string, string]>) {
    if (line === '') {
      if (data.length) out.push({ id, event: type || undefined, data: data.join('\n'), streamed, held });
      [id, type, data, streamed, held] = [undefined, undefined, [], false, 0];
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const valueAt = colon < 0 ? line.length : line[colon + 1] === ' ' ? colon + 2 : colon + 1;
    const value = line.slice(valueAt);
    if (field === 'data') {
      if (!data.length) streamed = type === '' || type === 'message';
      data.push(value);
    } else if (field === 'event') type = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    if (data.length) held += utf8Length(field === 'data' ? line.slice(0, valueAt) : line) + ending.length;
  }
  return out;
}

/** readEvents, checked against eventsource-parser's events for the same text. */
export function readEventsChecked(text: string, parsed: readonly EventSourceMessage[]): ReadEvent[] {
  const events = readEvents(text);
  expectEqual(
    events.map(({ streamed: _, held: __, ...e }) => e),
    parsed,
  );
  return events;
}

/**
 * Events read from the input (`before`) and from the encoding stream's output (`after`), matched
 * by id (each event has its own; merged events keep the last id, in both): message events with
 * data come out once, as encodeMessage of their data, other events as they came, and those whose
 * data `invalid` says the stream refuses, or that streamed and end as another type, are dropped
 * or reach the receiver with data that does not parse. Returns how many were
 * refused (the stream reports each once).
 */
export function expectEventsEncoded(
  before: readonly ReadEvent[],
  after: readonly EventSourceMessage[],
  invalid: (data: string) => boolean = (d) => !parsesAsJson(d),
  /** The stream's maxMessageBytes: an event whose data, or what it holds besides, is larger is refused whatever its type. */
  max = Number.POSITIVE_INFINITY,
): number {
  const byId = new Map<string | undefined, EventSourceMessage[]>();
  for (const o of after) byId.set(o.id, [...(byId.get(o.id) ?? []), o]);
  let refused = 0;
  for (const e of before) {
    const found = byId.get(e.id) ?? [];
    byId.delete(e.id);
    const blank = e.data.trim() === '';
    if ((isMessage(e) && !blank && invalid(e.data)) || (e.streamed && !isMessage(e)) || utf8Length(e.data) > max || e.held > max) {
      refused++;
      if (found.length > 1) expect(found.length).toBeLessThanOrEqual(1);
      for (const o of found) expectBe((isMessage(o) || e.streamed) && !parsesAsJson(o.data), true);
      continue;
    }
    expectBe(found.length, 1);
    const o = found[0]!;
    expectBe(o.event, e.event);
    if (isMessage(e) && !blank) expectEqual(JSON.parse(o.data), codec.encodeMessage(JSON.parse(e.data)));
    else expectBe(o.data, e.data);
  }
  expectEqual([...byId.keys()], []);
  return refused;
}
