// The NDJSON fast lane (assembly/json/lines.ts, LinesLane.take) changes nothing but speed: with
// it on and off, random NDJSON streams (valid and invalid lines, blank lines, CRLF, lines over or
// at maxMessageBytes, token keys that collide when decoding, deferred `data`, `blob` and data:
// URIs, batches, lines longer than the lane's region, a last line without '\n') cut at random
// give the same output, the same callbacks in the same order between the same output, and the
// same error. And the lane does take the lines it may: a chunk of small messages costs no
// per-message call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byteTransformer } from '../src/stream/byte-transformer.ts';
import { createByteTransformer } from '../src/stream/index.ts';
import { LinesLane } from '../src/stream/lines-lane.ts';
import { runs } from './arbitraries.ts';
import { countCalls } from './core-calls.ts';
import { asReceived, oneInput, render, scenario, trace } from './ndjson-scenarios.ts';
import { bytes } from './stream-helpers.ts';

describe('the NDJSON fast lane', () => {
  it('changes no output, callback or error: lane on and off agree on random streams cut at random', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const input = render(s);
        // (Exact, but for what an invalid message writes before its error: see asReceived.)
        expect(asReceived(trace(s, input, true))).toEqual(asReceived(trace(s, input, false)));
      }),
      runs(200),
    );
  });

  it('takes small valid messages, blank and CRLF lines in the core, with no per-message call, however they are cut', () => {
    const lines: string[] = [];
    let longest = 0;
    for (let i = 1; i <= 60; i++) {
      const m = {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: i, progress: i, message: `step ${i} of Qwen` },
      };
      const json = JSON.stringify(m);
      longest = Math.max(longest, json.length);
      lines.push(json + (i % 3 === 0 ? '\r\n' : '\n'));
      if (i % 10 === 0) lines.push(' \n');
    }
    const input = bytes(lines.join(''));
    expect(input.length).toBeLessThan(16 * 1024); // one lane call
    // The longest lines are exactly maxMessageBytes, some with CRLF (the CR is not counted).
    const options = { maxMessageBytes: longest };
    // Whole, and cut anywhere (a line cut by a chunk's end is held until it ends, then taken whole).
    const cuts = [input.length, 37, 1, 500];
    for (const [mode, size] of (['encode', 'decode'] as const).flatMap((m) => cuts.map((c) => [m, c] as const))) {
      const chunks: Uint8Array[] = [];
      const { perMessage, taken } = countCalls(() => {
        const t = createByteTransformer(mode, options, (b) => void chunks.push(b.slice()));
        for (let at = 0; at < input.length; at += size) t.push(input.slice(at, at + size));
        t.close();
      });
      expect(taken).toBe(60);
      expect(perMessage).toBe(0); // (close ends no message: the last line ended)
      // The output is the per-message path's.
      const off: Uint8Array[] = [];
      const t = byteTransformer(mode, options, (b) => void off.push(b.slice()), { lines: false });
      t.push(input);
      t.close();
      expect(Buffer.concat(chunks).equals(Buffer.concat(off))).toBe(true);
    }
  });

  it('backs off a run of lines it refuses, so each is not transformed twice', () => {
    // `data` before `type`: every line defers a value, which the lane leaves to the per-message path.
    const line = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"data":"aGk=","type":"image"}]}}\n';
    const input = bytes(line.repeat(1000));
    const proto = LinesLane.prototype;
    const { take: lane } = proto;
    let tried = 0;
    proto.take = function (...a) {
      tried++;
      return lane.apply(this, a);
    };
    let out = 0;
    try {
      const t = createByteTransformer('encode', {}, (b) => {
        out += b.length;
      });
      t.push(input);
      t.close();
    } finally {
      proto.take = lane;
    }
    expect(out).toBe(input.length);
    expect(tried).toBeLessThan(1000 / 64 + 10); // (without the backoff: 1000)
  });

  it("holds a line cut by a chunk's end only while it fits maxMessageBytes: the same error either side of the limit", () => {
    // Lines one byte either side of maxMessageBytes (with LF or CRLF), an error early in some,
    // cut at every offset: the lane (which holds the cut line's start) and the per-message path
    // report the same error at the same byte, however the bytes arrived.
    const head = '{"jsonrpc":"2.0","method":"m","params":{"text":"';
    for (const bad of ['', '\u0001']) {
      for (const extra of [-1, 0, 1]) {
        for (const ending of ['\n', '\r\n']) {
          const limit = 200;
          const body = `${head}${bad}`;
          const text = `${body}${'x'.repeat(limit + extra - body.length - 3)}"}}`;
          const input = bytes(`${text}${ending}{"jsonrpc":"2.0","method":"m"}\n`);
          for (let cut = 1; cut < input.length; cut++) {
            const s = oneInput(input, limit, false, { cuts: [cut] });
            expect(asReceived(trace(s, input, true))).toEqual(asReceived(trace(s, input, false)));
          }
        }
      }
    }
  });

  it('reads a chunk buffer its owner reuses as it is now, not as the lane copied it last time', () => {
    const out: Uint8Array[] = [];
    const t = createByteTransformer('encode', {}, (b) => void out.push(b.slice()));
    const buffer = new Uint8Array(18);
    buffer.set(bytes('{}\n{"id":1}\n{"id":'));
    t.push(buffer);
    buffer.set(bytes('7}\n{"id":2}\n{"id":')); // the same object, other bytes
    t.push(buffer);
    t.push(bytes('8}\n'));
    t.close();
    expect(Buffer.concat(out).toString()).toBe('{}\n{"id":1}\n{"id":7}\n{"id":2}\n{"id":8}\n');
  });

  it('numbers messages after lane lines as the per-message path does, in errors', () => {
    const ok = '{"jsonrpc":"2.0","id":1,"result":"Qwen"}';
    const input = bytes(`${ok}\n\n${ok}\r\n \n${ok}\n{"id":2}x\n`);
    const seen: string[] = [];
    const t = createByteTransformer('encode', { onInvalidMessage: (e) => void seen.push(e.message) }, () => {});
    t.push(input);
    t.close();
    expect(seen).toEqual(['invalid JSON in message 4 at byte 8']);
  });
});
