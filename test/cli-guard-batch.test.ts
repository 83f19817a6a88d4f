// The proxy's guard on random batches, against a plain reference: every request is checked on
// its own; the server gets exactly what passed (in order, still a batch); the client gets ONE
// batch response holding every request's answer once, whether the server answers with a batch
// (merged) or line by line (the proxy's answers follow as a batch).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { WrapGuard } from '../src/cli/guard.ts';
import { type Reply, replyLine } from '../src/cli/replies.ts';
import { createCodec } from '../src/index.ts';
import { ToolCallGuard } from '../src/mcp/index.ts';
import { runs } from './arbitraries.ts';

const TOOLS = [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }];
const utf8 = new TextEncoder();
const text = new TextDecoder();
const line = (m: unknown) => utf8.encode(JSON.stringify(m) + '\n');
const lines = (chunks: Uint8Array[]) =>
  text
    .decode(Buffer.concat(chunks))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

type Kind = 'valid' | 'invalid' | 'unknown' | 'fffd' | 'notification' | 'response';
const KINDS: Kind[] = ['valid', 'invalid', 'unknown', 'fffd', 'notification', 'response'];

function message(kind: Kind, id: number): Record<string, unknown> {
  const call = (name: string, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  switch (kind) {
    case 'valid':
      return call('echo', { text: `t${id}` });
    case 'invalid':
      return call('echo', { text: id });
    case 'unknown':
      return call('nope', {});
    case 'fffd':
      return call('echo', { text: 'x\uFFFD' }); // schema-valid: only the integrity guard stops it
    case 'notification':
      return { jsonrpc: '2.0', method: 'notifications/progress', params: { n: id } };
    case 'response':
      return { jsonrpc: '2.0', id: `s${id}`, result: {} }; // the client answering a server request
  }
}

/** A session: the list learnt, then `batch` sent; what the server and the client got. */
function session(kinds: Kind[], integrity: boolean, serverBatches: boolean) {
  const codec = createCodec();
  const toServer: Uint8Array[] = [];
  const toClient: Uint8Array[] = [];
  let guard!: WrapGuard;
  const server = (bytes: Uint8Array) => {
    toServer.push(bytes);
    for (const m of lines([bytes])) {
      const answer = (r: { id?: unknown; method?: string }) =>
        r.method === undefined || r.id === undefined
          ? undefined
          : {
              jsonrpc: '2.0',
              id: r.id,
              result: r.method === 'tools/list' ? { tools: TOOLS } : { content: [{ type: 'text', text: `ran ${String(r.id)}` }] },
            };
      if (!Array.isArray(m)) {
        const a = answer(m);
        if (a) guard.toClient(line(a));
        continue;
      }
      const answers = m.map(answer).filter(Boolean);
      if (serverBatches && answers.length) guard.toClient(line(answers));
      else for (const a of answers) guard.toClient(line(a));
    }
  };
  guard = new WrapGuard(
    codec,
    {
      toServer: server,
      toClient: (b) => toClient.push(b),
      reply: (r: Reply) => toClient.push(replyLine(codec, r)),
      log: () => {},
      fail: (e) => {
        throw e;
      },
      busy: () => {},
    },
    { tools: true, integrity },
  );
  guard.fromClient(line({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} }));
  const batch = kinds.map((k, i) => message(k, i + 1));
  const before = toServer.length;
  const clientBefore = toClient.length;
  guard.fromClient(line(batch));
  const client = lines(toClient.slice(clientBefore));
  guard.endFromServer();
  const late = lines(toClient.slice(clientBefore)).length - client.length;
  return { batch, server: lines(toServer.slice(before)), client, late };
}

beforeAll(() => ToolCallGuard.ready());

describe('wrap --guard on random batches', () => {
  it('checks every request; one batch response; the server gets exactly what passed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...KINDS), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.boolean(),
        (kinds, integrity, serverBatches) => {
          const { batch, server, client, late } = session(kinds, integrity, serverBatches);
          const blocked = (k: Kind) => k === 'invalid' || k === 'unknown' || (k === 'fffd' && integrity);
          const passing = batch.filter((_, i) => !blocked(kinds[i]!));
          const requests = batch.filter((m) => typeof m.method === 'string' && m.id !== undefined);
          // The server: what passed, as a batch, in order (nothing when nothing passed).
          expect(server).toEqual(passing.length ? [passing] : []);
          expect(late).toBe(0); // nothing waits for the server's output to end
          if (requests.length === 0) {
            expect(client).toEqual([]);
            return;
          }
          const answers = client.flat() as { id: number; result: { isError?: boolean; content: { text: string }[] } }[];
          expect(answers.map((a) => a.id).sort()).toEqual(requests.map((m) => m.id).sort());
          for (const a of answers) {
            const kind = kinds[a.id - 1]!;
            if (blocked(kind)) expect(a.result.isError).toBe(true);
            else expect(a.result.content[0]!.text).toBe(`ran ${a.id}`);
          }
          // One batch response, unless the server itself answers line by line.
          const anyBlocked = kinds.some(blocked);
          const passingRequests = passing.some((m) => typeof m.method === 'string' && m.id !== undefined);
          if (!anyBlocked) {
            expect(client.filter((c) => Array.isArray(c))).toHaveLength(serverBatches ? 1 : 0); // the server's own
          } else if (serverBatches || !passingRequests) {
            expect(client).toHaveLength(1);
            expect(Array.isArray(client[0])).toBe(true);
          } else {
            expect(client.filter((c) => Array.isArray(c))).toHaveLength(1);
            expect(client.find((c) => Array.isArray(c))!.every((a: { result: { isError?: boolean } }) => a.result.isError)).toBe(true);
          }
        },
      ),
      runs(200),
    );
  });

  it('sends what passes of a batch as the client wrote it: big ids, number spellings and spacing kept', () => {
    const codec = createCodec();
    const toServer: Uint8Array[] = [];
    const guard = new WrapGuard(
      codec,
      {
        toServer: (b) => toServer.push(b),
        toClient: () => {},
        reply: () => {},
        log: () => {},
        fail: (e) => {
          throw e;
        },
        busy: () => {},
      },
      { tools: true, integrity: true },
    );
    guard.fromClient(line({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} }));
    guard.toClient(line({ jsonrpc: '2.0', id: 0, result: { tools: TOOLS } }));
    const kept = [
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","n":12345678901234567891,"x":1.50}}}',
      '{ "jsonrpc" : "2.0", "method" : "notifications/progress", "params" : { "s": "]\\"," } }',
    ];
    const blocked = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}';
    const before = toServer.length;
    guard.fromClient(utf8.encode(`[ ${kept[0]} ,\r${blocked}, ${kept[1]}\t]\n`));
    expect(text.decode(Buffer.concat(toServer.slice(before)))).toBe(`[${kept.join(',')}]\n`);
  });
});
