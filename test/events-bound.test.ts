// The events one core call writes are bounded by the interface (assembly/abi.ts): at most
// EV_PER_BYTE per input byte plus EV_PER_CALL. The host lays out that much room (J_EV_CAP) and
// the core writes no event past the room it is given. The input that reaches the bound per
// byte: a run of `}` closing payload objects that each hold a `data` and a `blob` not yet
// resolved (decoding: two EV_RESOLVE and an EV_OBJ_CLOSE per byte).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../src/codec/compiled.ts';
import { resolveOptions } from '../src/codec/options.ts';
import {
  E_EVENTS,
  EV_PER_BYTE,
  EV_PER_CALL,
  EV_SIZE,
  J_AUX,
  J_DEC,
  J_DEC_CAP,
  J_DESC,
  J_ERROR,
  J_EV_CAP,
  J_EV_COUNT,
  J_EVENTS,
  J_MODE,
  J_RAW,
  J_RAW_CAP,
  J_REC,
  J_SIZE,
  J_STACK,
  J_STACK_CAP,
  JSON_DECODE,
} from '../src/core/abi.ts';
import { core } from '../src/core/instance.ts';
import { allocate, free, heap, heap32 } from '../src/core/memory.ts';
import { SLICE } from '../src/stream/core-regions.ts';
import { PayloadStreamError } from '../src/stream/index.ts';
import { Transducer } from '../src/stream/transducer.ts';
import { runs } from './arbitraries.ts';

const compiled = compile(resolveOptions({}));
const enc = new TextEncoder();
const OPEN = '{"jsonrpc":"2.0","id":1,"result":';

/**
 * The text through a Transducer, each piece one core call (pieces are at most SLICE bytes and
 * hold no long string): the output, and the events of each call with its input bytes.
 */
function through(mode: 'encode' | 'decode', pieces: string[]): { output: string; calls: [bytes: number, events: number][] } {
  const t = new Transducer({ desc: compiled.desc, mode, expansion: compiled.expansion });
  let output = '';
  const calls: [number, number][] = [];
  let events = 0;
  const sink = (o: Uint8Array, _e: Uint32Array, count: number) => {
    output += Buffer.from(o).toString('latin1');
    events += count;
  };
  try {
    t.begin();
    let offset = 0;
    for (const piece of pieces) {
      const bytes = enc.encode(piece);
      events = 0;
      t.write(bytes, sink, 1, offset);
      calls.push([bytes.length, events]);
      offset += bytes.length;
    }
    events = 0;
    t.finish(sink, 1, offset);
    calls.push([0, events]);
  } finally {
    t.release();
  }
  return { output, calls };
}

