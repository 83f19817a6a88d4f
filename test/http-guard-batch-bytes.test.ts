// A batch partly blocked by the guard, through createFilteringFetch and createFilteringProxy:
// what passes goes upstream as the client's own bytes (big integers, number spellings and
// whitespace kept), the upstream's JSON answer reaches the client as its bytes with the guard's
// answers added, and an event-stream answer opening with a BOM keeps every event (read as the
// SDK reads it: TextDecoder, then eventsource-parser).
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFilteringFetch, createFilteringProxy, type FetchLike } from '../src/http/index.js';
import { runs } from './arbitraries.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const tools = {
  tools: [{ name: 'move', inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } }],
};

/** An upstream fetch that answers tools/list as JSON and any other body with `answer(raw body)`; records the raw bodies. */
function upstream(answer: (raw: string) => Response) {
  const bodies: string[] = [];
  const fetch: FetchLike = async (input, init) => {
    const raw = await new Request(input, init).text();
    if (raw.includes('"tools/list"')) {
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: tools }), { headers: { 'content-type': 'application/json' } });
    }
    bodies.push(raw);
    return answer(raw);
  };
  return { fetch, bodies };
}

type Way = 'fetch' | 'proxy';
async function poster(way: Way, inner: FetchLike): Promise<(raw: string) => Promise<Response>> {
  let post: (raw: string) => Promise<Response>;
  if (way === 'fetch') {
    const f = createFilteringFetch({ fetch: inner, guard: 'all' });
    post = (raw) => f('http://up.test/mcp', { method: 'POST', headers: HEADERS, body: raw });
  } else {
    const handler = createFilteringProxy({ upstream: 'http://up.test/mcp', fetch: inner, guard: 'all' });
    post = (raw) => handler(new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, host: 'localhost' }, body: raw }));
  }
  await (await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).text();
  return post;
}

const blocked = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"move","arguments":{"x":"bad"}}}`;
// Number spellings JSON.parse + JSON.stringify would change.
const numberText = fc.constantFrom('9007199254740993', '12345678901234567891', '1.10', '1e2', '-0', '0.5E-3', '100000000000000000000000');
const ws = fc.constantFrom('', ' ', '\n  ', '\t');
// Strings that hold the bytes an element splitter must not take as structure.
const tricky = fc.constantFrom('"]},[{', '\\', '\\"', ',', 'plain', '[[{');

describe.each<Way>(['fetch', 'proxy'])('a partly blocked batch through %s', (way) => {
  it('what passes goes upstream byte for byte; the JSON answer comes back byte for byte, plus the blocked answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(numberText, ws, ws, tricky), { minLength: 1, maxLength: 5 }), fc.nat(), async (items, at) => {
        // One blocked call at least, one passing request at least.
        const raws = items.map(
          ([n, a, b, t], i) =>
            `${a}{"jsonrpc":"2.0","id":${100 + i},"method":"tools/call","params":{"name":"move","arguments":{"x":${n},"n":${n},"s":${JSON.stringify(t)}}}}${b}`,
        );
        const pos = at % (raws.length + 1);
        const batch = [...raws.slice(0, pos), blocked(7), ...raws.slice(pos)];
        const answerItems = items.map(
          ([n], i) => `{"jsonrpc":"2.0","id":${100 + i},"result":{"content":[],"structuredContent":{"n":${n}}}}`,
        );
        const upstreamAnswer = ` [${answerItems.join(', ')}]\n`;
        const up = upstream(() => new Response(upstreamAnswer, { headers: { 'content-type': 'application/json' } }));
        const post = await poster(way, up.fetch);
        const res = await post(`[${batch.join(',')}]`);
        const text = await res.text();
        expect(up.bodies).toEqual([`[${raws.map((r) => r.trim()).join(',')}]`]); // (whitespace between elements is the array's)
        // The upstream's answers as it wrote them, then the guard's.
        expect(text.startsWith(`[${answerItems.join(', ')},`)).toBe(true);
        const all = JSON.parse(text) as { id: number; result: { isError?: boolean } }[];
        expect(all.map((m) => m.id)).toEqual([...items.map((_, i) => 100 + i), 7]);
        expect(all.at(-1)!.result.isError).toBe(true);
      }),
      runs(30),
    );
  });

  it('an event-stream answer opening with a BOM, cut anywhere in its first bytes: every event reaches the client', async () => {
    const event = (id: number) => `data: {"jsonrpc":"2.0","id":${id},"result":{"content":[]}}\n\n`;
    const bytes = new TextEncoder().encode(`\uFEFF${event(3)}`);
    for (let cut = 0; cut <= 5; cut++) {
      const pieces = cut ? [bytes.slice(0, cut), bytes.slice(cut)] : [bytes];
      const up = upstream(
        () =>
          new Response(
            new ReadableStream({
              start(c) {
                for (const p of pieces) c.enqueue(p);
                c.close();
              },
            }),
            { headers: { 'content-type': 'text/event-stream' } },
          ),
      );
      const post = await poster(way, up.fetch);
      const res = await post(`[${blocked(7)},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"move","arguments":{"x":1}}}]`);
      const ids: number[] = [];
      const parser = createParser({ onEvent: (e) => ids.push((JSON.parse(e.data) as { id: number }).id) });
      parser.feed(new TextDecoder().decode(new Uint8Array(await res.arrayBuffer())));
      expect({ cut, ids: ids.sort() }).toEqual({ cut, ids: [3, 7] });
    }
  });
});
