// ToolCallGuardTransport asking the client, with the real SDK Client and McpServer. `confirm`: a
// client that declared elicitation is sent an elicitation/create of the guard's own (its answer
// never reaches the server); one that did not is asked through askUser, or the call is blocked.
// `roots: 'client'`: the guard asks roots/list (again on list_changed) and confines paths to them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type ElicitResult, type JSONRPCMessage, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { AuditEntry } from '../src/guard/audit.ts';
import type { ConfirmRequest } from '../src/guard/confirm.ts';
import { type ToolCallGuardOptions, ToolCallGuardTransport } from '../src/mcp/index.ts';
import { quick } from './mcp-sdk.ts';

vi.setConfig({ testTimeout: 10_000 });

/** `elicit`: the client's elicitation handler (undefined: the client declares no elicitation). */
async function setup(options: ToolCallGuardOptions, elicit?: () => Promise<ElicitResult>) {
  const ran: string[] = [];
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool(
    'rm',
    { inputSchema: { path: z.string(), force: z.boolean().optional() }, annotations: { destructiveHint: true } },
    async () => {
      ran.push('rm');
      return { content: [{ type: 'text' as const, text: 'removed' }] };
    },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const serverGot: JSONRPCMessage[] = [];
  const serverOnMessage = () => {
    const handler = serverSide.onmessage!;
    serverSide.onmessage = (m, extra) => {
      serverGot.push(m);
      handler(m, extra);
    };
  };
  await server.connect(serverSide);
  serverOnMessage();
  const trail: AuditEntry[] = [];
  const guarded = new ToolCallGuardTransport(clientSide, { confirm: ['destructive'], onAudit: (e) => trail.push(e), ...options });
  const client = quick(new Client({ name: 'c', version: '1' }, elicit ? { capabilities: { elicitation: {} } } : {}));
  const asked: unknown[] = [];
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return elicit();
    });
  await client.connect(guarded);
  await client.listTools();
  const call = async () => {
    const r = (await client.callTool({ name: 'rm', arguments: { path: '/SECRET', force: true } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    return r.isError ? r.content[0]!.text.replace(/^.*the server: /, '') : 'ran';
  };
  return { call, ran, asked, serverGot, trail };
}

describe('ToolCallGuardTransport confirm', () => {
  it('asks a client that declared elicitation; yes runs the call, no answers it declined; the server sees no answer', async () => {
    let answer: ElicitResult = { action: 'accept', content: { allow: true } };
    const s = await setup({}, async () => answer);
    expect(await s.call()).toBe('ran');
    answer = { action: 'decline' };
    expect(await s.call()).toBe('declined by the user');
    expect(s.ran).toEqual(['rm']);
    expect(s.asked).toHaveLength(2);
    expect((s.asked[0] as { message: string }).message).toBe('Allow the tool "rm" to run with the arguments "path", "force"?');
    expect(JSON.stringify(s.asked)).not.toContain('SECRET');
    expect(s.serverGot.map((m) => (m as { method?: string }).method ?? 'an answer')).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
    ]);
    expect(s.trail.map((e) => e.decision)).toEqual(['confirmed', 'declined']);
  });

  it('a client that never answers: blocked once the bound passes', async () => {
    const s = await setup({ confirmTimeoutMs: 200 }, () => new Promise(() => {}));
    expect(await s.call()).toBe('no confirmation from the user within 0.2 s');
    expect(s.ran).toEqual([]);
    expect(s.trail.map((e) => [e.decision, e.rule])).toEqual([['timed-out', 'confirm']]);
  });

  it('a client without elicitation: askUser decides, told the tool and the argument names', async () => {
    const requests: ConfirmRequest[] = [];
    let yes = true;
    const s = await setup({
      askUser: async (r) => {
        requests.push(r);
        return yes;
      },
    });
    expect(await s.call()).toBe('ran');
    yes = false;
    expect(await s.call()).toBe('declined by the user');
    expect(requests).toEqual([
      { tool: 'rm', argumentNames: ['path', 'force'] },
      { tool: 'rm', argumentNames: ['path', 'force'] },
    ]);
    expect(s.ran).toEqual(['rm']);
  });

  it('a client without elicitation and no askUser: blocked, it cannot be asked', async () => {
    const s = await setup({});
    expect(await s.call()).toBe('needs a confirmation that this client cannot ask for');
    expect(s.ran).toEqual([]);
  });
});

describe("ToolCallGuardTransport roots: 'client'", () => {
  it('asks the client for its roots (again on list_changed) and confines path arguments to them', async () => {
    const ran: string[] = [];
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('peek', { inputSchema: { path: z.string() } }, async ({ path }) => {
      ran.push(path);
      return { content: [{ type: 'text' as const, text: 'ok' }] };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = quick(new Client({ name: 'c', version: '1' }, { capabilities: { roots: { listChanged: true } } }));
    let root = '/srv/a';
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file://${root}` }] }));
    await client.connect(new ToolCallGuardTransport(clientSide, { roots: 'client' }));
    const peek = async (path: string) => {
      const r = (await client.callTool({ name: 'peek', arguments: { path } })) as { isError?: boolean; content: { text: string }[] };
      return r.isError ? r.content[0]!.text.replace(/^.*the server: /, '') : 'ran';
    };
    expect(await peek('/srv/a/x')).toBe('ran');
    expect(await peek('/srv/b/x')).toBe('argument "/path" is a path outside the allowed roots ("/srv/a")');
    root = '/srv/b';
    await client.sendRootsListChanged();
    expect(await peek('/srv/b/x')).toBe('ran');
    expect(ran).toEqual(['/srv/a/x', '/srv/b/x']);
  });

  it('a client without roots: a path-bearing call is blocked with the reason', async () => {
    const server = new McpServer({ name: 's', version: '1' });
    server.registerTool('peek', { inputSchema: { path: z.string() } }, async () => ({ content: [] }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = quick(new Client({ name: 'c', version: '1' }));
    await client.connect(new ToolCallGuardTransport(clientSide, { roots: 'client' }));
    const r = (await client.callTool({ name: 'peek', arguments: { path: '/srv/a' } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/argument "\/path" is a path, and the client's roots are not known: the client declared no roots/);
  });
});
