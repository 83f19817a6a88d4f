// U+FFFD reports stay bounded however deep and however damaged the input: the first `limit`
// reports (within the path budget), the total beside them, and a cost linear in the input.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ArgumentIntegrityError,
  assertNoReplacementCharacters,
  DEFAULT_PATH_BUDGET,
  DEFAULT_REPORT_LIMIT,
  findReplacementCharacters,
  type IntegrityReport,
} from '../src/index.ts';
import { IntegrityGuardTransport } from '../src/mcp/index.ts';
import { runs } from './arbitraries.ts';
import { referenceReports } from './reference-integrity.ts';
import { growth, LINEAR_BOUND } from './scaling.ts';

/** The documented size of a path: one per key or index, plus one per key character. */
const pathSize = (p: readonly (string | number)[]) => p.reduce<number>((n, x) => n + 1 + (typeof x === 'string' ? x.length : 0), 0);

/** The reference bounded as documented: the longest prefix within both the limit and the budget. */
function referenceBounded(all: IntegrityReport[], limit: number, budget: number): IntegrityReport[] {
  const out: IntegrityReport[] = [];
  for (const r of all) {
    if (out.length >= limit || pathSize(r.path) > budget) break;
    budget -= pathSize(r.path);
    out.push(r);
  }
  return out;
}

/**
 * `depth` levels, U+FFFD at every one, built bottom-up (no recursion). 'valueLast': each level
 * is `{ next: <deeper>, text: 'x\uFFFD' }`, so in document order the deepest string comes first
 * (the worst case for paths); 'keyFirst': each level is `{ 'k\uFFFD': <deeper> }`.
 */
function deep(depth: number, shape: 'valueLast' | 'keyFirst'): unknown {
  let v: unknown = 'end\uFFFD';
  for (let i = 0; i < depth; i++) v = shape === 'valueLast' ? { next: v, text: 'x\uFFFD' } : { 'k\uFFFD': v };
  return v;
}

