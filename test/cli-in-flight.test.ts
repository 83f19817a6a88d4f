// serve's requests in flight (cli/in-flight.ts) are found by key, not by scanning: held to the
// scans they replace (a plain list, searched as serve-session.ts searched it) over random runs of
// requests sent, answered and looked up, with ids that collide by value, by text (1 and 1.0,
// past 2^53), and repeated ids and progress tokens.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type InFlight, InFlightRequests } from '../src/cli/in-flight.ts';
import type { Id } from '../src/jsonrpc/message.ts';
import { runs } from './arbitraries.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';

/** The scans serve-session.ts made before. */
class Reference {
  readonly list: InFlight[] = [];
  delete(r: InFlight) {
    const at = this.list.indexOf(r);
    if (at >= 0) this.list.splice(at, 1);
  }
  written(rawId: string, id?: Id) {
    return this.list.find((x) => x.rawId === rawId && (id === undefined || x.id === id));
  }
  answered(id: Id, rawId: string) {
    const same = typeof id === 'string' ? (r: InFlight) => r.id === id : (r: InFlight) => typeof r.id === 'number' && r.rawId === rawId;
    return this.list.find(same) ?? (typeof id === 'number' ? this.list.find((r) => r.id === id) : undefined);
  }
  withToken(token: string) {
    return this.list.find((r) => r.progressToken === token);
  }
  latest(test: (r: InFlight) => boolean = () => true) {
    return this.list.findLast(test);
  }
}

/** Ids as written, with their values: strings that differ as written but not by value, numbers that parse alike. */
const ID = fc.constantFrom<[string, Id]>(
  ['"a"', 'a'],
  ['"\\u0061"', 'a'],
  ['"1"', '1'],
  ['1', 1],
  ['1.0', 1],
  ['12345678901234567890', 12345678901234567000],
  ['12345678901234567891', 12345678901234567000],
  ['2', 2],
);
const STEP = fc.oneof(
  fc.record({ add: ID, token: fc.option(fc.constantFrom('number:1', 'string:t')), stream: fc.constantFrom('s1', 's2') }),
  fc.record({ remove: fc.nat(20) }),
);

describe('InFlightRequests', () => {
  it('finds what the scans found, after any sends and answers', () => {
    fc.assert(
      fc.property(fc.array(STEP, { maxLength: 30 }), (steps) => {
        const mine = new InFlightRequests();
        const ref = new Reference();
        for (const step of steps) {
          if ('add' in step) {
            const [rawId, id] = step.add;
            const r: InFlight = {
              rawId,
              id,
              method: 'tools/call',
              stream: step.stream,
              ...(step.token ? { progressToken: step.token } : {}),
            };
            mine.add(r);
            ref.list.push(r);
          } else if (ref.list.length) {
            const r = ref.list[step.remove % ref.list.length]!;
            mine.delete(r);
            ref.delete(r);
          }
          expect(mine.length).toBe(ref.list.length);
          expect([...mine]).toEqual(ref.list);
          for (const [rawId, id] of ['"a"', '"\\u0061"', '"1"', '1', '1.0', '12345678901234567890', '12345678901234567891', '2', '3'].map(
            (raw) => [raw, JSON.parse(raw)] as [string, Id],
          )) {
            expect(mine.written(rawId)).toBe(ref.written(rawId));
            expect(mine.written(rawId, id)).toBe(ref.written(rawId, id));
            expect(mine.answered(id, rawId)).toBe(ref.answered(id, rawId));
          }
          for (const token of ['number:1', 'string:t']) expect(mine.withToken(token)).toBe(ref.withToken(token));
          expect(mine.latest()).toBe(ref.latest());
          expect(mine.latest((r) => r.stream === 's1')).toBe(ref.latest((r) => r.stream === 's1'));
        }
      }),
      runs(200),
    );
  });

  // Each message the child sends outside an answer asks for the latest request in flight (on a
  // stream the host reads): found from the end, not by a scan of all (17 µs at 1000 in flight).
  it('finds the latest request in flight in constant time: n lookups among n cost linear in n', () => {
    const run = (n: number) => () => {
      const mine = new InFlightRequests();
      for (let i = 0; i < n; i++) mine.add({ rawId: String(i), id: i, method: 'tools/call', stream: `s${i}` });
      for (let i = 0; i < n; i++) mine.latest((r) => r.stream !== '');
    };
    expect(growth(run(4000), run(16_000))).toBeLessThan(LINEAR_BOUND);
  });
});