describe('the events bound (EV_PER_BYTE, EV_PER_CALL)', () => {
  it('a slice of `}` closing objects that each hold a pending data and blob reaches it, and the host has room', () => {
    const n = SLICE;
    const open = `${OPEN}${'{"data":0,"blob":0,"a":'.repeat(n)}0`;
    const close = `${'}'.repeat(n)}}`;
    const pieces = [open, close.slice(0, n), close.slice(n)];
    const { output, calls } = through('decode', pieces);
    expect(output).toBe(pieces.join('')); // (nothing to decode: every byte passes, none overwritten)
    expect(calls[1]).toEqual([SLICE, EV_PER_BYTE * SLICE]);
  });

  // Values dense in events: payload objects whose keys defer, resolve, open and close (a key
  // may repeat), ids, data: URIs, batches; cut into calls of a few bytes, where a byte's
  // events weigh most (a `"` ending a `type` that is a data: URI brings 4: EV_PER_CALL's part).
  const member = fc.letrec<{ value: string; object: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('0', '"x"', '"image"', '"text"', '"data:text/plain;base64,QUJD"', '[]', 'null'),
      tie('object'),
      fc.array(tie('value'), { maxLength: 3 }).map((v) => `[${v.join(',')}]`),
    ),
    object: fc
      .array(fc.tuple(fc.constantFrom('data', 'blob', 'data', 'blob', 'type', 'uri', 'id', 'a'), tie('value')), { maxLength: 5 })
      .map((m) => `{${m.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
  }));
  const message = fc
    .tuple(fc.constantFrom('result', 'params'), member.object, member.value)
    .map(([where, payload, id]) => `{"jsonrpc":"2.0","id":${id},"${where}":${payload}}`);
  const text = fc.oneof(
    message,
    fc.array(message, { minLength: 1, maxLength: 3 }).map((m) => `[${m.join(',')}]`),
  );

  it('holds for every call on event-dense messages cut anywhere, both ways', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1 }),
        fc.constantFrom('encode', 'decode'),
        (t, cuts, mode) => {
          const pieces: string[] = [];
          for (let at = 0, k = 0; at < t.length; k++) {
            const n = cuts[k % cuts.length]!;
            pieces.push(t.slice(at, at + n));
            at += n;
          }
          let calls: [number, number][];
          try {
            ({ calls } = through(mode, pieces));
          } catch (e) {
            if (e instanceof PayloadStreamError && e.code === 'type-conflict') return; // (two `type`s that disagree: refused)
            throw e;
          }
          for (const [bytes, events] of calls) expect(events).toBeLessThanOrEqual(EV_PER_BYTE * bytes + EV_PER_CALL);
        },
      ),
      runs(300),
    );
  });
});

describe('the core keeps to the room the host gives its events', () => {
  it('past J_EV_CAP it writes no event and fails the call with E_EVENTS', () => {
    // A state laid out by hand, with room for 2 events and a guard word after them.
    const window = 4096;
    const cap = 2;
    const size = J_SIZE + 2 * 1024 + 2 * window + 8 * window + 64 + (cap + 1) * EV_SIZE + 4096 + 1024;
    const block = allocate(size);
    try {
      const desc = compiled.desc.ptr;
      const [state, stack, raw, dec, rec, aux] = [
        0,
        J_SIZE,
        J_SIZE + 2048,
        J_SIZE + 2048 + window,
        J_SIZE + 2048 + 2 * window,
        J_SIZE + 2048 + 10 * window,
      ].map((a) => block + a) as [number, number, number, number, number, number];
      const events = aux + 64;
      const out = events + (cap + 1) * EV_SIZE;
      const input = out + 4096;
      const w = heap32();
      const set = (f: number, v: number) => (w[(state + f) >> 2] = v);
      set(J_DESC, desc);
      set(J_MODE, JSON_DECODE);
      set(J_STACK, stack);
      set(J_STACK_CAP, 1024);
      set(J_RAW, raw);
      set(J_RAW_CAP, window);
      set(J_DEC, dec);
      set(J_DEC_CAP, window);
      set(J_REC, rec);
      set(J_AUX, aux);
      set(J_EVENTS, events);
      set(J_EV_CAP, cap);
      const guard = (events + cap * EV_SIZE) >> 2;
      w.fill(0xdeadbeef, guard, guard + EV_SIZE / 4);
      const bytes = enc.encode(`${OPEN}{"a":{},"b":{},"c":{}}}`); // (decoding: 3 keys, 4 opens, 4 closes)
      heap().set(bytes, input);
      core.jsonReset(state);
      core.jsonStep(state, input, bytes.length, out);
      expect([w[(state + J_ERROR) >> 2], w[(state + J_EV_COUNT) >> 2]]).toEqual([E_EVENTS, cap]);
      expect([...w.subarray(guard, guard + EV_SIZE / 4)]).toEqual(Array(EV_SIZE / 4).fill(0xdeadbeef));
      // With room for them all, the same call writes them (the check is the room, not the input).
      set(J_EV_CAP, 64);
      core.jsonReset(state);
      core.jsonStep(state, input, bytes.length, out);
      expect(w[(state + J_ERROR) >> 2]).toBe(0);
      expect(w[(state + J_EV_COUNT) >> 2]).toBeGreaterThan(cap);
    } finally {
      free(block, size);
    }
  });
});
