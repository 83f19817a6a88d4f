// A large value held until its object tells what it is (`data` before `type`, `blob` before
// `uri`, a string that began like a data: URI) is held once: its bytes as they came, until it
// is resolved; its transformed output then streams out instead of being held a second time (a
// 400 MiB log notification grew a proxy by 770 MiB). Held is counted as the bytes the stream
// copies into held storage (every framing and the assembler hold bytes in HeldBytes) while the
// event passes: an upper bound on what it holds at once, exact and independent of the collector.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeMessage } from '../src/index.ts';
import { HeldBytes } from '../src/stream/held-bytes.ts';
import { createByteTransformer } from '../src/stream/index.ts';
import { bytes } from './stream-helpers.ts';

const KiB = 1024;
/** Prose with terms (encoding grows it) and escapes, repeated to `n` UTF-16 units. */
const prose = (n: number) => 'Qwen writes to 阿里云 "quoted"\n and plain words; '.repeat(Math.ceil(n / 40)).slice(0, n);
const base64 = (n: number) => 'QUJD'.repeat(Math.ceil(n / 4)).slice(0, n);

/** Messages whose one large value waits for something after it, as a value of `n` units. */
const shapes: Record<string, (n: number) => unknown> = {
  'a log notification whose params.data is one string': (n) => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { level: 'info', data: prose(n) },
  }),
  'a content item with its data before its type': (n) => ({
    jsonrpc: '2.0',
    id: 1,
    result: {
      content: [
        { data: prose(n), type: 'text' },
        { type: 'text', text: 'Qwen' },
      ],
    },
  }),
  'a log notification whose params.data is an object': (n) => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { data: { text: prose(n), more: [{ data: 'Qwen', type: 'text' }] }, level: 'info' },
  }),
  'a blob without a uri': (n) => ({ jsonrpc: '2.0', id: 2, result: { contents: [{ blob: prose(n), mimeType: 'text/plain' }] } }),
  'a data: URI spoiled at its end': (n) => ({
    jsonrpc: '2.0',
    id: 3,
    result: { content: [{ type: 'text', text: `data:text/plain;base64,${base64(n)} Qwen` }] },
  }),
};

const event = (message: unknown) => bytes(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/** Pushes `input` in 16 KiB chunks through an SSE encoder: its output, and the bytes copied into held storage. */
function encodeCounting(input: Uint8Array): { out: string; held: number } {
  const parts: Uint8Array[] = [];
  const t = createByteTransformer('encode', { framing: 'sse' }, (b) => void parts.push(b.slice()));
  let held = 0;
  const push = HeldBytes.prototype.push;
  const spy = vi.spyOn(HeldBytes.prototype, 'push').mockImplementation(function (this: HeldBytes, b: Uint8Array) {
    held += b.length;
    push.call(this, b);
  });
  try {
    for (let i = 0; i < input.length; i += 16 * KiB) t.push(input.subarray(i, i + 16 * KiB));
    t.close();
  } finally {
    spy.mockRestore();
  }
  return { out: Buffer.concat(parts).toString('utf8'), held };
}

afterEach(() => vi.restoreAllMocks());

describe('a deferred value is held once', () => {
  for (const [name, shape] of Object.entries(shapes)) {
    it(`${name}: held bytes within 1x the value, 4x the value holds at most 4x`, () => {
      const held: number[] = [];
      for (const n of [300 * KiB, 1200 * KiB]) {
        const message = shape(n);
        const input = event(message);
        const { out, held: h } = encodeCounting(input);
        // (The object API is the reference: the value transformed as if its type came first.)
        expect(out).toBe(`event: message\ndata: ${JSON.stringify(encodeMessage(message))}\n\n`);
        expect(h).toBeLessThanOrEqual(input.length * 1.05);
        held.push(h);
      }
      expect(held[1]!).toBeLessThanOrEqual(4 * held[0]! * 1.05);
    });
  }
});
