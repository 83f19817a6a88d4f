// Fields (src/http/proxy-headers.ts) keep a head as Web Headers keep it, and a custom openStream
// receives them on both server paths: iterated, or given to `new Headers`, they give the pairs
// a Headers made by the same calls gives (names lower-cased, repeated fields joined, each
// Set-Cookie apart, in name order), never the object's own members.
import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFilteringProxy } from '../src/http/index.ts';
import { downstream, Fields, type HeadFields, keptFields, withoutHopByHop } from '../src/http/proxy-headers.ts';
import { runs } from './arbitraries.ts';

// Names that collide by case, cookies (kept apart), and values with whitespace at the ends (stripped).
const name = fc.constantFrom('a', 'B', 'b', 'X-Key', 'x-key', 'Set-Cookie', 'set-cookie', 'Content-Type', 'z', 'Host', 'keep-alive');
const value = fc
  .tuple(
    fc.constantFrom('', ' ', '\t', '\r\n '),
    fc.string({ unit: fc.constantFrom('v', ',', ' ', '=', ';', '\t', 'é', '\x7e'), maxLength: 6 }),
    fc.constantFrom('', ' ', '\t', ' \r\n'),
  )
  .map(([before, text, after]) => before + text + after);
const call = fc.oneof(
  fc.tuple(fc.constant('append' as const), name, value),
  fc.tuple(fc.constant('set' as const), name, value),
  fc.tuple(fc.constant('delete' as const), name, fc.constant('')),
  // (fields a connection names: dropped with it)
  fc.tuple(fc.constant('append' as const), fc.constant('Connection'), fc.constantFrom('x-key', 'B, z', 'close')),
  // (listed between calls: the order Fields keeps must follow later calls)
  fc.tuple(fc.constant('list' as const), fc.constant(''), fc.constant('')),
);

/** Applies `calls` to a Fields and a Headers alike, comparing their lists where a call lists them. */
function made(calls: [string, string, string][]): { fields: Fields; headers: Headers } {
  const fields = new Fields();
  const headers = new Headers();
  for (const [op, n, v] of calls) {
    if (op === 'list') expect([...fields]).toEqual([...headers]);
    else if (op === 'delete') {
      fields.delete(n);
      headers.delete(n);
    } else {
      fields[op as 'append' | 'set'](n, v);
      headers[op as 'append' | 'set'](n, v);
    }
  }
  return { fields, headers };
}

describe('Fields, iterated as Headers are', () => {
  it('give the pairs a Headers made by the same calls gives, and new Headers takes them so', () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 12 }), (calls) => {
        const { fields, headers } = made(calls);
        const want = [...headers];
        expect([...fields]).toEqual(want);
        // (against Headers made of the same pairs: Headers strips the ", " its own join of empty values ends with)
        expect([...new Headers(fields as unknown as HeadersInit)]).toEqual([...new Headers(want)]);
      }),
      runs(300),
    );
  });

  it("lose a connection's fields (and those named) as Headers do, and the copy takes later calls as Headers do", () => {
    fc.assert(
      fc.property(fc.array(call, { maxLength: 12 }), fc.array(call, { maxLength: 4 }), fc.boolean(), (calls, later, host) => {
        const { fields, headers } = made(calls);
        const also = host ? ['host', 'content-length'] : [];
        const [f, h] = [withoutHopByHop(fields, also), withoutHopByHop(headers, also)];
        expect([...f]).toEqual([...h]);
        // (later calls on the copy, and on the one made from Headers, field by field)
        const copy = h;
        for (const [op, n, v] of later) {
          if (op === 'list') expect([...f]).toEqual([...copy]);
          else if (op === 'delete') {
            f.delete(n);
            copy.delete(n);
          } else {
            f[op as 'append' | 'set'](n, v);
            copy[op as 'append' | 'set'](n, v);
          }
        }
        expect([...f]).toEqual([...copy]);
        expect(f.getSetCookie()).toEqual(copy.getSetCookie());
      }),
      runs(300),
    );
  });
});

/** A head as the server writes it: each field listed, each name read, the cookies. */
const read = (h: HeadFields) => {
  const listed: [string, string][] = [];
  h.forEach((value, name) => void listed.push([name, value]));
  return { listed, got: listed.map(([name]) => [name, h.get(name), h.get(name.toUpperCase())]), cookies: h.getSetCookie() };
};

