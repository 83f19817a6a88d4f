// Answers the library writes itself carry the request's id as the request wrote it, byte for
// byte: ids past 2^53 and 2^64, negative ones, `1.0`, `1e3`, `-0`, `1e400`, strings with escapes.
// Before, each was answered under JSON.parse's value written again (`9007199254740993` as
// 9007199254740992, `1e400` as null, `"a\u0041"` as "aA"): a client matching by its own id
// text waited for its timeout. Each path is driven as a client would drive it (a real `wrap`
// child process, `proxy` and an upstream on real sockets, `connect`, the filtering fetch), one
// process per test, many messages per run; the SDK wrappers are held to the SDK's own answers.
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runConnect } from '../src/cli/connect.ts';
import { runProxy } from '../src/cli/proxy.ts';
import { createFilteringFetch } from '../src/http/index.ts';
import { memberText, rawIds } from '../src/jsonrpc/raw-id.ts';
import { IntegrityGuardTransport, PayloadFilteringTransport } from '../src/mcp/index.ts';
import { runs } from './arbitraries.ts';
import { CliSession, fixture } from './fixtures/cli-session.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';

const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
/** A JSON number as written: up to 30 digits, a sign, a fraction, an exponent. */
const numberText = fc
  .record({
    minus: fc.boolean(),
    int: fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom(...'123456789'), digits(0, 29)).map(([a, b]) => a + b),
    ),
    frac: fc.option(digits(1, 4), { nil: undefined }),
    exp: fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)), { nil: undefined }),
  })
  .map(({ minus, int, frac, exp }) => `${minus ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}${exp?.join('') ?? ''}`);
/** A JSON string as written, escapes and all (a term, too: ids are never encoded). */
const stringText = fc
  .array(fc.constantFrom('a', 'Z', '7', ' ', 'é', 'qwen', '\\u0041', '\\"', '\\\\', '\\/', '\\n', '\\u00e9', '\\ud83d\\ude00', ':', ','), {
    maxLength: 6,
  })
  .map((parts) => `"${parts.join('')}"`);
const FIXED = ['9007199254740993', '18446744073709551617', '-9223372036854775809', '-0', '1.0', '1e3', '1e400', '"a\\u0041"'];
const idText = fc.oneof(numberText, stringText, fc.constantFrom(...FIXED));

/** How the request writes its id: where, under which spelling of the key, after a decoy `id`. */
const placement = fc.record({ first: fc.boolean(), escapedKey: fc.boolean(), decoy: fc.boolean(), space: fc.boolean() });
type Placement = typeof placement extends fc.Arbitrary<infer T> ? T : never;

const PARAMS = {
  clean: '{"name":"w","arguments":{"text":"AB"}}',
  collide: '{"name":"w","arguments":{"qwen":1,"__mcp_ref_7177656e__":2}}',
  damaged: '{"name":"w","arguments":{"text":"\\ufffd"}}',
  bad: '{"name":"w","arguments":{"text":"A\u0000B"}}', // (the NUL becomes a byte that is not UTF-8)
};
type Kind = keyof typeof PARAMS;

/** A message's text with `id` written as `p` says: JSON.parse keeps the last `id`, so must the answer. */
function messageWith(id: string, p: Placement, body: string): string {
  const member = `${p.escapedKey ? '"\\u0069d"' : '"id"'}${p.space ? ' : ' : ':'}${id}`;
  const parts = ['"jsonrpc":"2.0"', body];
  if (p.first) parts.splice(1, 0, member);
  else parts.push(member);
  if (p.decoy) parts.unshift('"id":"decoy"');
  return `{${parts.join(p.space ? ' , ' : ',')}}`;
}
const request = (id: string, p: Placement, kind: Kind, method = 'tools/call') =>
  messageWith(id, p, `"method":"${method}","params":${PARAMS[kind]}`);
const response = (id: string, p: Placement, kind: 'collide' | 'bad') =>
  messageWith(id, p, `"result":${kind === 'collide' ? '{"qwen":1,"__mcp_ref_7177656e__":2}' : '{"text":"A\u0000B"}'}`);
/** The bytes of a message text; a NUL (only in `bad` ones) becomes 0xff. */
const bytesOf = (text: string) => Uint8Array.from(Buffer.from(text), (b) => (b === 0 ? 0xff : b));

