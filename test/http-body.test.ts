// The pieces under the HTTP entry: a JSON body as one message (pretty-printed too), and event
// streams passed on in whole events only, against small references, however the bytes are split.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createJsonBodyStream } from '../src/http/index.js';
import { transformJsonBody } from '../src/http/json-body.js';
import { wholeEvents } from '../src/http/sse-events.js';
import { decodeMessage, encodeMessage, encodeText, PayloadKeyCollisionError } from '../src/index.js';
import { createEncodeStream } from '../src/stream/index.js';
import { fragmentString, runs } from './arbitraries.js';
import { bytes, run, split, text } from './stream-helpers.js';

const message = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.nat(), fragmentString(4)),
  result: fc.record({
    content: fc.array(fc.record({ type: fc.constant('text'), text: fragmentString() }), { maxLength: 3 }),
    meta: fc.dictionary(fragmentString(3), fragmentString(6), { maxKeys: 3 }),
  }),
});
const messages = fc.oneof(message, fc.array(message, { minLength: 1, maxLength: 3 }));
const indent = fc.constantFrom(undefined, 2, '\t', '\r\n ');
const cuts = fc.array(fc.nat(4000), { maxLength: 12 });

describe('createJsonBodyStream', () => {
  it('encodes a body, pretty-printed or not, as the object API does, whatever the split', async () => {
    await fc.assert(
      fc.asyncProperty(messages, indent, cuts, async (m, space, at) => {
        const body = bytes(JSON.stringify(m, null, space as string | number | undefined));
        const whole = await run(createJsonBodyStream('encode'), [body]);
        expect(JSON.parse(text(whole))).toEqual(encodeMessage(m));
        expect(await run(createJsonBodyStream('encode'), split(body, at))).toEqual(whole);
      }),
      runs(100),
    );
  });

  it('decodes as the object API does, and drops a colliding body whole, reporting it', async () => {
    await fc.assert(
      fc.asyncProperty(messages, indent, cuts, async (m, space, at) => {
        const body = bytes(JSON.stringify(encodeMessage(m), null, space as string | number | undefined));
        let expected: unknown;
        try {
          expected = decodeMessage(JSON.parse(text(body)));
        } catch (e) {
          if (!(e instanceof PayloadKeyCollisionError)) throw e;
          expected = undefined;
        }
        const collisions: unknown[] = [];
        const out = await run(createJsonBodyStream('decode', { onCollision: (e) => void collisions.push(e) }), split(body, at));
        if (expected === undefined) {
          expect(out.length).toBe(0);
          expect(collisions).toHaveLength(1);
        } else {
          expect(JSON.parse(text(out))).toEqual(expected);
          expect(collisions).toEqual([]);
        }
      }),
      runs(100),
    );
  });

  it('keeps the bytes of a pretty-printed body outside changed strings', async () => {
    const body = '{\n  "jsonrpc": "2.0",\r\n  "id": 1,\n\t"result": { "text": "Qwen", "n": 1.50e3 }\n}';
    const out = text(await run(createJsonBodyStream('encode'), [bytes(body)]));
    expect(out).toBe(body.replace('"Qwen"', `"${encodeText('Qwen')}"`));
  });

  it('refuses chunks that are not bytes with a TypeError', async () => {
    await expect(run(createJsonBodyStream('encode'), ['{"id":1}' as unknown as Uint8Array])).rejects.toThrow(/chunks must be Uint8Array/);
  });

  it('errors on a body cut short and on a body over maxMessageBytes', async () => {
    await expect(run(createJsonBodyStream('encode'), [bytes('{"jsonrpc":"2.0","id":1,"result":{')])).rejects.toThrow(/ends before/);
    await expect(run(createJsonBodyStream('encode', { maxMessageBytes: 10 }), [bytes('{"jsonrpc":"2.0","id":1}')])).rejects.toThrow(
      /maxMessageBytes/,
    );
  });
});

