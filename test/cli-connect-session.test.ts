// connect's session with the remote server alone: a RemoteSession over a scripted fetch (the
// server's answers written by hand) and a HostLines on an in-memory stream (what the host
// reads). What it sends must carry the session as the SDK's client does; every request of a
// line must get one answer (the server's, or connect's own under its id as written).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HostLines } from '../src/cli/host-lines.ts';
import { RemoteSession } from '../src/cli/remote-session.ts';
import { createCodec } from '../src/index.ts';

const ENDPOINT = new URL('http://remote.example/mcp');

interface Sent {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** A session whose server answers each request with `answer(sent, n)` (n: its number, from 0). */
function remote(answer: (sent: Sent, n: number) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const output = new PassThrough();
  let read = '';
  output.on('data', (b: Buffer) => {
    read += b.toString('utf8');
  });
  const logs: string[] = [];
  const session = new RemoteSession({
    endpoint: ENDPOINT,
    headers: new Headers({ authorization: 'Bearer t' }),
    fetch: async (_url, init = {}) => {
      const s: Sent = { method: init.method ?? 'GET', headers: Object.fromEntries(new Headers(init.headers)) };
      if (typeof init.body === 'string') s.body = init.body;
      sent.push(s);
      return answer(s, sent.length - 1);
    },
    host: new HostLines(output, createCodec()),
    log: (l) => void logs.push(l),
    maxBytes: 1 << 20,
  });
  const lines = () => read.split('\n').slice(0, -1); // (blank lines too: the host would read them)
  return { session, sent, lines, logs };
}

const json = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status: 200, headers: { 'content-type': 'application/json', ...headers } });
const events = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream' } });

describe('RemoteSession', () => {
  it('keeps the session id and version from initialize, sends both after, opens the GET stream once initialized, ends with DELETE', async () => {
    const result = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', serverInfo: { name: 's' } } };
    const { session, sent, lines } = remote(({ method }, n) => {
      if (n === 0) return json(JSON.stringify(result, null, 2), { 'mcp-session-id': 'abc' }); // (pretty: the host gets one line)
      if (method === 'GET') return new Response(null, { status: 405 });
      return new Response(null, { status: 202 });
    });
    await session.post('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    await session.post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await session.end();
    expect(lines().map((l) => JSON.parse(l))).toEqual([result]);
    const session_ = { 'mcp-session-id': 'abc', 'mcp-protocol-version': '2025-06-18', authorization: 'Bearer t' };
    expect(sent).toEqual([
      {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: 'Bearer t' },
        body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
      },
      {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...session_ },
        body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      },
      { method: 'GET', headers: { accept: 'text/event-stream', ...session_ } },
      { method: 'DELETE', headers: { accept: 'application/json, text/event-stream', ...session_ } },
    ]);
  });

  it("answers each request of a line itself, under its id as written, when the server's answer is no answer", async () => {
    const line =
      '[{"jsonrpc":"2.0","id":12345678901234567890,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"b","method":"b"}]';
    const cases: [() => Response, string][] = [
      [() => new Response('no', { status: 500 }), 'The MCP server answered HTTP 500'],
      [
        () => {
          throw new TypeError('fetch failed');
        },
        'Cannot reach the MCP server (TypeError)',
      ],
      [
        () => new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } }),
        'The MCP server answered with Content-Type text/html, neither JSON nor an event stream',
      ],
      [() => events(': no event ids, no answer\n\n'), 'The response stream ended before the response'],
      // (an empty body of another type is no answer either, but not a wrong one)
      [() => new Response('', { status: 200, headers: { 'content-type': 'text/plain' } }), 'The response stream ended before the response'],
    ];
    for (const [answer, message] of cases) {
      const { session, lines } = remote(answer);
      await session.post(line);
      expect(lines()).toEqual([
        `{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32000,"message":"${message}"}}`,
        `{"jsonrpc":"2.0","id":"b","error":{"code":-32000,"message":"${message}"}}`,
      ]);
    }
    const empty = remote(() => new Response(null, { status: 202 }));
    await empty.session.post('{"jsonrpc":"2.0","method":"n"}');
    expect(empty.lines()).toEqual([]);
  });

  it('relays an event stream a message per event (a priming event is none), and resumes one that ended early with Last-Event-ID', async () => {
    const progress = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}';
    const answer = '{"jsonrpc":"2.0","id":1,"result":{}}';
    const { session, sent, lines } = remote(({ method }) =>
      method === 'POST'
        ? events(`id: e1\ndata: \n\nid: e2\nretry: 1\nevent: message\ndata: ${progress}\n\n`)
        : events(`id: e3\ndata: ${answer}\n\n`),
    );
    await session.post('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}}');
    expect(lines()).toEqual([progress, answer]);
    expect(sent.map((s) => [s.method, s.headers['last-event-id']])).toEqual([
      ['POST', undefined],
      ['GET', 'e2'],
    ]);
  });

  it('answers a line that is not JSON with a parse error and posts nothing', async () => {
    const { session, sent, lines } = remote(() => json('{}'));
    await session.post('{"jsonrpc":');
    expect(lines().map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a line from the host is not JSON' } },
    ]);
    expect(sent).toEqual([]);
  });
});
