// Plain runs in JSON strings (assembly/json/strings.ts plainRun): with SIMD, 64 ASCII bytes a
// step, then 16 at a time with UTF-8 checked, then byte by byte. Whatever ends a run (an
// escape, a control byte, a non-ASCII character, valid or not) is placed at every offset of a
// long string, so that it falls in each lane of each of the four blocks of several 64-byte
// steps, and the transducer's verdict is held to references: an escape or DEL passes and the
// message comes out as it went in; a control byte is an error at its offset; UTF-8, the first
// byte no valid prefix continues with (WHATWG's decoder, as kernel-utf8-simd.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import { PayloadStreamError } from '../src/stream/stream-error.ts';
import { Transducer } from '../src/stream/transducer.ts';
import { firstBadByte } from './utf8-reference.ts';

const compiled = compile(resolveOptions({}));
const enc = new TextEncoder();
/** The string's length: several 64-byte steps, and a tail shorter than one. */
const LENGTH = 300;
// What ends a run, by what the reference says of it.
const PASSES = ['\\"', '\\\\', '\\n', '\\u00e9', '\x7f'].map((s) => enc.encode(s));
const CONTROLS = [0x00, 0x09, 0x0a, 0x1f].map((b) => [b]);
const UTF8 = [[0xc3, 0xa9], [0xe4, 0xb8, 0xad], [0xf0, 0x9f, 0x98, 0x80], [0x80], [0xff], [0xc3, 0x61], [0xe4, 0xb8], [0xed, 0xa0, 0x80]];

for (const [what, head] of [
  ['envelope', '{"method":"'],
  ['payload', '{"result":"'],
] as const) {
  describe(`plain runs, ${what} strings`, () => {
    const t = new Transducer({ desc: compiled.desc, mode: 'encode', expansion: compiled.expansion });
    afterAll(() => t.release());
    const prefix = enc.encode(head);
    const tail = enc.encode('"}');

    /** The message with `seq` at offset `at` of a string of 'a's (the string LENGTH bytes in all). */
    const message = (seq: ArrayLike<number>, at: number) => {
      const m = new Uint8Array(prefix.length + LENGTH + tail.length).fill(0x61);
      m.set(prefix, 0);
      m.set(seq, prefix.length + at);
      m.set(tail, m.length - tail.length);
      return m;
    };

    /** What the transducer makes of `m`: its output in hex, or its error's code and offset. */
    function verdict(m: Uint8Array): string {
      const parts: Uint8Array[] = [];
      const sink = (output: Uint8Array) => parts.push(output.slice());
      t.begin();
      try {
        t.write(m, sink, 1, 0);
        t.finish(sink, 1, m.length);
        return Buffer.concat(parts).toString('hex');
      } catch (e) {
        if (!(e instanceof PayloadStreamError)) throw e;
        return `${e.code} at ${e.byteOffset}`;
      }
    }
    const unchanged = (m: Uint8Array) => Buffer.from(m).toString('hex');

    /** The cases, at every offset, where the transducer's verdict is not `want`'s (at most ten). */
    function wrong(seqs: ArrayLike<number>[], want: (m: Uint8Array, at: number) => string): string[] {
      const found: string[] = [];
      for (const seq of seqs)
        for (let at = 0; at + seq.length <= LENGTH && found.length < 10; at++) {
          const m = message(seq, at);
          const got = verdict(m);
          if (got !== want(m, at)) found.push(`[${Array.from(seq, (b) => b.toString(16)).join(' ')}] at ${at}: ${got.slice(0, 40)}`);
        }
      return found;
    }

    it('passes an escape or DEL at every offset, the message unchanged', () => {
      expect(wrong(PASSES, unchanged)).toEqual([]);
    });

    it('stops at a control byte at every offset, at its offset', () => {
      expect(wrong(CONTROLS, (_, at) => `control-character at ${prefix.length + at}`)).toEqual([]);
    });

    it('agrees with the UTF-8 reference at every offset', () => {
      const want = (m: Uint8Array) => {
        const bad = firstBadByte(m.subarray(prefix.length, prefix.length + LENGTH));
        return bad < 0 ? unchanged(m) : `invalid-utf8 at ${prefix.length + bad}`;
      };
      expect(wrong(UTF8, want)).toEqual([]);
    });
  });
}