describe('transformJsonBody (a body read whole, at once)', () => {
  /** The stream's answer for `body`: its bytes, or its error's message; and the collisions it reported. */
  const viaStream = async (mode: 'encode' | 'decode', body: Uint8Array, maxMessageBytes?: number) => {
    const collisions: string[] = [];
    try {
      const out = await run(createJsonBodyStream(mode, { maxMessageBytes, onCollision: (e) => void collisions.push(e.message) }), [body]);
      return { out, collisions };
    } catch (e) {
      return { error: (e as Error).message, collisions };
    }
  };
  const atOnce = (mode: 'encode' | 'decode', body: Uint8Array, maxMessageBytes?: number) => {
    const collisions: string[] = [];
    try {
      return { out: transformJsonBody(mode, body, { maxMessageBytes, onCollision: (e) => void collisions.push(e.message) }), collisions };
    } catch (e) {
      return { error: (e as Error).message, collisions };
    }
  };

  it('gives what the stream gives: bytes, collisions and errors, for bodies whole, cut short or too large', async () => {
    await fc.assert(
      fc.asyncProperty(
        messages,
        indent,
        fc.constantFrom('encode', 'decode'),
        fc.option(fc.nat(400), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
        async (m, space, mode, cut, max) => {
          const json = JSON.stringify(mode === 'decode' ? encodeMessage(m) : m, null, space as string | number | undefined);
          const body = bytes(cut === undefined ? json : json.slice(0, cut));
          expect(atOnce(mode, body, max)).toEqual(await viaStream(mode, body, max));
        },
      ),
      runs(300),
    );
  });

  /** The bytes as one string (deep equality of long byte arrays is slow). */
  const asText = (r: { out?: Uint8Array }) => ({ ...r, out: r.out && Buffer.from(r.out).toString('latin1') });

  it('gives what the stream gives for blank and odd bodies, and for long ones (past the batch region, past a large message)', async () => {
    const long = (n: number, key = 'text') =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { [key]: 'Qwen 通义 '.repeat(Math.ceil(n / 14)).slice(0, n) } });
    const bodies = [
      ' ',
      '\r\n\t ',
      '{} {}',
      '{"a":1}x',
      '[]',
      '"Qwen"',
      '{"jsonrpc":"2.0","id":1,"result":{"type":"image","mimeType":"image/png","data":"UXdlbg=="}}',
      long(20_000),
      `${long(20_000)}\n`,
      long(300_000),
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { qwen: 1, [encodeText('qwen')]: 2, pad: 'x'.repeat(20_000) } }),
    ];
    for (const body of bodies)
      for (const mode of ['encode', 'decode'] as const) {
        const b = bytes(mode === 'decode' ? body.replaceAll('Qwen', encodeText('Qwen')) : body);
        for (const max of [undefined, 19_000]) expect(asText(atOnce(mode, b, max))).toEqual(asText(await viaStream(mode, b, max)));
      }
  });

  it('an empty body gives no bytes', () => {
    expect(transformJsonBody('encode', new Uint8Array(0))).toEqual(new Uint8Array(0));
  });
});

// Event streams: lines of any kind, any line ends, cut anywhere.
const line = fc.oneof(
  fc.constantFrom(
    'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"Qwen 通义"}}',
    'id: 7',
    'event: message',
    ': keep-alive',
    'retry: 10',
    'data:',
  ),
  fc.string({ unit: fc.constantFrom('a', ' ', ':', 'é', 'x'), maxLength: 8 }),
);
const ending = fc.constantFrom('\n', '\r\n', '\r');
const eventStream = fc
  .array(fc.tuple(fc.array(fc.tuple(line, ending), { maxLength: 4 }), ending), { maxLength: 6 })
  .map((events) => events.map(([lines, end]) => lines.map(([l, e]) => l + e).join('') + end).join(''));

/** What an SSE reader has seen whole in `s`: up to the end of its last blank line. */
function wholePrefix(s: string): string {
  let atLineStart = true;
  let last = 0;
  for (const m of s.matchAll(/\r\n|\r|\n/g)) {
    const start = m.index!;
    const blank = atLineStart && (start === 0 || /[\r\n]/.test(s[start - 1]!));
    if (blank) last = start + m[0].length;
    atLineStart = true;
    const next = s[start + m[0].length];
    if (next !== undefined && next !== '\r' && next !== '\n') atLineStart = false;
  }
  return /^[\r\n]*$/.test(s.slice(last)) ? s : s.slice(0, last);
}