/**
 * The reference: every id in answers the library wrote, as written, found by a pattern (these
 * answers hold no other "id" key, and no id text is a prefix of the `"id":` of another).
 */
const idsIn = (text: string) => [...text.matchAll(/"id":("(?:[^"\\]|\\.)*"|[-+.0-9eE]+)/g)].map((m) => m[1]!);
const sorted = (a: readonly string[]) => [...a].sort();

/** Unique ids by text (each answer is found by its id); `decoy` is the decoy's. */
const uniqueIds = (min: number, max: number) =>
  fc.uniqueArray(
    idText.filter((t) => t !== '"decoy"'),
    { minLength: min, maxLength: max },
  );

const cleanup: (() => unknown)[] = [];
afterAll(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => close(server));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}
const close = (server: Server) => {
  server.closeAllConnections();
  server.close();
};
/** A URL nothing listens on. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  await new Promise((r) => server.close(r));
  return url;
}

/**
 * An upstream whose every answer is an event stream holding an event the encoder refuses (not
 * UTF-8; its own id after the bad byte, so none of it reaches the client): the filter ends the
 * stream with an error for each request of the POST. Or, with `status`, that status.
 */
const upstream = (status?: number) =>
  listen((req, res) => {
    req.resume();
    req.on('end', () => {
      if (status) {
        res.writeHead(status).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        Buffer.concat([
          Buffer.from('event: message\ndata: {"jsonrpc":"2.0","result":{"t":"A'),
          Buffer.from([0xff]),
          Buffer.from('"},"id":0}\n\n'),
        ]),
      );
    });
  });

describe('rawIds', () => {
  it('reads each message id as written (the last `id` key, escaped keys, nesting, spaces, batches)', () => {
    const element = fc.oneof(
      fc.tuple(fc.option(idText, { nil: undefined }), placement, fc.constantFrom<Kind>('clean', 'collide', 'damaged')),
      fc.constantFrom('1', '"s"', '[{"id":2}]', 'null', '{}'),
    );
    fc.assert(
      fc.property(fc.array(element, { minLength: 1, maxLength: 5 }), fc.boolean(), (elements, batch) => {
        const texts = elements.map((e) =>
          typeof e === 'string'
            ? e
            : e[0] === undefined
              ? `{"jsonrpc":"2.0","method":"x","params":${PARAMS[e[2]]}}`
              : request(e[0], e[1], e[2]),
        );
        const expected = elements.map((e) => (typeof e === 'string' ? undefined : e[0]));
        if (batch || elements.length > 1 || texts[0]!.startsWith('['))
          expect(rawIds(` [ ${texts.join(' ,\n')} ] `).map((r) => r?.text)).toEqual(expected);
        else expect(rawIds(` ${texts[0]}\n`).map((r) => r?.text)).toEqual(expected);
      }),
      runs(300),
    );
  });
});

describe('rawIds costs linear time', () => {
  // Shapes that would cost more than a pass: backslash runs before quotes, deep nesting, many
  // escaped top-level keys, a long batch (each with its id last).
  const shapes: Record<string, (n: number) => string> = {
    'backslash runs': (n) => `{"params":{"a":"${'\\\\\\"'.repeat(n)}"},"id":1}`,
    nesting: (n) => `{"params":${'[{"id":0},'.repeat(n)}1${']'.repeat(n)},"id":1}`,
    'escaped keys': (n) => `{${'"\\u0069x":1,'.repeat(n)}"id":1}`,
    batch: (n) => `[${'{"jsonrpc":"2.0","method":"x","id":2},'.repeat(n)}{"id":1}]`,
  };
  for (const [name, shape] of Object.entries(shapes)) {
    it(name, () => {
      const [small, big] = [shape(20_000), shape(80_000)];
      expect(rawIds(small).at(-1)?.text).toBe('1');
      expect(
        growth(
          () => rawIds(small),
          () => rawIds(big),
        ),
      ).toBeLessThan(LINEAR_BOUND);
    });
  }
});