describe('A Connection field, as withoutHopByHop and downstream read it', () => {
  // (against a reference apart from keeper's: its one-token path reads no split, and both heads
  // above go through keeper, so only this tells a named field dropped from one kept)
  const HOP = [
    'connection',
    'keep-alive',
    'proxy-connection',
    'transfer-encoding',
    'te',
    'trailer',
    'upgrade',
    'proxy-authorization',
    'proxy-authenticate',
  ];
  // (RFC 9110 7.6.1's list, written apart from HOP_BY_HOP on purpose; each name is among the
  // generated fields, some capitalised, so one missing from HOP_BY_HOP is kept and seen)
  const hop = fc.tuple(fc.constant('append' as const), fc.constantFrom(...HOP.slice(1), 'TE', 'Upgrade'), value);
  const any = fc.oneof(call, hop);
  const token = fc.constantFrom('x-key', 'X-KEY', 'b', 'B', 'z', 'close', 'keep-alive', 'Content-Type', 'nope', '');
  const space = fc.constantFrom('', ' ', '\t', '  \t');
  const connection = fc
    .array(fc.tuple(space, token, space), { minLength: 1, maxLength: 3 })
    .map((ts) => ts.map(([a, t, b]) => a + t + b).join(','));
  it('drops exactly the names it lists, one token or several, in any case and spacing', () => {
    fc.assert(
      fc.property(fc.array(any, { maxLength: 10 }), fc.array(connection, { minLength: 1, maxLength: 2 }), (calls, values) => {
        const { fields, headers } = made([...calls, ...values.map((v): [string, string, string] => ['append', 'Connection', v])]);
        const named = new Set(
          headers
            .get('connection')!
            .split(',')
            .map((t) => t.trim().toLowerCase()),
        );
        // (the names listed: values are compared above, a joined empty value stripped once more)
        const names = (h: Iterable<[string, string]>) => [...h].map(([n]) => n);
        const want = (also: string[]) => names(headers).filter((n) => !HOP.includes(n) && !named.has(n) && !also.includes(n));
        expect(names(withoutHopByHop(fields))).toEqual(want([]));
        expect(names(withoutHopByHop(headers))).toEqual(want([]));
        expect(names(read(downstream(fields)).listed)).toEqual(want(['content-encoding', 'content-length']));
        expect(names(read(downstream(headers)).listed)).toEqual(want(['content-encoding', 'content-length']));
      }),
      runs(300),
    );
  });
});

describe("An answer's head on its way down", () => {
  it('reads as a copy without the connection fields, coding and length reads, from Fields and from Headers', () => {
    const down = fc.constantFrom('Content-Encoding', 'content-length', 'Transfer-Encoding');
    const calls = fc.array(fc.oneof(call, fc.tuple(fc.constant('append' as const), down, value)), { maxLength: 12 });
    fc.assert(
      fc.property(calls, (calls) => {
        const { fields, headers } = made(calls);
        const want = read(withoutHopByHop(headers, ['content-encoding', 'content-length']));
        expect(read(downstream(fields))).toEqual(want);
        expect(read(downstream(headers))).toEqual(want);
        expect(downstream(fields).get('content-length')).toBeNull();
      }),
      runs(300),
    );
    // (a repeated field's empty value: joined, "a, "; a copy by append strips it once more)
    const { fields } = made([
      ['append', 'x-key', 'a'],
      ['append', 'X-Key', ''],
    ]);
    expect(read(downstream(fields)).listed).toEqual([['x-key', 'a,']]);
  });
});

describe("A request's head on its way up", () => {
  // (read through a view, where a copy was made: the same reads, the same pairs to an OpenStream)
  it('reads and iterates as a copy without the connection fields, Host and length, from Fields and from Headers', () => {
    const up = fc.constantFrom('Host', 'content-length', 'Upgrade');
    const calls = fc.array(fc.oneof(call, fc.tuple(fc.constant('append' as const), up, value)), { maxLength: 12 });
    const NOT_UP = ['host', 'content-length'];
    fc.assert(
      fc.property(calls, (calls) => {
        const { fields, headers } = made(calls);
        const copy = withoutHopByHop(headers, NOT_UP);
        for (const view of [keptFields(fields, NOT_UP), keptFields(headers, NOT_UP)]) {
          expect(read(view)).toEqual(read(copy));
          expect([...view]).toEqual([...copy]);
          expect([...new Headers(view as unknown as HeadersInit)]).toEqual([...new Headers(copy as unknown as HeadersInit)]);
        }
      }),
      runs(300),
    );
    // (a repeated field's empty value: joined, "a, "; a copy by append strips it once more)
    const { fields } = made([
      ['append', 'x-key', 'a'],
      ['append', 'X-Key', ''],
    ]);
    expect([...keptFields(fields, NOT_UP)]).toEqual([['x-key', 'a,']]);
  });
});

