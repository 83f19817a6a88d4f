// Every kind of bad input a stream refuses has a code to branch on (and a reason and place to
// read), whichever part of the stream finds it.
import { describe, expect, it } from 'vitest';
import { createByteTransformer, type Framing, PayloadStreamError, type PayloadStreamErrorCode } from '../src/stream/index.ts';
import { bytes } from './stream-helpers.ts';

function failure(
  input: string | Uint8Array,
  framing: Framing = 'ndjson',
  mode: 'encode' | 'decode' = 'encode',
  maxMessageBytes?: number,
): PayloadStreamError {
  const t = createByteTransformer(mode, { framing, ...(maxMessageBytes ? { maxMessageBytes } : {}) }, () => {});
  try {
    t.push(typeof input === 'string' ? bytes(input) : input);
    t.close();
  } catch (e) {
    expect(e).toBeInstanceOf(PayloadStreamError);
    return e as PayloadStreamError;
  }
  throw new Error('expected the stream to refuse the input');
}

const cases: [string, PayloadStreamErrorCode, ...Parameters<typeof failure>][] = [
  ['not JSON', 'invalid-json', 'Server started on port 3000\n'],
  ['a bracket closing an object before its first value', 'invalid-json', '{"result":]\n'],
  ['bad UTF-8', 'invalid-utf8', Uint8Array.from([...bytes('{"result":"'), 0xff, ...bytes('"}\n')])],
  ['a control character in a string', 'control-character', '{"result":"a\tb"}\n'],
  ['a bad escape', 'invalid-escape', '{"result":"\\q"}\n'],
  ['nesting past the stack', 'too-deep', '['.repeat(70_000) + '\n'],
  ['a message cut short', 'incomplete', '{"result":'],
  ['a number cut short by the end of the stream', 'incomplete', '{"result":1}\n-'],
  ['a literal cut short by the end of the stream', 'incomplete', '{"result":1}\ntru'],
  ['two type keys that disagree', 'type-conflict', '{"result":{"type":"image","data":"x","type":"text"}}\n'],
  ['a message over maxMessageBytes', 'too-large', '{"result":"xxxxxxxxxxxxxxxxxxxx"}\n', 'ndjson', 'encode', 16],
  ['two Content-Length headers', 'framing', 'Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}', 'content-length'],
  ['a body that runs past the end', 'incomplete', 'Content-Length: 20\r\n\r\n{}', 'content-length'],
  ['an SSE event over maxMessageBytes', 'too-large', 'data: "xxxxxxxxxxxxxxxxxxxxxxxxxxxx"\n\n', 'sse', 'encode', 8],
];

describe('stream error codes', () => {
  it.each(cases)('%s: %s', (_name, code, ...args) => {
    const e = failure(...args);
    expect(e.code).toBe(code);
    expect(e.message).toBe(`${e.reason} in message ${e.messageNumber} at byte ${e.byteOffset}`);
    // Bad input, not a bug: no stack trace (made per refused message; a trace costs more).
    expect(e.stack).toBe(`PayloadStreamError: ${e.message}`);
  });

  it('are made where Error.stackTraceLimit cannot be set (a frozen Error, as hardened realms have)', () => {
    const own = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')!;
    Object.defineProperty(Error, 'stackTraceLimit', { ...own, writable: false });
    try {
      const e = failure('Server started\n');
      expect([e.code, e.message, Error.stackTraceLimit]).toEqual(['invalid-json', 'invalid JSON in message 1 at byte 0', own.value]);
    } finally {
      Object.defineProperty(Error, 'stackTraceLimit', own);
    }
  });

  it('leave the stack trace limit as they found it', () => {
    const before = Error.stackTraceLimit;
    try {
      for (const limit of [0, 3, 50, Number.POSITIVE_INFINITY]) {
        Error.stackTraceLimit = limit;
        expect(failure('Server started\n').code).toBe('invalid-json');
        expect(Error.stackTraceLimit).toBe(limit);
      }
    } finally {
      Error.stackTraceLimit = before;
    }
  });
});

describe('numbers as JSON writes them', () => {
  it('are kept as written, exponents in either case, and refused when malformed', () => {
    const numbers = ['0', '-0', '1.5', '1e5', '1E5', '0E0', '1.5E-3', '2.5e+10', '-12.0e07'];
    const input = `{"jsonrpc":"2.0","id":1,"result":[${numbers.join(',')}]}\n`;
    const out: Uint8Array[] = [];
    const t = createByteTransformer('encode', {}, (b) => out.push(b.slice()));
    t.push(bytes(input));
    t.close();
    expect(new TextDecoder().decode(Buffer.concat(out))).toBe(input);
    for (const bad of ['01', '1.', '.5', '1e', '1E+', '-', '1.5.2', '+1']) expect(failure(`{"result":${bad}}\n`).code).toBe('invalid-json');
  });
});
