// keyId (assembly/fields.ts: a perfect hash of a key's first and last two bytes and its length,
// then one compare with wide loads) against a plain list lookup: every key of the table, every
// prefix, every one-byte extension and every one-byte change of them, and random keys. The key
// is written into WASM memory followed by stray bytes (as J_SMALL holds what earlier, longer
// keys left), which must not count. Both builds (the vitest projects).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heap, workspace } from '../src/core/memory.ts';
import { runs } from './arbitraries.ts';
import { hooks } from './core-hooks.ts';

// The keys of assembly/fields.ts, in the order of their ids (1, 2, ...).
const KEYS = [
  'params',
  'result',
  'error',
  'id',
  'type',
  'data',
  '_meta',
  'blob',
  'uri',
  'progressToken',
  'requestId',
  'protocolVersion',
  'cursor',
  'nextCursor',
  'taskId',
  'elicitationId',
  'task',
  'tasks',
  'tools',
  'inputSchema',
  'outputSchema',
  'maxLength',
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'const',
  'default',
  'enum',
  'examples',
  'url',
];
const LONGEST_KEY = 17; // the core keeps this many bytes of a key (J_SMALL)

const keyIdOf = hooks.keyId;
const latin1 = (b: Uint8Array) => String.fromCharCode(...b);

/** The reference: the key's id by list lookup (a key is compared on its kept bytes and length). */
function reference(key: Uint8Array, n: number): number {
  if (n > LONGEST_KEY) return 0;
  return KEYS.indexOf(latin1(key.subarray(0, n))) + 1;
}

/** keyId of the n-byte key whose kept bytes are `key`, with `stray` bytes after them. */
function keyId(key: Uint8Array, n: number, stray: number): number {
  const ws = workspace(64, 64);
  const kept = key.subarray(0, Math.min(n, LONGEST_KEY));
  heap().fill(stray, ws.input, ws.input + 64);
  heap().set(kept, ws.input);
  return keyIdOf(ws.input, n);
}

const bytesOf = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Each key, its prefixes, extensions by a byte, and every one-byte change. */
function neighbours(): Uint8Array[] {
  const out: Uint8Array[] = [];
  const alphabet = [0x00, 0x20, 0x24, 0x41, 0x49, 0x53, 0x5f, 0x61, 0x64, 0x65, 0x69, 0x73, 0x74, 0x7a, 0x80, 0xff];
  for (const k of KEYS) {
    const b = bytesOf(k);
    out.push(b);
    for (let n = 0; n < b.length; n++) out.push(b.slice(0, n));
    for (const x of alphabet) {
      out.push(Uint8Array.from([...b, x]), Uint8Array.from([x, ...b]));
      for (let i = 0; i < b.length; i++) {
        const c = b.slice();
        c[i] = x;
        out.push(c);
      }
    }
    for (let i = 0; i < b.length; i++) {
      const c = b.slice();
      c[i]! ^= 0x20; // the other ASCII case
      out.push(c);
    }
  }
  return out;
}

describe('keyId', () => {
  it('finds every key of the table, whatever bytes follow it', () => {
    KEYS.forEach((k, i) => {
      for (const stray of [0x00, 0x61, 0xff]) expect(keyId(bytesOf(k), k.length, stray)).toBe(i + 1);
    });
  });

  it('agrees with the list lookup on prefixes, extensions and one-byte changes of every key', () => {
    for (const b of neighbours()) {
      for (const stray of [0x00, 0x73]) {
        const got = keyId(b, b.length, stray);
        if (got !== reference(b, b.length)) expect([latin1(b), stray, got]).toEqual([latin1(b), stray, reference(b, b.length)]);
      }
    }
  });

  it('does not take a key longer than the kept bytes for the key they spell', () => {
    // The core counts every byte of a key but keeps only the first LONGEST_KEY.
    const k = bytesOf('patternProperties');
    for (let n = LONGEST_KEY + 1; n < LONGEST_KEY + 4; n++) expect(keyId(k, n, 0x73)).toBe(0);
    expect(keyId(k, LONGEST_KEY, 0x73)).toBe(24);
  });

  it('agrees with the list lookup on random keys and on keys spliced from table keys', () => {
    const fromKeys = fc
      .tuple(fc.constantFrom(...KEYS), fc.constantFrom(...KEYS), fc.nat(17), fc.nat(17))
      .map(([a, b, i, j]) => bytesOf(a.slice(0, i % (a.length + 1)) + b.slice(j % (b.length + 1))));
    const key = fc.oneof(fc.uint8Array({ maxLength: 20 }), fromKeys, fc.constantFrom(...KEYS).map(bytesOf));
    fc.assert(
      fc.property(key, fc.integer({ min: 0, max: 255 }), (b, stray) => keyId(b, b.length, stray) === reference(b, b.length)),
      runs(2000),
    );
  });
});
