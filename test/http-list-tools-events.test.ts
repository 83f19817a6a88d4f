// The guard asking the upstream for a tool list reads an event-stream answer by the SSE field
// rules (sse-reader.ts, the reader `connect` uses): any line ends, comments, other event types,
// events that are not JSON or answer something else, the answer's data over several lines, the
// stream cut anywhere (inside a line end, inside a UTF-8 character), and an answer the stream's
// end cut off before its blank line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventData } from '../src/http/guarded.ts';
import { askUpstream } from '../src/http/list-tools.ts';
import { runs } from './arbitraries.ts';

const TOOLS = { tools: [{ name: 'déplacer', description: '移動 "x"', inputSchema: { type: 'object' } }] };

/** An event: its field lines (without line ends). */
type Event = string[];

/** Events an upstream may send before the answer. */
const before = (id: string): Event[] => [
  [': ping'],
  ['event: endpoint', 'data: /messages'],
  ['data: not json'],
  ['id: 3', 'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}'],
  [`data: {"jsonrpc":"2.0","id":"other-${id}","result":{}}`],
  ['retry: 10'],
];

/** The answer's JSON written over 1-3 data lines (a newline inside JSON is whitespace). */
const answerEvent = (id: string, splits: number[], typed: boolean, space: boolean): Event => {
  const text = JSON.stringify({ jsonrpc: '2.0', id, result: TOOLS }).replaceAll(',', ',\n');
  const lines = text.split('\n');
  const parts: string[] = [];
  let at = 0;
  for (const s of splits.slice(0, 2).sort((a, b) => a - b)) {
    const cut = Math.min(lines.length, Math.max(at, Math.round(s * lines.length)));
    if (cut > at) parts.push(lines.slice(at, cut).join(''));
    at = cut;
  }
  parts.push(lines.slice(at).join(''));
  return [...(typed ? ['event: message'] : []), ...parts.map((p) => `data:${space ? ' ' : ''}${p}`)];
};

/** An upstream whose answer to the asking is `write(id)`, sent in pieces cut at `cuts`. */
const upstream = (write: (id: string) => string, cuts: number[]) =>
  (async (_url: string | URL, init?: RequestInit) => {
    const { id } = JSON.parse(String(init?.body)) as { id: string };
    const bytes = new TextEncoder().encode(write(id));
    const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
    const pieces = [0, ...at, bytes.length].flatMap((start, k, all) => (k + 1 < all.length ? [bytes.slice(start, all[k + 1])] : []));
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of pieces) if (p.length) c.enqueue(p);
        c.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  }) as typeof fetch;

const ask = (write: (id: string) => string, cuts: number[]) =>
  askUpstream(upstream(write, cuts), 'http://up/mcp', new Headers(), 1 << 20)(undefined);

describe('the guard asking for a tool list: the answer as events', () => {
  it('is found whatever comes before it, however the stream is cut and lines end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(5), { maxLength: 4 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 2 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        async (others, splits, typed, space, eol, ended, cuts) => {
          const write = (id: string) => {
            const events: Event[] = [...others.map((k) => before(id)[k]!), answerEvent(id, splits, typed, space)];
            const text = events.map((e) => e.join(eol)).join(eol + eol);
            return text + (ended ? eol + eol : eol);
          };
          expect(await ask(write, cuts)).toEqual(TOOLS);
        },
      ),
      runs(150),
    );
  });

  it('an event of another type, or no answer under its id, is not the answer', async () => {
    const other = (id: string) => `event: endpoint\ndata: {"jsonrpc":"2.0","id":"${id}","result":{}}\n\n`;
    await expect(ask(other, [0.5])).rejects.toThrow('its answer holds no response to it');
    await expect(ask(() => 'data: {"jsonrpc":"2.0","id":"nope","result":{}}\n\n', [])).rejects.toThrow(
      'its answer holds no response to it',
    );
  });
});

/** The reference: lines split at any line end, each empty one (a text's last one too) ends an event. */
function referenceData(text: string): string[] {
  const out: string[] = [];
  let data: string[] = [];
  let type = '';
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length && (type === '' || type === 'message')) out.push(data.join('\n'));
      [data, type] = [[], ''];
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') type = value;
  }
  return out;
}

describe('eventData (what the guard and the call timer read of whole events)', () => {
  it('reads any run of SSE lines as the reference does', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '',
        ':c',
        'data',
        'data:',
        'data: a',
        'data:  b',
        'event: message',
        'event:other',
        'event',
        'id: 1',
        'retry: 5',
        'x: y',
      ),
      fc.string({ maxLength: 6 }).map((v) => `data: ${v.replace(/[\r\n]/g, '')}`),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\r')), { maxLength: 14 }),
        fc.constantFrom('', '\n', '\r', '\r\n', 'data: z'),
        (lines, tail) => {
          const text = lines.map(([l, eol]) => l + eol).join('') + tail;
          expect(eventData(text)).toEqual(referenceData(text));
        },
      ),
      runs(400),
    );
  });
});
