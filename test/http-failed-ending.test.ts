// How a body that failed part-way ends, on both ways a proxy passes one: through Web streams
// (settle.ts) and through the node:http relay (event-relay.ts), one definition (failedEnding).
// The failure is told, then the ending (a POST's errors) goes last, if there is one; an ending
// that fails too is told, and the body still ends cleanly, never with an error for the reader.
import { describe, expect, it } from 'vitest';
import { type ByteSource, relayedBody, relayOf } from '../src/http/event-relay.js';
import { failedEnding, settle } from '../src/http/settle.js';

const utf8 = new TextEncoder();
const LAST = utf8.encode('\n\nevent: message\ndata: {"last":1}\n\n');
const BROKEN = new Error('no ending');

/** What the ending does: give LAST, give nothing, fail, or there is none. */
const ENDINGS = {
  bytes: async () => LAST,
  nothing: async () => undefined,
  fails: async (): Promise<Uint8Array | undefined> => {
    throw BROKEN;
  },
  none: undefined,
};
type Ending = keyof typeof ENDINGS;

async function read(body: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) text += new TextDecoder().decode(chunk);
  return text;
}

/** Through settle: a body that gives one chunk, then fails. */
async function settled(ending: Ending) {
  const told: unknown[] = [];
  const failure = new Error('cut');
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent) return c.error(failure);
      sent = true;
      c.enqueue(utf8.encode('data: {}\n\n'));
    },
  });
  const out = await settle(body, false, (e) => void told.push(e), ENDINGS[ending]);
  const text = await read(out as ReadableStream<Uint8Array>);
  return { text, told: told.map((e) => (e === failure ? 'failure' : e === BROKEN ? 'ending failed' : e)) };
}

/** Through the relay: one event, then one the encoder refuses (not JSON). */
async function relayed(ending: Ending) {
  const told: unknown[] = [];
  let cancelled = false;
  const source: ByteSource = {
    start(on) {
      on.data(utf8.encode('data: {}\n\n'));
      on.data(utf8.encode('data: {not json\n\n'));
      on.end();
    },
    pause() {},
    resume() {},
    cancel() {
      cancelled = true;
    },
  };
  const body = relayedBody(
    relayOf(source, {
      codec: {},
      maxEventBytes: 1 << 20,
      onRefused: (e) => void told.push(e),
      ending: ENDINGS[ending],
    }),
  );
  const text = await read(body);
  expect(cancelled).toBe(true);
  return { text, told: told.map((e) => (e === BROKEN ? 'ending failed' : e instanceof Error ? 'failure' : e)) };
}

describe('a body that failed part-way ends the same way through settle and the relay', () => {
  it.each(Object.keys(ENDINGS) as Ending[])('ending: %s', async (ending) => {
    for (const got of [await settled(ending), await relayed(ending)]) {
      expect(got.text.startsWith('data: {}\n\n')).toBe(true);
      expect(got.text.endsWith(new TextDecoder().decode(LAST))).toBe(ending === 'bytes');
      expect(got.told).toEqual(ending === 'fails' ? ['failure', 'ending failed'] : ['failure']);
    }
  });

  it('failedEnding: tells the failure, gives the ending; an ending that fails is told and gives nothing', async () => {
    const told: unknown[] = [];
    const e = new Error('x');
    expect(await failedEnding(e, (x) => void told.push(x), ENDINGS.bytes)).toBe(LAST);
    expect(await failedEnding(e, (x) => void told.push(x), ENDINGS.fails)).toBeUndefined();
    expect(await failedEnding(e, (x) => void told.push(x))).toBeUndefined();
    expect(told).toEqual([e, e, BROKEN, e]);
  });
});

describe('a relay that fails to start', () => {
  it('lets its source go before the error reaches the server (no Relay comes back to cancel)', () => {
    let cancelled = false;
    let started = false;
    const source: ByteSource = {
      start() {
        started = true;
      },
      pause() {},
      resume() {},
      cancel() {
        cancelled = true;
      },
    };
    // (a transformer that cannot be made: as WASM memory full fails it, here by a bad option)
    const body = relayOf(source, { codec: { maxMessageBytes: -1 }, maxEventBytes: 1 << 20, onRefused: () => {} });
    expect(() => body.start({ write: () => true, end() {} })).toThrow(TypeError);
    expect(started).toBe(false);
    expect(cancelled).toBe(true);
  });
});
