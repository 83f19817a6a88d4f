// How eventsource-parser reads an SSE stream before and after an encoding stream, compared
// event by event: shared by the SSE parser property (test/stream-sse-parser.test.ts) and the
// one-byte-away SSE test (test/stream-sse-bytes.test.ts).
import type { EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import { createCodec } from '../src/index.ts';

const codec = createCodec();

export const isMessage = (e: EventSourceMessage) => !e.event || e.event === 'message';

export const parsesAsJson = (data: string) => {
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
};

/**
 * Events read from the input (`before`) and from the encoding stream's output (`after`), matched
 * by id (each event has its own; merged events keep the last id, in both): message events with
 * data come out once, as encodeMessage of their data, other events as they came, and those whose
 * data `invalid` says the stream refuses are dropped or reach the receiver with data that does
 * not parse. Returns how many were refused (the stream reports each once).
 */
export function expectEventsEncoded(
  before: readonly EventSourceMessage[],
  after: readonly EventSourceMessage[],
  invalid: (data: string) => boolean = (d) => !parsesAsJson(d),
): number {
  const byId = new Map<string | undefined, EventSourceMessage[]>();
  for (const o of after) byId.set(o.id, [...(byId.get(o.id) ?? []), o]);
  let refused = 0;
  for (const e of before) {
    const found = byId.get(e.id) ?? [];
    byId.delete(e.id);
    const blank = e.data.trim() === '';
    if (isMessage(e) && !blank && invalid(e.data)) {
      refused++;
      expect(found.length).toBeLessThanOrEqual(1);
      for (const o of found) expect(isMessage(o) && !parsesAsJson(o.data)).toBe(true);
      continue;
    }
    expect(found.length).toBe(1);
    const o = found[0]!;
    expect(o.event).toBe(e.event);
    if (isMessage(e) && !blank) expect(JSON.parse(o.data)).toEqual(codec.encodeMessage(JSON.parse(e.data)));
    else expect(o.data).toBe(e.data);
  }
  expect([...byId.keys()]).toEqual([]);
  return refused;
}
