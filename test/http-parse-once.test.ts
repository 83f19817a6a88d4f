// A POST body read by both the tool guard and the call timer (createFilteringFetch with `guard`
// and `callTimeoutMs`) is parsed once: both read the same parse (src/http/parsed-body.ts).
// Counted as calls of JSON.parse on the text sent: the whole body, and what passes of a batch.
import { describe, expect, it, vi } from 'vitest';
import { createFilteringFetch, type FetchLike } from '../src/http/index.js';

/** An upstream that answers each request at once, as JSON (tools/list with no tools), read without JSON.parse. */
const upstream: FetchLike = async (_input, init) => {
  const sent = await new Response(init!.body).text();
  const ids = [...sent.matchAll(/"id":(\d+|"[^"]*")/g)].map((m) => m[1]);
  const result = sent.includes('"tools/list"') ? '{"tools":[]}' : '{}';
  const answers = ids.map((id) => `{"jsonrpc":"2.0","id":${id},"result":${result}}`);
  const body = sent.startsWith('[') ? `[${answers.join(',')}]` : answers[0]!;
  return new Response(body, { headers: { 'content-type': 'application/json' } });
};

const post = (f: FetchLike, body: string) =>
  f('http://upstream.invalid/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body,
  }).then((r) => r.text());

describe('a POST body under a guard and a call time limit', () => {
  it('is parsed once, whole or as what passes of a batch', async () => {
    const f = createFilteringFetch({ fetch: upstream, guard: 'all', callTimeoutMs: 5_000 });
    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    // (a call of a tool the list does not hold is answered here: the ping alone goes on)
    const call = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nowhere","arguments":{}}}';
    const batch = `[${ping},${call}]`;
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const single = await post(f, ping);
      const answered = await post(f, batch);
      expect(JSON.parse(single)).toMatchObject({ id: 1, result: {} });
      expect(
        JSON.parse(answered)
          .map((a: { id: number }) => a.id)
          .sort(),
      ).toEqual([1, 2]);
      const reads = (text: string) => parse.mock.calls.filter(([t]) => t === text).length;
      expect(reads(ping)).toBe(1);
      expect(reads(batch)).toBe(1);
      expect(reads(`[${ping}]`)).toBe(0); // (what passes: its parse is the batch's)
    } finally {
      parse.mockRestore();
    }
  });
});
