// wrap --guard --root client: the real SDK client declares roots (ListRootsRequestSchema) and
// drives wrap around a real SDK server. The proxy asks roots/list itself once the client is
// initialized (a call with a path waits for the answer), asks again on list_changed (which the
// server still gets), confines path arguments to the file: roots, and the server never sees the
// client's answer (test/fixtures/stdin-spy.mjs records what it read). A client without the
// capability: path-bearing calls are blocked with the reason, the others go on.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, REQUEST, ROOT, type Session } from './e2e-helpers.ts';

const T = 30_000;
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mpc-root-client-')));
const first = join(dir, 'first');
const second = join(dir, 'second');
const SPY = join(ROOT, 'test', 'fixtures', 'stdin-spy.mjs');
const SERVER = join(ROOT, 'test', 'fixtures', 'confirm-server.mjs');
const spyLog = join(dir, 'server-stdin.log');

let listed = first;
let listings = 0;
let withRoots: Session;
let without: Session;

beforeAll(async () => {
  mkdirSync(first);
  mkdirSync(second);
  [withRoots, without] = await Promise.all([
    connect(
      [process.execPath, SPY, spyLog, process.execPath, SERVER],
      'wrap',
      (client) => {
        client.registerCapabilities({ roots: { listChanged: true } });
        client.setRequestHandler(ListRootsRequestSchema, async () => {
          // (the first answer comes late: a call with a path meanwhile waits for it)
          if (listings++ === 0) await new Promise((r) => setTimeout(r, 300));
          return { roots: [{ uri: pathToFileURL(listed).href, name: 'work' }, { uri: 'https://example.com/not-a-folder' }] };
        });
      },
      ['--guard', '--root', 'client'],
    ),
    connect([process.execPath, SERVER], 'wrap', undefined, ['--guard', '--root', 'client']),
  ]);
}, T);

afterAll(async () => {
  await Promise.all([withRoots?.close(), without?.close()]);
});

const call = (s: Session, name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args }, undefined, REQUEST);
const text = (r: Awaited<ReturnType<typeof call>>) => (r.content as { text: string }[]).map((c) => c.text).join('\n');

describe('wrap --root client', () => {
  it(
    "confines path arguments to the client's file: roots (a call waits for the first listing)",
    async () => {
      const inside = await call(withRoots, 'peek', { path: join(first, 'a.txt') });
      expect(inside.isError ?? false).toBe(false);
      const outside = await call(withRoots, 'peek', { path: join(second, 'SECRET.txt') });
      expect(outside.isError).toBe(true);
      expect(text(outside)).toBe(
        `MCP tool call "peek" was blocked before it reached the server: argument "/path" is a path outside the allowed roots (${JSON.stringify(first)})`,
      );
      expect((await call(withRoots, 'echo', { text: join(second, 'x') })).isError ?? false).toBe(false); // (no path parameter)
      expect(listings).toBe(1);
    },
    T,
  );

  it(
    'asks again on list_changed, which still reaches the server',
    async () => {
      listed = second;
      await withRoots.client.sendRootsListChanged();
      expect((await call(withRoots, 'peek', { path: join(second, 'b.txt') })).isError ?? false).toBe(false);
      expect((await call(withRoots, 'peek', { path: join(first, 'a.txt') })).isError).toBe(true);
      expect(listings).toBe(2);
      const seen = readFileSync(spyLog, 'utf8');
      expect(seen).toContain('notifications/roots/list_changed');
      // Neither the proxy's roots/list nor the client's answers reached the server; nor the blocked calls.
      expect(seen).not.toMatch(/roots-list|"roots":\[|SECRET/);
      expect(seen).toContain(join(second, 'b.txt'));
    },
    T,
  );

  it(
    'a client without the roots capability: path-bearing calls are blocked with the reason, others go on',
    async () => {
      const r = await call(without, 'peek', { path: join(first, 'a.txt') });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(
        'MCP tool call "peek" was blocked before it reached the server: argument "/path" is a path, and the client\'s roots are not known: the client declared no roots (its roots capability)',
      );
      expect((await call(without, 'echo', { text: 'hi' })).isError ?? false).toBe(false);
    },
    T,
  );
});
