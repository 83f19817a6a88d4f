// serve passes numbers and ids byte for byte, both ways, as wrap and proxy do: it used to hand
// parsed values to the SDK transport, so 12345678901234567890 reached the child as
// 12345678901234567000 and 1e400 as null. A raw host and a child that never parses (it answers
// with the text it was sent) show the bytes on each side.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../src/cli/serve.js';
import { runs } from './arbitraries.ts';

const record = join(tmpdir(), `serve-bytes-${process.pid}.ndjson`);
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
let served: Awaited<ReturnType<typeof runServe>>;
let headers: Record<string, string>;
const post = (body: string) => fetch(served.url, { method: 'POST', headers, body });
const lines = () => readFileSync(record, 'utf8').split('\n').filter(Boolean);

beforeAll(async () => {
  writeFileSync(record, '');
  served = await runServe({ command: [process.execPath, 'test/fixtures/serve-raw-echo-child.mjs', record], port: 0, log: () => {} });
  headers = HEADERS;
  const init = await post(
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
  );
  await init.text();
  headers = { ...HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')! };
  await (await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).text();
});
afterAll(async () => {
  await served?.close();
  rmSync(record, { force: true });
});

const digits = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });
/** A JSON number as written: up to 30 digits before the point, a sign, a fraction, an exponent. */
const rawNumber = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom(...'123456789'), digits(0, 29)).map(([a, b]) => a + b),
    ),
    fc.option(digits(1, 12)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 4))),
  )
  .map(([minus, int, frac, exp]) => `${minus ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : exp.join('')}`);

describe('serve, numbers and ids', () => {
  it('pass byte for byte host -> child and child -> host, in params, results and ids', async () => {
    await fc.assert(
      fc.asyncProperty(rawNumber, fc.array(rawNumber, { minLength: 1, maxLength: 4 }), async (id, numbers) => {
        const params = `{"n":[${numbers.join(',')}],"x":${numbers[0]}}`;
        const request = `{"jsonrpc":"2.0","id":${id},"method":"echo","params":${params}}`;
        const text = await (await post(request)).text();
        expect(lines().at(-1)).toBe(request);
        // What the child wrote, event by event, as it wrote it.
        const data = [...text.matchAll(/^data: (.+)$/gm)].map((m) => m[1]);
        expect(data).toEqual([
          `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${params}}}`,
          `{"jsonrpc":"2.0","id":${id},"method":"roots/list","params":${params}}`,
          `{"jsonrpc":"2.0","id":${id},"result":${params}}`,
        ]);
        // The host's answer to the child's request reaches it as written.
        const answer = `{"jsonrpc":"2.0","id":${id},"result":{"roots":[],"n":${numbers.at(-1)}}}`;
        expect((await post(answer)).status).toBe(202);
        while (lines().at(-1) !== answer && lines().length < 1e6) await new Promise((r) => setTimeout(r, 5));
      }),
      runs(25),
    );
  }, 60_000);

  it('fixed cases: 64-bit and longer ids, 1e400, -0, 1.0', async () => {
    for (const [id, n] of [
      ['12345678901234567890', '1e400'],
      ['9007199254740993', '-0'],
      ['1.0', '123456789012345678901234567890'],
    ]) {
      const request = `{"jsonrpc":"2.0","id":${id},"method":"echo","params":{"n":${n}}}`;
      const text = await (await post(request)).text();
      expect(lines().at(-1)).toBe(request);
      expect(text).toContain(`data: {"jsonrpc":"2.0","id":${id},"result":{"n":${n}}}\n`);
    }
  });
});

describe('serve, answers it writes itself', () => {
  it('carry the id as the host wrote it: a request whose keys collide once decoded, a body that is not UTF-8', async () => {
    const token = '__mcp_ref_5177656e__'; // (Qwen: the key `Qwen` and its token decode alike)
    for (const id of ['9007199254740993', '123456789012345678901234567890', '-1.50e+3']) {
      const collide = `{"jsonrpc":"2.0","id":${id},"method":"echo","params":{"Qwen":1,"${token}":2}}`;
      expect(await (await post(collide)).text()).toMatch(
        new RegExp(`^\\{"jsonrpc":"2.0","id":${id.replace(/[.+]/g, '\\$&')},"error":\\{"code":-32602,`),
      );
      const bad = new Uint8Array([
        ...new TextEncoder().encode(`{"jsonrpc":"2.0","id":${id},"method":"echo","params":{"t":"A`),
        0xff,
        ...new TextEncoder().encode('"}}'),
      ]);
      const res = await fetch(served.url, { method: 'POST', headers, body: bad });
      expect(await res.text()).toMatch(new RegExp(`^\\{"jsonrpc":"2.0","id":${id.replace(/[.+]/g, '\\$&')},"error":\\{"code":-32700,`));
    }
    expect(lines().some((l) => l.includes(token) || l.includes('"A'))).toBe(false); // (neither reached the child)
  });
});
