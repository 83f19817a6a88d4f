// OwnRequests' ids: the server sees the ids of the guard's tools/list requests; from them it must
// not be able to tell the ids of the guard's questions to the client (a request of its own to the
// client under such an id would have the user's yes read as a confirmation).
import { describe, expect, it } from 'vitest';
import { OwnRequests } from '../src/guard/own-requests.ts';
import type { Message } from '../src/jsonrpc/message.ts';

const idsSentBy = (side: 'server' | 'client', n: number) => {
  const sent: string[] = [];
  const own = new OwnRequests((m: Message) => void sent.push((m as { id: string }).id), side);
  for (let i = 0; i < n; i++) void own.request('ping', {}, 60_000).catch(() => {});
  own.failAll('done');
  return sent;
};

describe('OwnRequests ids', () => {
  it('hold a random part of their side that the other side never sees', () => {
    const server = idsSentBy('server', 3);
    const client = idsSentBy('client', 3);
    const random = (id: string) => /^mcp-payload-codec\/ping\/([0-9a-f]{24})-\d+$/.exec(id)?.[1];
    expect(server.map(random).every((r) => r === random(server[0]!))).toBe(true);
    expect(client.map(random).every((r) => r === random(client[0]!))).toBe(true);
    expect(random(server[0]!)).toBeDefined();
    for (const id of server) expect(id).not.toContain(random(client[0]!)!);
    expect(new Set([...server, ...client]).size).toBe(6);
  });
});
