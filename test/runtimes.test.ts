// The package where the README says it runs besides Node: Bun, Deno and Cloudflare's workerd,
// each installed from its registry package (scripts/runtimes.mjs), each serving the harness
// (test/runtimes/harness.ts, bundled by esbuild from dist/) as its own fetch handler. Node sends
// each the same generated corpus (from the suite's seed) and holds its answers to Node's own,
// byte for byte; the real SDK client (in Node) calls the real SDK server through
// createFilteringProxy in the runtime, and createFilteringFetch runs there as the client side.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error (a plain .mjs script, no types)
import { installRuntimes } from '../scripts/runtimes.mjs';
import { fragmentString } from './arbitraries.ts';
import { startUpstream, type Upstream } from './fixtures/http-upstream.ts';
import { connectHost, expectEncodedListAndEcho, expectProgressBeforeResult } from './http-helpers.ts';
import { written } from './ndjson-scenarios.ts';
import { codeBlocks } from './readme-blocks.ts';
import { type CodecCase, runCodecCases, runStream, type StreamCase } from './runtimes/harness.ts';
import { launch, type Running, type RuntimeName } from './runtimes/launch.ts';
import { suiteSeed } from './suite-seed.ts';

const ROOT = join(import.meta.dirname, '..');

const OPTIONS: Record<string, unknown>[] = [
  {}, // mobile-mcp's wire format
  { prefix: '__cuaf_', suffix: '__', hexCase: 'upper' }, // cua-driver's
  { fold: 'nfkc' },
  { terms: { ascii: ['vwxyz'], exact: ['通义', '\u{1F7FF}'] } },
];

const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number) => fc.sample(arbitrary, { seed: suiteSeed() ?? Date.now(), numRuns });
const base64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** Text, messages and tokens under every option set; decoding takes what encoding gave. */
function codecCorpus(): CodecCase[] {
  const texts = sample(fragmentString(16), 60);
  const messages = sample(written, 40).map((b) => JSON.parse(Buffer.from(b).toString()));
  const cases: CodecCase[] = [];
  for (const options of OPTIONS) {
    const encodedTexts = runCodecCases(texts.map((input) => ({ options, op: 'encodeText', input })));
    const encodedMessages = runCodecCases(messages.map((input) => ({ options, op: 'encodeMessage', input })));
    cases.push(
      ...texts.map((input): CodecCase => ({ options, op: 'encodeText', input })),
      ...encodedTexts.map((r): CodecCase => ({ options, op: 'decodeText', input: (r as { out: string }).out })),
      ...messages.map((input): CodecCase => ({ options, op: 'encodeMessage', input })),
      ...encodedMessages.flatMap((r): CodecCase[] =>
        'out' in (r as object) ? [{ options, op: 'decodeMessage', input: (r as { out: unknown }).out }] : [],
      ),
    );
  }
  return cases;
}

/** A mixed corpus per framing, cut into chunks at generated places (one byte at a time too). */
function streamCorpus(): StreamCase[] {
  const lines = sample(written, 30).map((b) => Buffer.from(b).toString());
  const framed = {
    ndjson: lines.map((l) => `${l}\n`).join(''),
    'content-length': lines.map((l) => `Content-Length: ${Buffer.byteLength(l)}\r\n\r\n${l}`).join(''),
    sse: lines.map((l, i) => `${i % 3 ? '' : ': keep-alive Qwen\n'}id: ${i}\nevent: message\ndata: ${l}\r\n\r\n`).join(''),
  } as const;
  const cuts = sample(fc.array(fc.nat(), { maxLength: 40 }), 3);
  const cases: StreamCase[] = [];
  for (const framing of Object.keys(framed) as (keyof typeof framed)[]) {
    const input = Buffer.from(framed[framing]);
    for (const at of [...cuts, 'bytes']) {
      const points =
        at === 'bytes'
          ? Array.from({ length: Math.min(input.length, 4096) }, (_, i) => i)
          : [...new Set((at as number[]).map((n) => n % input.length))].sort((a, b) => a - b);
      const chunks = [0, ...points, input.length].flatMap((from, i, all) =>
        i + 1 < all.length && all[i + 1]! > from ? [input.subarray(from, all[i + 1])] : [],
      );
      for (const mode of ['encode', 'decode'] as const) cases.push({ mode, framing, chunks: chunks.map((c) => base64(c)) });
    }
  }
  // (One that errors: its error's code and stack are held to Node's too.)
  cases.push({ mode: 'encode', framing: 'ndjson', chunks: [base64(Buffer.from('Server started\n'))] });
  return cases;
}

/**
 * The runtime's snippet in docs/DEPLOY.md (a ```ts block flagged with its name), written where
 * the package resolves by its name; for workerd, the vars and compatibility date of the
 * ```toml wrangler block beside it.
 */
