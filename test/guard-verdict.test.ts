// The verdict on a tools/call (src/guard/verdict.ts), the one every transport acts on, against a
// reference that writes the rule out plainly: over generated calls (tool names listed, unlisted and
// not strings; ids and none; arguments of every shape; damaged strings in keys and values; paths in
// and out of the root; destructive, read-only and named tools under the confirm rule).
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolCallGuard } from '../src/guard/tool.ts';
import { callVerdict, type Verdict } from '../src/guard/verdict.ts';
import type { Message } from '../src/jsonrpc/message.ts';
import { runs } from './arbitraries.ts';

const ROOT = '/r';
const SECRET = 'SECRET';
const SCHEMA = { type: 'object', properties: { path: { type: 'string' }, n: { type: 'number' } } };
const TOOLS = [
  { name: 'read', inputSchema: SCHEMA },
  { name: 'write', inputSchema: SCHEMA },
  { name: 'rm', inputSchema: SCHEMA, annotations: { destructiveHint: true } },
  { name: 'peek', inputSchema: SCHEMA, annotations: { destructiveHint: true, readOnlyHint: true } },
];

/** What the verdict says, reduced to what the reference decides. */
type Outcome = { kind: 'allow' | 'drop' } | { kind: 'block'; rule: string; path?: string } | { kind: 'ask-first'; argumentNames: string[] };

/** A string holds damage: U+FFFD, or a surrogate without its pair. */
const damaged = (s: string) => /\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
const anyDamage = (v: unknown): boolean =>
  typeof v === 'string'
    ? damaged(v)
    : typeof v === 'object' && v !== null && Object.entries(v).some(([k, x]) => (Array.isArray(v) ? false : damaged(k)) || anyDamage(x));
const inRoot = (p: string) => {
  const at = path.posix.resolve(ROOT, p);
  return at === ROOT || at.startsWith(`${ROOT}/`);
};

function reference(m: { id?: unknown; params: { name: unknown; arguments?: unknown } }, integrity: boolean, rule: string[]): Outcome {
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return { kind: 'drop' };
  const { name, arguments: args } = m.params;
  if (integrity && anyDamage(args)) return { kind: 'block', rule: 'damaged' };
  if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) return { kind: 'block', rule: 'schema' };
  const tool = TOOLS.find((t) => t.name === String(name));
  if (!tool) return { kind: 'block', rule: 'unknown-tool' };
  const a = (args ?? {}) as { path?: string; n?: unknown };
  if ('n' in a && typeof a.n !== 'number') return { kind: 'block', rule: 'schema', path: '/n' };
  if (typeof a.path === 'string' && !inRoot(a.path)) return { kind: 'block', rule: 'outside-roots', path: '/path' };
  const destructive = tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true;
  if (rule.includes(tool.name) || (rule.includes('destructive') && destructive))
    return { kind: 'ask-first', argumentNames: Object.keys(a) };
  return { kind: 'allow' };
}

const seen = (v: Verdict): Outcome => {
  switch (v.kind) {
    case 'block':
      return v.blocked.rule === 'damaged'
        ? { kind: 'block', rule: 'damaged' }
        : { kind: 'block', rule: v.blocked.rule, ...(v.blocked.path === undefined ? {} : { path: v.blocked.path }) };
    case 'ask-first':
      return { kind: 'ask-first', argumentNames: [...v.request.argumentNames] };
    default:
      return { kind: v.kind };
  }
};

const text = fc.constantFrom(SECRET, `${SECRET}\uFFFD`, `\uD800${SECRET}`, `${SECRET}\uDFFF`, '\uD83D\uDE00', '');
const segment = fc.constantFrom('a', 'r', '..', '.', 'x\uFFFD');
const pathValue = fc
  .tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 4 }))
  .map(([absolute, segments]) => (absolute ? '/' : '') + segments.join('/'));
const objectArgs = fc.record(
  {
    path: pathValue,
    n: fc.oneof(fc.integer(), text),
    note: fc.oneof(text, fc.array(text, { maxLength: 2 }), fc.record({ deep: text })),
    'k\uFFFD': fc.constant(1), // (a damaged name: names are told, values never)
  },
  { requiredKeys: [] },
);
const args = fc.oneof(objectArgs, objectArgs, fc.constantFrom(undefined, null, 7, [1], SECRET, `${SECRET}\uFFFD`, [`\uFFFD`]));
const idField = fc.oneof(
  fc.record({ id: fc.oneof(fc.integer(), fc.constantFrom('a', '')) }),
  fc.constantFrom({}, { id: null }, { id: {} }, { id: true }),
);
const call = fc
  .tuple(idField, fc.constantFrom<unknown>('read', 'write', 'rm', 'peek', 'ghost', 5, undefined), args)
  .map(([id, name, a]) => ({
    jsonrpc: '2.0',
    ...id,
    method: 'tools/call',
    params: { name, ...(a === undefined ? {} : { arguments: a }) },
  }));
const confirmRule = fc.subarray(['destructive', 'write', 'read']);

/** A guard that knows TOOLS, confined to ROOT (lexically), with the confirm rule given. */
function guard(confirm: string[]): ToolCallGuard {
  const g = new ToolCallGuard({ roots: [ROOT], confirm });
  g.outgoing({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: {} } as Message);
  g.incoming({ jsonrpc: '2.0', id: 'list', result: { tools: TOOLS } } as Message);
  return g;
}

describe('callVerdict', () => {
  beforeAll(() => ToolCallGuard.ready());

  it('decides as the reference does, and its text and log line never hold an argument value', () => {
    fc.assert(
      fc.property(call, fc.boolean(), confirmRule, (m, integrity, rule) => {
        const v = callVerdict(m, { integrity, tools: guard(rule) });
        if (v instanceof Promise || v === undefined) throw new Error('a tools/call judged on a known list waits, or is not judged');
        expect(seen(v)).toEqual(reference(m, integrity, rule));
        if (v.kind === 'block' || v.kind === 'drop') expect(`${v.line} ${'text' in v ? v.text : ''}`).not.toContain(SECRET);
      }),
      runs(400),
    );
  });

  it('judges nothing but tools/call', () => {
    for (const method of ['tools/list', 'ping', 'initialize', 'notifications/cancelled'])
      expect(
        callVerdict({ jsonrpc: '2.0', id: 1, method, params: { name: 'ghost' } }, { integrity: true, tools: guard([]) }),
      ).toBeUndefined();
  });

  it('without tool checks (wrap, integrity only): drops, blocks damage, allows the rest', () => {
    const of = (m: object) => seen(callVerdict(m, { integrity: true }) as Verdict);
    expect(of({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'ghost' } })).toEqual({ kind: 'drop' });
    expect(of({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ghost', arguments: { a: '\uFFFD' } } })).toEqual({
      kind: 'block',
      rule: 'damaged',
    });
    expect(of({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ghost', arguments: 5 } })).toEqual({ kind: 'allow' });
  });
});