function source(chunks: Uint8Array[], fail: boolean): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream(
    {
      // (erroring a stream discards what is queued: the failure comes after the last chunk is read)
      pull(c) {
        if (i < chunks.length) c.enqueue(chunks[i++]!);
        else if (fail) c.error(new Error('connection reset'));
        else c.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Byte for byte (a cut may fall inside a character). */
const latin1 = (b: Uint8Array) => String.fromCharCode(...b);

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  let out = '';
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out += latin1(chunk);
  return out;
}

describe('wholeEvents', () => {
  it('passes whole events only and ends cleanly wherever the upstream stops or fails', async () => {
    await fc.assert(
      fc.asyncProperty(eventStream, fc.nat(), cuts, fc.boolean(), async (s, cut, at, fail) => {
        const all = bytes(s);
        const kept = all.slice(0, all.length === 0 ? 0 : cut % (all.length + 1));
        const truncated: unknown[] = [];
        const out = await collect(wholeEvents(source(split(kept, at), fail), 1 << 20, (e) => void truncated.push(e)));
        const expected = wholePrefix(latin1(kept));
        expect(out).toBe(expected);
        expect(truncated.length).toBe(fail || out !== latin1(kept) ? 1 : 0);
      }),
      runs(300),
    );
  });

  it('feeds the SSE encoder whole events, so a cut stream encodes as its whole part does', async () => {
    const event = (id: number) => `id: ${id}\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"Qwen ${id}"}}\n\n`;
    const s = bytes(event(1) + event(2) + event(3));
    for (let cut = 0; cut <= s.length; cut += 7) {
      const kept = s.slice(0, cut);
      const out = await collect(wholeEvents(source([kept], cut % 2 === 0), 1 << 20).pipeThrough(createEncodeStream({ framing: 'sse' })));
      const whole = kept.slice(0, wholePrefix(latin1(kept)).length);
      expect(out).toBe(latin1(await run(createEncodeStream({ framing: 'sse' }), [whole])));
    }
  });

  it('passes an event longer than streamPast on as it comes, unless observed; cut inside it, ends there and says so', async () => {
    // A pull source: 40 pieces of 500 bytes of one event, then its end (or a cut before it).
    const event = (end: boolean) => {
      let produced = 0;
      let pulls = 0;
      const source = new ReadableStream<Uint8Array>(
        {
          pull(c) {
            if (pulls++ === 0) return c.enqueue(bytes('event: message\ndata: "'));
            if (pulls <= 41) {
              produced += 500;
              return c.enqueue(bytes('x'.repeat(500)));
            }
            if (end) c.enqueue(bytes('"\n\n'));
            c.close();
          },
        },
        { highWaterMark: 0 },
      );
      return { source, produced: () => produced };
    };
    const firstRead = async (observe: boolean) => {
      const { source, produced } = event(true);
      const reader = wholeEvents(source, 1 << 20, undefined, observe ? () => {} : undefined, 4000).getReader();
      await reader.read();
      const at = produced();
      while (!(await reader.read()).done);
      return at;
    };
    expect(await firstRead(false)).toBeLessThanOrEqual(4500); // (held up to 4000 bytes, then passed on)
    expect(await firstRead(true)).toBe(20_000); // (an observer sees it whole first)
    const { source } = event(false);
    const truncated: unknown[] = [];
    const out = await collect(wholeEvents(source, 1 << 20, (e) => void truncated.push(e), undefined, 4000));
    expect(out).toBe(`event: message\ndata: "${'x'.repeat(20_000)}`);
    expect(truncated.length).toBe(1);
  });

  // An event streamed on (past streamPast) is bounded by its own bytes: the events that follow
  // its end in the same chunk are not its (they were counted, refusing an event of the bound's size).
  it('passes every event up to the bound, streamed on or held, whatever follows it in a chunk', async () => {
    const max = 300;
    const event = fc
      .tuple(fc.integer({ min: 0, max: max - 10 }), ending)
      .map(([n, end]) => `data: ${'x'.repeat(Math.max(0, max - 6 - 2 * end.length - n))}${end}${end}`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat({ max: 4 * max }), { maxLength: 4 }),
        async (events, at) => {
          const stream = events.join('');
          expect(await collect(wholeEvents(source(split(bytes(stream), at), false), max, undefined, undefined, 50))).toBe(stream);
        },
      ),
      runs(200),
    );
  });

  it('refuses an event over the bound instead of holding it', async () => {
    await expect(collect(wholeEvents(source([bytes('data: ' + 'x'.repeat(100))], false), 50))).rejects.toThrow(
      /larger than maxMessageBytes/,
    );
  });
});
