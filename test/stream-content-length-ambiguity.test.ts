// Content-Length: header blocks that parsers could read differently are refused (two
// Content-Length headers, a bare CR, LF and CRLF mixed), naming the message; invalid bodies are
// dropped whole with onInvalidMessage; the body is held once and written in pieces of <= 1 MiB.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCodec } from '../src/index.ts';
import { createByteTransformer, createEncodeStream, PayloadStreamError } from '../src/stream/index.ts';
import { runs } from './arbitraries.ts';
import { bytes, oneByteChunks, run, split } from './stream-helpers.ts';

const codec = createCodec();
const str = fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('Qwen', '通义', 'aliyun'));
const message = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), result: fc.record({ text: str }) });
const extraHeader = fc.constantFrom('Content-Type: application/vscode-jsonrpc; charset=utf-8', 'X-Trace: 1', 'X-Length: 5');

/** A header block with `lines` (without endings), all ended with `eol`. */
const block = (lines: string[], eol: string) => lines.map((l) => l + eol).join('') + eol;

describe('Content-Length: ambiguous header blocks', () => {
  const ambiguous = fc.constantFrom(
    (n: number, eol: string) => block([`Content-Length: ${n}`, `Content-Length: ${n}`], eol), // two, equal
    (n: number, eol: string) => block([`Content-Length: ${n}`, `content-length:${n + 1}`], eol),
    (n: number, eol: string) => block([`Content-Length: ${n}\rX-Other: 1`], eol), // bare CR inside a line
    (n: number, eol: string) => block([`X-A: 1\r`, `Content-Length: ${n}`], eol),
    (n: number) => `Content-Length: ${n}\nX-A: 1\r\n\r\n`, // LF and CRLF mixed
    (n: number) => `X-A: 1\r\nContent-Length: ${n}\n\n`,
  );

  it('refuses them with an error naming the message, whatever the chunking; clean blocks pass', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(message, fc.subarray(['h1', 'h2']), fc.constantFrom('\r\n', '\n')), { minLength: 1, maxLength: 4 }),
        fc.option(fc.tuple(fc.nat(3), ambiguous), { nil: undefined }),
        extraHeader,
        fc.array(fc.nat(2000), { maxLength: 6 }),
        async (items, bad, extra, cuts) => {
          const badAt = bad ? bad[0] % items.length : -1;
          const input = items
            .map(([m, extras, eol], i) => {
              const body = JSON.stringify(m);
              const n = bytes(body).length;
              const head = i === badAt ? bad![1](n, eol) : block([...extras.map(() => extra), `Content-Length: ${n}`], eol);
              return head + body;
            })
            .join('');
          const out = await run(createEncodeStream({ framing: 'content-length' }), split(bytes(input), cuts)).catch((e: unknown) => e);
          if (badAt < 0) {
            expect(out).toBeInstanceOf(Uint8Array);
            return;
          }
          expect(out).toBeInstanceOf(PayloadStreamError);
          expect((out as PayloadStreamError).messageNumber).toBe(badAt + 1);
          expect((out as Error).message).toMatch(/ambiguous/);
        },
      ),
      runs(150),
    );
  });

  it('names the reason', async () => {
    const fail = (s: string) =>
      run(createEncodeStream({ framing: 'content-length' }), oneByteChunks(bytes(s))).catch((e: Error) => e.message);
    expect(await fail('Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}')).toBe(
      'more than one Content-Length header (ambiguous) in message 1 at byte 0',
    );
    expect(await fail('Content-Length: 2\r\n\r\n{}Content-Length: 2\rX: 1\r\n\r\n{}')).toBe(
      'a bare CR in the header block (ambiguous) in message 2 at byte 0',
    );
    expect(await fail('Content-Length: 2\nX: 1\r\n\r\n{}')).toBe(
      'LF and CRLF line endings mixed in the header block (ambiguous) in message 1 at byte 0',
    );
  });

  it('refuses one valid Content-Length beside an empty or invalid one, in either order', async () => {
    // A reader that skipped the invalid one would frame the body by the valid one; another
    // reader may take the other: the two would disagree on where the message ends.
    for (const invalid of ['', ' ', 'x', '-1', '2x', '+2', '2.0', '0x2', '2 2']) {
      for (const eol of ['\r\n', '\n']) {
        for (const lines of [
          ['Content-Length: 2', `Content-Length:${invalid}`],
          [`content-length: ${invalid}`, 'Content-Length: 2'],
        ]) {
          const input = bytes(`Content-Length: 2${eol}${eol}{}${block(lines, eol)}{}`);
          for (const chunks of [[input], oneByteChunks(input)]) {
            const e = await run(createEncodeStream({ framing: 'content-length' }), chunks).catch((x: unknown) => x);
            expect([invalid, eol, lines, (e as Error).message]).toEqual([
              invalid,
              eol,
              lines,
              'more than one Content-Length header (ambiguous) in message 2 at byte 0',
            ]);
          }
        }
      }
    }
  });
});

describe('Content-Length: onInvalidMessage', () => {
  it('drops an invalid or oversize body whole (no header), the others pass, any chunking', async () => {
    const body = fc.oneof(
      message.map((m) => ({ text: JSON.stringify(m), valid: m as unknown })),
      fc
        .constantFrom('Server started', '{"a":', '{"a":1}x', `{"result":"${'Qwen'.repeat(100)}"}`, '{"a":"\u0001"}')
        .map((t) => ({ text: t, valid: undefined })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(body, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(3000), { maxLength: 8 }), async (items, cuts) => {
        const frame = (t: string) => `Content-Length: ${bytes(t).length}\r\n\r\n${t}`;
        const input = bytes(items.map((b) => frame(b.text)).join(''));
        const errors: PayloadStreamError[] = [];
        const out = await run(
          createEncodeStream({ framing: 'content-length', maxMessageBytes: 300, onInvalidMessage: (e) => void errors.push(e) }),
          split(input, cuts),
        );
        const valid = items.filter((b) => b.valid !== undefined);
        const expected = valid.map((b) => frame(JSON.stringify(codec.encodeMessage(b.valid)))).join('');
        // (JSON.stringify writes the same text as the stream for these compact bodies)
        expect(new TextDecoder().decode(out)).toBe(expected);
        expect(errors.map((e) => e.messageNumber)).toEqual(items.flatMap((b, i) => (b.valid === undefined ? [i + 1] : [])));
      }),
      runs(150),
    );
  });
});

describe('Content-Length: large bodies', () => {
  it('writes a large body in pieces of at most about 1 MiB', () => {
    const text = `{"result":"${'Qwen and 通义 '.repeat(90_000)}"}`; // ~1.5 MiB
    const input = bytes(`Content-Length: ${bytes(text).length}\r\n\r\n${text}`);
    const sizes: number[] = [];
    const parts: Uint8Array[] = [];
    const t = createByteTransformer('encode', { framing: 'content-length' }, (b) => {
      sizes.push(b.length);
      parts.push(b);
    });
    for (let at = 0; at < input.length; at += 64 * 1024) t.push(input.subarray(at, at + 64 * 1024));
    t.close();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2 * 1024 * 1024 + 4096);
    const out = new TextDecoder().decode(Buffer.concat(parts));
    const expected = JSON.stringify(codec.encodeMessage(JSON.parse(text)));
    expect(out).toBe(`Content-Length: ${bytes(expected).length}\r\n\r\n${expected}`);
  });
});
