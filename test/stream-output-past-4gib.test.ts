// The core gives the host its events' output offsets as u32, counted from the message's start.
// A message whose output passes 4 GiB wraps them (encoding grows each term to __mcp_ref_<hex>__:
// 5x for `qwen`, 8x for a two-letter term of the user's; decoding needs a limit past 4 GiB). The
// host must read them as the offsets just behind its own exact count of the output: before, a
// value deferred past 4 GiB was cut from the wrong place (encoding failed with 'the message ends
// before its JSON value does' at a byte of that value; decoding threw a TypeError). Reached by
// moving both counts mid-message, as that much output would have left them.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { J_OUT_TOTAL } from '../src/core/abi.ts';
import { heap32 } from '../src/core/memory.ts';
import { MessagePipe } from '../src/stream/pipe.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const head = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"qwen"},';
// A `data` value waits for its object's `type`; `text` says transform it.
const deferred = '{"data":"qwen and qwen","type":"text"},{"data":"qwen","type":"text"}]}}';

function run(mode: 'encode' | 'decode', input: [string, string], skip: number): string {
  const compiled = compile(resolveOptions({}));
  const out: Uint8Array[] = [];
  const pipe = new MessagePipe(
    { desc: compiled.desc, mode, expansion: compiled.expansion },
    { maxMessageBytes: 2 ** 40, lines: false },
    (b) => void out.push(b.slice()),
  );
  pipe.feed(enc(input[0]));
  if (skip) {
    // As if `skip` more bytes of output had been written: the core's u32 count and the assembler's.
    const internals = pipe as unknown as {
      transducer: { block: { work: { state: number } } };
      assembler: { outTotal: number; base: number };
    };
    const f = (internals.transducer.block.work.state + J_OUT_TOTAL) >>> 2;
    heap32()[f] = (heap32()[f]! + skip) >>> 0;
    internals.assembler.outTotal += skip;
    if (mode === 'decode') internals.assembler.base += skip; // (held[0] is the message's first byte)
  }
  pipe.feed(enc(input[1]));
  expect(pipe.end()).toBe('message');
  pipe.release();
  return Buffer.concat(out).toString();
}

describe('a message whose output passes 4 GiB', () => {
  for (const skip of [1000, 2 ** 31 + 7, 2 ** 32 - 70, 2 ** 32 - 20, 2 ** 32 + 5, 2 ** 33 - 3]) {
    it(`encodes a deferred value in its place (${skip} bytes before)`, () => {
      const plain = run('encode', [head, deferred], 0);
      expect(plain).toContain('"data":"__mcp_ref_7177656e__ and __mcp_ref_7177656e__"');
      expect(run('encode', [head, deferred], skip)).toBe(plain);
    });

    it(`decodes keys and deferred values in place (${skip} bytes before)`, () => {
      const encoded = run('encode', [head, deferred], 0);
      const cut = encoded.indexOf('{"data"');
      const plain = run('decode', [encoded.slice(0, cut), encoded.slice(cut)], 0);
      expect(plain).toBe(head + deferred);
      expect(run('decode', [encoded.slice(0, cut), encoded.slice(cut)], skip)).toBe(plain);
    });
  }
});