describe('answers the library writes carry the id as written', () => {
  it('wrap: a collision, a refused line, a guard block (and the server told under its id)', async () => {
    const record = join(mkdtempSync(join(tmpdir(), 'mpc-raw-ids-')), 'seen.ndjson');
    const s = new CliSession(['wrap', '--guard', process.execPath, fixture('serve-record-child.mjs'), record]);
    cleanup.push(() => s.end());
    let answered = 0;
    let told = 0;
    const kinds = fc.constantFrom<Kind | 'response-collide' | 'response-bad'>(
      'collide',
      'bad',
      'damaged',
      'response-collide',
      'response-bad',
    );
    await fc.assert(
      fc.asyncProperty(
        uniqueIds(1, 8),
        fc.array(fc.tuple(kinds, placement), { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        async (ids, how, batch) => {
          const lines = ids.map((id, k) => {
            const [kind, p] = how[k]!;
            return kind === 'response-collide'
              ? response(id, p, 'collide')
              : kind === 'response-bad'
                ? response(id, p, 'bad')
                : request(id, p, kind);
          });
          const toServer = ids.filter((_, k) => how[k]![0].startsWith('response'));
          const toClient = ids.filter((_, k) => !how[k]![0].startsWith('response'));
          // (A batch goes whole: a bad byte or a collision in it refuses all of it; a batch of
          // blocked calls is answered as a batch.)
          const sendAsBatch = batch && how.slice(0, ids.length).every(([kind]) => kind === 'damaged');
          s.child.stdin.write(bytesOf(sendAsBatch ? `[${lines.join(',')}]\n` : `${lines.join('\n')}\n`));
          await s.until(() => idsIn(s.stdout.toString()).length >= answered + toClient.length);
          const got = idsIn(s.stdout.toString()).slice(answered);
          answered += got.length; // (first: a shrinking run starts after what this one got)
          expect(sorted(got)).toEqual(sorted(toClient));
          const seen = async () => {
            for (;;) {
              let text = '';
              try {
                text = readFileSync(record, 'utf8');
              } catch {}
              const found = idsIn(text);
              if (found.length >= told + toServer.length) return found;
              await new Promise((r) => setTimeout(r, 5));
            }
          };
          const server = (await seen()).slice(told);
          told += server.length;
          expect(sorted(server)).toEqual(sorted(toServer));
        },
      ),
      runs(6),
    );
  }, 60_000);

  it('proxy: a refused body, a collision, a guard block, the events that end a cut stream, 502 for an unreachable upstream', async () => {
    const proxy = await runProxy({ upstream: await upstream(), port: 0, guard: 'all', log: () => {} });
    const dead = await runProxy({ upstream: await closedUrl(), port: 0, log: () => {} });
    cleanup.push(
      () => close(proxy.server),
      () => close(dead.server),
    );
    const post = async (url: string, body: Uint8Array<ArrayBuffer>) =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body,
        })
      ).text();
    const kinds = fc.constantFrom<Kind | 'unreachable'>('bad', 'collide', 'damaged', 'clean', 'unreachable');
    await fc.assert(
      fc.asyncProperty(uniqueIds(1, 3), kinds, placement, fc.boolean(), async (ids, kind, p, batch) => {
        const messages = ids.map((id) => request(id, p, kind === 'unreachable' ? 'clean' : kind));
        const body = bytesOf(batch ? `[${messages.join(',')}]` : messages[0]!);
        const text = await post(kind === 'unreachable' ? dead.url : proxy.url, body);
        expect(sorted(idsIn(text))).toEqual(sorted(batch ? ids : ids.slice(0, 1)));
      }),
      runs(10),
    );
  }, 60_000);

  it('createFilteringFetch: a refused body, a collision, a guard block, the events that end a cut stream', async () => {
    const url = await upstream();
    const filtered = createFilteringFetch({ guard: 'all' });
    await fc.assert(
      fc.asyncProperty(
        uniqueIds(1, 3),
        fc.constantFrom<Kind>('bad', 'collide', 'damaged', 'clean'),
        placement,
        fc.boolean(),
        async (ids, kind, p, batch) => {
          const messages = ids.map((id) => request(id, p, kind));
          const body = bytesOf(batch ? `[${messages.join(',')}]` : messages[0]!);
          const response = await filtered(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body,
          });
          expect(sorted(idsIn(await response.text()))).toEqual(sorted(batch ? ids : ids.slice(0, 1)));
        },
      ),
      runs(10),
    );
  }, 60_000);

  it('connect: a line that is not UTF-8, an unreachable or failing server, and what the filter answers', async () => {
    const sessions = await Promise.all(
      [await upstream(), await upstream(500), await closedUrl()].map((url) => {
        const input = new PassThrough();
        const output = new PassThrough();
        let text = '';
        output.on('data', (d: Buffer) => (text += d.toString()));
        const done = runConnect({ url, input, output, guard: 'all', log: () => {} });
        cleanup.push(() => {
          input.end();
          return done;
        });
        return { input, text: () => text };
      }),
    );
    const answered = [0, 0, 0];
    await fc.assert(
      fc.asyncProperty(
        uniqueIds(1, 6),
        fc.array(fc.tuple(fc.constantFrom<Kind>('bad', 'collide', 'damaged', 'clean'), placement, fc.nat(2)), {
          minLength: 6,
          maxLength: 6,
        }),
        async (ids, how) => {
          const expected: string[][] = [[], [], []];
          for (const [k, id] of ids.entries()) {
            const [kind, p, at] = how[k]!;
            sessions[at]!.input.write(bytesOf(`${request(id, p, kind)}\n`));
            expected[at]!.push(id);
          }
          for (const [at, s] of sessions.entries()) {
            for (;;) {
              if (idsIn(s.text()).length >= answered[at]! + expected[at]!.length) break;
              await new Promise((r) => setTimeout(r, 5));
            }
            const got = idsIn(s.text()).slice(answered[at]);
            answered[at]! += got.length;
            expect(sorted(got)).toEqual(sorted(expected[at]!));
          }
        },
      ),
      runs(6),
    );
  }, 60_000);

  it('the SDK wrappers (server side) answer under the id the SDK itself answers under', async () => {
    // The SDK's transport parsed the line: the wrappers have the parsed id only, and the SDK's
    // own answers (a ping's) are written from it. Their blocked answers must agree with those.
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (d: Buffer) => (text += d.toString()));
    const server = new SdkServer({ name: 'ids', version: '1' }, { capabilities: { tools: {} } });
    await server.connect(
      new IntegrityGuardTransport(new PayloadFilteringTransport(new StdioServerTransport(stdin, stdout), { side: 'server' }), {
        side: 'server',
      }),
    );
    cleanup.push(() => server.close());
    const accepted = (id: string) => JSONRPCMessageSchema.safeParse({ jsonrpc: '2.0', id: JSON.parse(id), method: 'ping' }).success;
    await fc.assert(
      fc.asyncProperty(idText.filter(accepted), placement, async (id, p) => {
        const answers: string[] = [];
        for (const line of [request(id, p, 'clean', 'ping'), request(id, p, 'damaged'), request(id, p, 'collide')]) {
          const before = text.length;
          stdin.write(`${line}\n`);
          while (!text.slice(before).includes('\n')) await new Promise((r) => setTimeout(r, 1));
          answers.push(...idsIn(text.slice(before)));
        }
        expect(answers).toHaveLength(3);
        expect(new Set(answers).size).toBe(1); // (the blocked call and the collision: as the ping)
      }),
      runs(20),
    );
  });
});

describe('memberText', () => {
  it("reads a nested member as written (a cancellation's params.requestId: the last one, escaped keys, decoys, spaces)", () => {
    fc.assert(
      fc.property(fc.array(idText, { minLength: 1, maxLength: 3 }), idText, fc.boolean(), (ids, decoy, escaped) => {
        const key = escaped ? '"request\\u0049d"' : '"requestId"';
        const members = ids.map((t) => `${key} : ${t}`).join(' ,\n ');
        const text = `{ "id": ${decoy}, "requestId": ${decoy}, "params" : { "x": {"requestId": ${decoy}}, ${members} , "y": [${decoy}] }, "method":"notifications/cancelled" }`;
        JSON.parse(text); // (valid JSON, as the decoder hands it on)
        expect(memberText(text, ['params', 'requestId'])).toBe(ids.at(-1));
        expect(memberText(text, ['params', 'z'])).toBeUndefined();
        expect(memberText(text, ['method', 'requestId'])).toBeUndefined();
      }),
      runs(300),
    );
  });
});