function deploySnippet(name: RuntimeName): { entry: string; env: Record<string, string>; compatibilityDate?: string } {
  const file = join(ROOT, 'docs', 'DEPLOY.md');
  const blocks = codeBlocks(file, readFileSync(file, 'utf8'));
  const block = blocks.find((b) => b.lang === 'ts' && b.flags.includes(name));
  if (!block) throw new Error(`docs/DEPLOY.md has no \`\`\`ts ${name} block`);
  const dir = join(ROOT, '.cache', 'deploy-snippets');
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, `${name}.ts`);
  writeFileSync(entry, block.code);
  if (name !== 'workerd') return { entry, env: {} };
  const toml = blocks.find((b) => b.lang === 'toml' && b.flags.includes('wrangler'))!.code;
  const env = Object.fromEntries([...toml.split('[vars]')[1]!.matchAll(/^(\w+) = "(.*)"$/gm)].map((m) => [m[1]!, m[2]!]));
  return { entry, env, compatibilityDate: /^compatibility_date = "(.*)"$/m.exec(toml)![1] };
}

let binaries: Record<RuntimeName, string> | undefined;

// workerd twice: at a current compatibility date, and at one before 2025, when Workers refuse to
// compile WebAssembly from bytes (the package's workerd build imports its core as a module).
const TARGETS: { label: string; name: RuntimeName; date?: string }[] = [
  { label: 'Bun', name: 'bun' },
  { label: 'Deno', name: 'deno' },
  { label: 'workerd', name: 'workerd' },
  { label: 'workerd, compatibility date 2024-06-01', name: 'workerd', date: '2024-06-01' },
];

describe.each(TARGETS)('in $label', ({ name, date }) => {
  let upstream: Upstream;
  let runtime: Running;
  beforeAll(async () => {
    binaries ??= installRuntimes();
    upstream = await startUpstream('stateful');
    const entry = join(import.meta.dirname, 'runtimes', { bun: 'bun.ts', deno: 'deno.ts', workerd: 'worker.ts' }[name]);
    runtime = await launch(name, binaries![name], { entry, env: { UPSTREAM: upstream.url }, compatibilityDate: date });
  }, 120_000);
  afterAll(async () => {
    await runtime?.stop();
    await upstream?.close();
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${runtime.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect(response.status, runtime.stderr()).toBe(200);
    return response.json();
  };

  it('encodes and decodes a generated corpus exactly as Node does', async () => {
    const corpus = codecCorpus();
    const there = await post('/codec', corpus);
    expect(there).toEqual(runCodecCases(corpus));
    // (The two wire formats, pinned: the same in every runtime as in Node.)
    expect(
      await post('/codec', [
        { options: OPTIONS[0], op: 'encodeText', input: 'qwen' },
        { options: OPTIONS[1], op: 'encodeText', input: 'qwen' },
      ]),
    ).toEqual([{ out: '__mcp_ref_7177656e__' }, { out: '__cuaf_7177656E__' }]);
  });

  it('streams NDJSON, Content-Length and SSE in any chunking exactly as Node does', async () => {
    const corpus = streamCorpus();
    expect(await post('/stream', corpus)).toEqual(await Promise.all(corpus.map(runStream)));
  });

  it('serves createFilteringProxy to the real SDK client, in front of the real SDK server', async () => {
    const { client, seen } = await connectHost(`${runtime.url}/mcp`);
    try {
      await expectEncodedListAndEcho(client, 'Qwen 通义千问', () => upstream.calls);
      await expectProgressBeforeResult(client, seen, 3);
    } finally {
      await client.close();
    }
  });

  it('runs the docs/DEPLOY.md snippet for it, in front of the real SDK server', async () => {
    const { entry, env, compatibilityDate } = deploySnippet(name);
    const deployed = await launch(name, binaries![name], {
      entry,
      env: { ...env, UPSTREAM: upstream.url, HOST: '127.0.0.1' },
      compatibilityDate: date ?? compatibilityDate,
    });
    const { client } = await connectHost(`${deployed.url}/mcp`);
    try {
      const before = upstream.calls.length;
      await expectEncodedListAndEcho(client, 'Qwen 通义千问', () => upstream.calls.slice(before));
    } finally {
      await client.close();
      await deployed.stop();
    }
  });

  it('runs createFilteringFetch as the client side', async () => {
    const before = upstream.calls.length;
    const [init, call, text] = (await post('/client', { name: 'echo', arguments: { text: '__mcp_ref_7177656e__' } })) as [
      number,
      number,
      string,
    ];
    expect([init, call]).toEqual([200, 200]);
    expect(upstream.calls.slice(before)).toEqual([{ tool: 'echo', args: { text: 'qwen' } }]);
    expect(text).toContain('echo: __mcp_ref_7177656e__');
    expect(text).not.toMatch(/qwen/i);
  });
});