describe('findReplacementCharacters limits', () => {
  it('costs time linear in the depth with U+FFFD at every level (4x depth, at most ~10x time)', { timeout: 30_000 }, () => {
    for (const shape of ['valueLast', 'keyFirst'] as const) {
      const small = deep(25_000, shape);
      const big = deep(100_000, shape);
      // Building every path (the old cost) is 16x, and runs out of memory first.
      expect(
        growth(
          () => findReplacementCharacters(small),
          () => findReplacementCharacters(big),
          2,
        ),
        shape,
      ).toBeLessThan(LINEAR_BOUND);
    }
  });

  it('bounds the output at 100,000 levels and counts every damaged string', { timeout: 30_000 }, () => {
    for (const shape of ['valueLast', 'keyFirst'] as const) {
      const reports = findReplacementCharacters(deep(100_000, shape));
      expect(reports.total).toBe(100_001);
      expect(reports.length).toBeLessThanOrEqual(DEFAULT_REPORT_LIMIT);
      expect(reports.reduce((n, r) => n + pathSize(r.path), 0)).toBeLessThanOrEqual(DEFAULT_PATH_BUDGET);
      expect(JSON.stringify(reports).length).toBeLessThan(DEFAULT_REPORT_LIMIT * 200 + DEFAULT_PATH_BUDGET * 4);
    }
    // Shallow first: the budget lets the whole default limit through.
    const keyFirst = findReplacementCharacters(deep(100_000, 'keyFirst'));
    expect(keyFirst.length).toBe(
      referenceBounded(referenceReports(deep(300, 'keyFirst')), DEFAULT_REPORT_LIMIT, DEFAULT_PATH_BUDGET).length,
    );
  });

  it('keeps `total` out of enumeration and JSON, and takes limit 0 as "count only"', () => {
    const value = { a: '\uFFFD', b: ['\uFFFD', 'ok', '\uFFFD'] };
    const reports = findReplacementCharacters(value);
    expect(Object.keys(reports)).toEqual(['0', '1', '2']);
    expect(JSON.parse(JSON.stringify(reports))).toEqual(referenceReports(value));
    const counted = findReplacementCharacters(value, { limit: 0 });
    expect([counted.length, counted.total]).toEqual([0, 3]);
    expect(findReplacementCharacters({ ok: 'fine' }).total).toBe(0);
    for (const bad of [-1, 1.5, NaN, '3']) {
      expect(() => findReplacementCharacters(value, { limit: bad as number })).toThrow(TypeError);
      expect(() => findReplacementCharacters(value, { pathBudget: bad as number })).toThrow(TypeError);
    }
  });

  it('returns the first `limit` reports of the unbounded reference, within the budget, and the reference count', () => {
    const withFffd = fc.string({ unit: fc.constantFrom('a', '汉', '\uFFFD', '😀', 'é'), maxLength: 6 });
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        withFffd,
        fc.integer(),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(withFffd, tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    const count = fc.oneof(fc.nat(8), fc.constant(Infinity));
    fc.assert(
      fc.property(value, count, fc.oneof(fc.nat(40), fc.constant(Infinity)), (v, limit, pathBudget) => {
        const all = referenceReports(v);
        const got = findReplacementCharacters(v, { limit, pathBudget });
        expect(got.total).toBe(all.length);
        expect([...got]).toEqual(referenceBounded(all, limit, pathBudget));
        expect([...findReplacementCharacters(v, { limit })]).toEqual(referenceBounded(all, limit, DEFAULT_PATH_BUDGET));
      }),
      runs(1000),
    );
  });

  it('agrees with the reference on moderately deep values (reports deepest first)', () => {
    const v = deep(400, 'valueLast');
    const all = referenceReports(v);
    for (const limit of [1, 3, 300]) {
      const got = findReplacementCharacters(v, { limit });
      expect(got.total).toBe(all.length);
      expect([...got]).toEqual(referenceBounded(all, limit, DEFAULT_PATH_BUDGET));
    }
  });
});

describe('bounded errors and replies', () => {
  const longKey = 'p'.repeat(100_000);

  it('throws an ArgumentIntegrityError with bounded reports, the total and a small message', () => {
    const value = { [longKey]: deep(100_000, 'valueLast') };
    let error: ArgumentIntegrityError | undefined;
    try {
      assertNoReplacementCharacters(value, { toolName: 't'.repeat(10_000) });
    } catch (e) {
      error = e as ArgumentIntegrityError;
    }
    expect(error).toBeInstanceOf(ArgumentIntegrityError);
    expect(error!.total).toBe(100_001);
    expect(error!.reports.length).toBeLessThanOrEqual(DEFAULT_REPORT_LIMIT);
    // Too deep for the budget: no report fits, but the message still says how many strings.
    expect(error!.reports).toEqual([]);
    expect(error!.message).toContain('100001 string(s)');
    expect(error!.message.length).toBeLessThan(600);
  });

  it('names the first report in a short message, however long its path and names', () => {
    const name = 'p'.repeat(2_000);
    const value = { [name]: { a: deep(5_000, 'keyFirst'), b: 'x\uFFFD' } };
    let error: ArgumentIntegrityError | undefined;
    try {
      assertNoReplacementCharacters(value, { toolName: 'write' });
    } catch (e) {
      error = e as ArgumentIntegrityError;
    }
    expect(error!.total).toBe(5_002);
    expect(error!.reports[0]!.path).toEqual([name, 'a', 'k\uFFFD']);
    expect(error!.message).toContain('5001 more string(s)');
    expect(error!.message).toContain('(2000 characters)');
    expect(error!.message.length).toBeLessThan(600);
    const short = new ArgumentIntegrityError(findReplacementCharacters({ content: 'ok\uFFFD' }), 'w');
    expect(short.message).toBe(
      'MCP tool argument "content" of tool "w" contains 1 invalid UTF-8 replacement character(s) (U+FFFD); the call was blocked before it reached the MCP server. First UTF-8 byte offset: 2.',
    );
    expect(short.total).toBe(1);
  });

  it('keeps the guard reply small for a 100,000-level call with U+FFFD at every level', { timeout: 30_000 }, async () => {
    const [near, far] = InMemoryTransport.createLinkedPair();
    const guard = new IntegrityGuardTransport(near, { reply: 'error' });
    const got: JSONRPCMessage[] = [];
    const farGot: JSONRPCMessage[] = [];
    guard.onmessage = (m) => void got.push(m);
    far.onmessage = (m) => void farGot.push(m);
    await guard.start();
    await far.start();
    for (const shape of ['valueLast', 'keyFirst'] as const) {
      got.length = 0;
      await guard.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'w', arguments: { content: deep(100_000, shape) } },
      } as JSONRPCMessage);
      for (let waited = 0; got.length === 0 && waited < 2000; waited += 5) await new Promise((r) => setTimeout(r, 5));
      const reply = got[0] as { error: { message: string; data: { reports: IntegrityReport[]; total: number } } };
      expect(reply.error.data.total).toBe(100_001);
      expect(reply.error.data.reports.length).toBeLessThanOrEqual(DEFAULT_REPORT_LIMIT);
      expect(JSON.stringify(reply).length).toBeLessThan(DEFAULT_REPORT_LIMIT * 200 + DEFAULT_PATH_BUDGET * 4 + 1000);
      expect(reply.error.message.length).toBeLessThan(600);
    }
    expect(farGot).toEqual([]);
    await guard.close();
  });
});
