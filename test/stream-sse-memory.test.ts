// SSE memory and time: lines outside an event's data span stream out as they arrive (a huge
// comment is never held); what an event holds is bounded by maxMessageBytes with a clear error;
// events with many data lines cost linear time.
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { LARGE_LINE } from '../src/stream/core-regions.ts';
import { createByteTransformer, PayloadStreamError, type StreamOptions } from '../src/stream/index.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';
import { bytes } from './stream-helpers.ts';

const codec = createCodec();

function transformer(options: StreamOptions, mode: 'encode' | 'decode' = 'encode') {
  let written = 0;
  const parts: Uint8Array[] = [];
  const t = createByteTransformer(mode, { framing: 'sse', ...options }, (b) => {
    written += b.length;
    parts.push(b);
  });
  return { t, written: () => written, text: () => new TextDecoder().decode(Buffer.concat(parts)) };
}

describe('SSE: lines stream, held bytes are bounded', () => {
  it('writes a comment, id or unknown field out as it arrives, far beyond maxMessageBytes', () => {
    for (const head of [': ', 'id: ', 'foo: ', 'event: x', 'retry: 1']) {
      const { t, written, text } = transformer({ maxMessageBytes: 1000 });
      const piece = bytes('x'.repeat(64 * 1024));
      t.push(bytes(head));
      for (let i = 0; i < 16; i++) {
        t.push(piece);
        expect(written()).toBeGreaterThanOrEqual(head.length - 8 + (i + 1) * piece.length); // (the field name may wait)
      }
      t.push(bytes('\n\ndata: {"result":"Qwen"}\n\n'));
      t.close();
      expect(text().endsWith('data: {"result":"__mcp_ref_5177656e__"}\n\n')).toBe(true);
    }
  });

  it("holds an event cut by a chunk's end only within maxMessageBytes and 1 KiB (257 KiB at most)", () => {
    // A comment line at an event start, in small chunks: the batch holds the cut event until its
    // blank line, up to the carry's bound; past it the bytes stream out as without the batch.
    for (const max of [1, 100, 1000, 40000, 1e6]) {
      const bound = Math.min(LARGE_LINE + 1024, max + 1024);
      const { t, written } = transformer({ maxMessageBytes: max });
      let pushed = 0;
      let most = 0;
      const piece = bytes(': ' + 'c'.repeat(35));
      for (let i = 0; i < 8000; i++) {
        t.push(piece);
        pushed += piece.length;
        most = Math.max(most, pushed - written());
      }
      expect(most).toBeLessThanOrEqual(bound);
      expect(most).toBeGreaterThan(bound - piece.length); // (it was held: the bound is what binds)
      t.push(bytes('\n\n'));
      t.close();
      expect(written()).toBe(pushed + 2);
    }
  });

  it('refuses an event holding more than maxMessageBytes, data or not, with a clear error', () => {
    const cases = [
      'data: {"a":1}\n: ' + 'c'.repeat(2000) + '\n\n',
      'data: "' + 'd'.repeat(2000) + '"\n\n',
      'event: endpoint\ndata: /' + 'e'.repeat(2000) + '\n\n',
      'data: 1\n' + 'data\n'.repeat(600) + '\n',
    ];
    for (const input of cases) {
      const { t } = transformer({ maxMessageBytes: 1000 });
      let error: unknown;
      try {
        for (let at = 0; at < input.length; at += 100) t.push(bytes(input.slice(at, at + 100)));
        t.close();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PayloadStreamError);
      expect((error as Error).message).toMatch(/maxMessageBytes \(1000\) in message 1/);
    }
  });

  it('counts the index of the lines an event holds: many one-byte lines cannot hold 48 times the limit', () => {
    const max = 100_000;
    const run = (lines: number) => {
      const errors: PayloadStreamError[] = [];
      const { t, text } = transformer({ maxMessageBytes: max, onInvalidMessage: (e) => void errors.push(e) });
      t.push(bytes('data: {"result":"Qwen"}\n' + 'x\n'.repeat(lines) + '\n'));
      t.close();
      return { errors, text: text() };
    };
    // Bytes alone (2 a line) stay far under the limit either way; with the index, the second is over.
    const few = run(1000);
    expect(few.errors).toEqual([]);
    expect(few.text).toBe('data: {"result":"__mcp_ref_5177656e__"}\n' + 'x\n'.repeat(1000) + '\n');
    const many = run(20_000);
    expect(many.errors.map((e) => [e.code, e.messageNumber])).toEqual([['too-large', 1]]);
    expect(many.errors[0]!.message).toMatch(/SSE lines held within an event larger than maxMessageBytes \(100000\)/);
  });

  it('with onInvalidMessage, an oversize event is skipped and the next one passes', () => {
    const errors: PayloadStreamError[] = [];
    const { t, text } = transformer({ maxMessageBytes: 1000, onInvalidMessage: (e) => void errors.push(e) });
    const input = 'id: 1\ndata: "' + 'd'.repeat(5000) + '"\n: kept\n\nid: 2\ndata: {"result":"Qwen"}\n\n';
    for (let at = 0; at < input.length; at += 77) t.push(bytes(input.slice(at, at + 77)));
    t.close();
    expect(text()).toBe('id: 1\n: kept\n\nid: 2\ndata: {"result":"__mcp_ref_5177656e__"}\n\n');
    expect(errors.map((e) => e.messageNumber)).toEqual([1]);
  });
});

describe('SSE: large events', () => {
  it('a non-message event held in many blocks passes byte for byte; a message event in many blocks is transformed', () => {
    const lines = Array.from({ length: 12_000 }, (_, i) => `Qwen line ${i} ${'x'.repeat(i % 90)}`);
    const passing = `event: endpoint\n${lines.map((l, i) => (i % 3 ? `data: ${l}\n` : `data:${l}\r\n: c\n`)).join('')}\n`;
    const json = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { lines } }, null, 1);
    const message = `data: ${json.split('\n').join('\ndata: ')}\n\n`;
    const { t, text } = transformer({});
    const input = bytes(passing + message);
    for (let at = 0; at < input.length; at += 100_000) t.push(input.subarray(at, at + 100_000));
    t.close();
    const out = text();
    expect(out.slice(0, passing.length)).toBe(passing);
    const data = out
      .slice(passing.length)
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .join('\n');
    expect(JSON.parse(data)).toEqual(codec.encodeMessage(JSON.parse(json)));
  });
});

describe('SSE: time is linear in the number of data lines', () => {
  const input = (lines: number) =>
    bytes(`data: [\n${Array.from({ length: lines }, (_, i) => `data: "Qwen ${i}",\n: c`).join('\n')}\ndata: 0]\n\n`);
  const once = (data: Uint8Array, mode: 'encode' | 'decode') => () => {
    const { t } = transformer({}, mode);
    for (let at = 0; at < data.length; at += 64 * 1024) t.push(data.subarray(at, at + 64 * 1024));
    t.close();
  };

  for (const mode of ['encode', 'decode'] as const) {
    it(`${mode}: 4x the data lines (about 0.5 and 2 MB) cost about 4x the time`, () => {
      expect(growth(once(input(20_000), mode), once(input(80_000), mode))).toBeLessThan(LINEAR_BOUND);
    });
  }
});
