// scan: NDJSON split at '\n' only ('\r' is JSON whitespace), and reports that name a damaged
// key by its position, never by its text.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from './arbitraries.ts';
import { cli, ROOT } from './fixtures/cli-session.ts';

const scan = (input: string, args: string[] = []) => cli(['scan', ...args], input);

const F = '\uFFFD';
const call = (id: number, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write', arguments: args } });

/** JSON text with `ws()` between all tokens (a tiny serializer: the whitespace is the point). */
function spaced(value: unknown, ws: () => string): string {
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => spaced(v, ws)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}${ws()}:${ws()}${spaced(v, ws)}`);
    return `{${ws()}${members.join(`${ws()},${ws()}`)}${ws()}}`;
  }
  return JSON.stringify(value);
}

/** Strings (keys included) holding U+FFFD in a value: what scan must report, one line each. */
function damagedStrings(value: unknown): number {
  if (typeof value === 'string') return value.includes(F) ? 1 : 0;
  if (value === null || typeof value !== 'object') return 0;
  return Object.entries(value).reduce((n, [k, v]) => n + (k.includes(F) ? 1 : 0) + damagedStrings(v), 0);
}

describe('scan', () => {
  it('takes a bare \\r as JSON whitespace, between tokens and at the end of a line', () => {
    const lines = [
      '{"jsonrpc":"2.0","id":1,"result":{"a":"x"}}\r\n',
      `{"jsonrpc":"2.0",\r"id":2,\r"result":{"a":\r"${F}"}}\r\r\n`,
      '\r\n',
      '{"jsonrpc":"2.0","id":3,"result":"ok"}\r', // last line, no '\n'
    ];
    const r = scan(lines.join(''));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('line 2 (id 2): parameter "result" at $.result.a: 1 x U+FFFD, first at character 0, UTF-8 byte 0\n');
    expect(r.code).toBe(1);
    expect(scan('{"jsonrpc":"2.0",\r"id":1,"result":"ok"}\r').code).toBe(0);
  });

  it('reports the same wherever JSON whitespace (\\r included) sits between tokens', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '汉', F, '😀', ' ') });
    const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(text, tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    const messages = fc.array(fc.dictionary(text, value, { maxKeys: 4 }), { minLength: 1, maxLength: 20 });
    const whitespace = fc.array(fc.constantFrom('', ' ', '\t', '\r', '\r ', ' \r\t'), { minLength: 1 });
    fc.assert(
      fc.property(messages, whitespace, (argsList, spaces) => {
        let i = 0;
        const ws = () => spaces[i++ % spaces.length]!;
        const compact = scan(argsList.map((a, n) => JSON.stringify(call(n, a)) + '\n').join(''));
        const loose = scan(argsList.map((a, n) => spaced(call(n, a), ws) + '\n').join(''));
        expect(loose).toEqual(compact);
        const expected = argsList.reduce((n, a) => n + damagedStrings(a), 0);
        expect(compact.stdout.split('\n').filter(Boolean)).toHaveLength(expected);
        expect(compact.code).toBe(expected ? 1 : 0);
      }),
      runs(3),
    );
  }, 60_000);

  it('names a damaged key by its position, never by its text', () => {
    const args = { ok: 1, [`SECRET${F}name`]: 'v', files: { 7: 'a', [`TOP${F}SECRET`]: `x${F}` } };
    const r = scan(JSON.stringify(call(1, args)) + '\n');
    expect(r.stdout.split('\n')).toEqual([
      'line 1 (id 1) tools/call: parameter key #1 (its name is damaged) (key): 1 x U+FFFD, first at character 6, UTF-8 byte 6',
      'line 1 (id 1) tools/call: parameter "files" at $.params.arguments.files[key #0 of the non-numeric keys] (key): 1 x U+FFFD, first at character 3, UTF-8 byte 3',
      'line 1 (id 1) tools/call: parameter "files" at $.params.arguments.files[key #0 of the non-numeric keys]: 1 x U+FFFD, first at character 1, UTF-8 byte 1',
      '',
    ]);
    expect(r.code).toBe(1);
  });

  // Keys are named (they are the structure: parameter names, as the library's errors print
  // them) unless damaged: a damaged key is text that broke, so it is named by position.
  it('never prints payload text: no value, no damaged key, wherever they sit', () => {
    const secret = fc.string({ unit: fc.constantFrom('秘', '密', '钥', F), minLength: 1 });
    const key = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 'b', '7') }),
      // Damaged by U+FFFD or by a lone surrogate (which UTF-8 writes as U+FFFD).
      fc.tuple(secret, fc.constantFrom(F, '\uD800', '\uDC00')).map(([k, d]) => k + d),
    );
    const tree: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, secret, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
    })).v;
    fc.assert(
      fc.property(fc.array(fc.dictionary(key, tree, { maxKeys: 3 }), { minLength: 1, maxLength: 20 }), (argsList) => {
        const r = scan(argsList.map((a, n) => JSON.stringify(n % 2 ? call(n, a) : { jsonrpc: '2.0', id: n, result: a }) + '\n').join(''));
        expect(r.stdout + r.stderr).not.toMatch(/[秘密钥]/);
      }),
      runs(3),
    );
  }, 60_000);

  it('a line that is not JSON is reported and skipped; the rest is scanned; exit code 2', () => {
    const r = scan(['{"id":1,"result":"ok"}', '{"result":"SECRET" oops}', `{"id":3,"result":"${F}"}`].join('\n') + '\n');
    expect(r.stderr).toBe('mcp-payload-codec: line 2: invalid JSON, skipped\n');
    expect(r.stdout).toBe('line 3 (id 3): parameter "result": 1 x U+FFFD, first at character 0, UTF-8 byte 0\n');
    expect(r.code).toBe(2);
  });

  it('a file it cannot read: one line, exit code 2', () => {
    const r = scan('', [join(ROOT, 'test', 'fixtures', 'no-such-file.ndjson')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcp-payload-codec: cannot read [^\n]*no-such-file\.ndjson: ENOENT\n$/);
  });
});