describe('Fields, heads of any size', () => {
  // Names are sorted by insertion up to a few dozen, by sort() past them: either way in Headers' order.
  const names = (minLength: number, maxLength: number) => fc.uniqueArray(fc.stringMatching(/^[a-z0-9-]{1,3}$/), { minLength, maxLength });
  const many = fc.oneof(names(0, 12), names(25, 70));
  it('list many names in the order Headers lists them, before and after later calls', () => {
    fc.assert(
      fc.property(many, fc.array(call, { maxLength: 6 }), (names, later) => {
        const calls: [string, string, string][] = names.map((n, i) => ['append', n, `v${i}`]);
        const { fields, headers } = made([...calls, ['list', '', ''], ...later, ['list', '', '']]);
        expect([...withoutHopByHop(fields)]).toEqual([...withoutHopByHop(headers)]);
      }),
      runs(200),
    );
  });
});

describe("createFilteringProxy's upstreamHeaders", () => {
  // Sent on every request: a value node:http would refuse (once Headers' whitespace at the ends is
  // stripped) failed each request upstream, a 502 each. Refused at once, the value never echoed.
  const unit = fc.constantFrom('v', ' ', '\t', '\r', '\n', '\x00', '\x01', '\x7f', 'é', '\u0101', '\u{1f600}');
  it('refuses at once the values node:http would refuse, naming the header, never the value', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 6 }), (text) => {
        const value = `secret${text}`;
        const stripped = value.replace(/[\t\n\r ]+$/, '');
        let refused = false;
        try {
          validateHeaderValue('x-key', stripped);
        } catch {
          refused = true;
        }
        const made = () => createFilteringProxy({ upstream: 'http://127.0.0.1:1/mcp', upstreamHeaders: { 'x-key': value } });
        if (!refused) return void expect(made).not.toThrow();
        expect(made).toThrow(/^upstreamHeaders\.x-key holds a character a header cannot carry$/);
      }),
      runs(200),
    );
  });

  it('refuses a name that is not a header name, without echoing it', () => {
    for (const bad of ['', 'a b', 'x:y', 'é', 'k\n']) {
      expect(() => createFilteringProxy({ upstream: 'http://127.0.0.1:1/mcp', upstreamHeaders: { [bad]: 'v' } })).toThrow(
        /^upstreamHeaders holds a name that is not a header name$/,
      );
    }
  });
});

describe("createFilteringProxy's openStream", () => {
  // Typed as a caller writes one (signal: AbortSignal, what fetch takes): the Node CLI's lighter
  // ClientLeft is given only on its own direct path, never through createFilteringProxy.
  it("is given the Web Request's AbortSignal, aborted when the client leaves", async () => {
    const given: AbortSignal[] = [];
    const proxy = createFilteringProxy({
      upstream: 'http://127.0.0.1:1/mcp',
      openStream: async (_url, _headers, signal: AbortSignal) => {
        given.push(signal);
        signal.throwIfAborted(); // (a member only an AbortSignal has)
        return { status: 204, statusText: '', headers: new Fields(), source: { start() {}, pause() {}, resume() {}, cancel() {} } };
      },
    });
    const client = new AbortController();
    const request = new Request('http://localhost/mcp', {
      headers: { host: 'localhost', accept: 'text/event-stream' },
      signal: client.signal,
    });
    expect((await proxy(request)).status).toBe(204);
    expect(given).toHaveLength(1);
    expect(given[0]).toBeInstanceOf(AbortSignal);
    expect(given[0]!.aborted).toBe(false);
    client.abort();
    expect(given[0]!.aborted).toBe(true);
  });
});
