// What `mcp-payload-codec proxy` adds on Streamable HTTP, against no filter at all: the real
// SDK client (StreamableHTTPClientTransport) calls the real SDK server (McpServer over
// StreamableHTTPServerTransport on node:http, bench/http-upstream.ts, a child process)
// directly, through the proxy (the CLI, a child process) and through a bare node:http
// pass-through proxy (the floor, bench/fixtures/http-passthrough.mjs). Latency of small
// sequential calls (rounds taking turns, as the wrap rows), throughput of one large SSE result,
// and the proxy process's peak RSS while a 256 MiB event stream passes through it, and while
// one event of 400 MiB does (bench/large-event.ts runs that row alone, and the rows of a
// large value held until what follows it, on a GET stream of the MCP endpoint); and load, 100
// concurrent clients (load.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeMessage } from '../../src/index.ts';
import { elsewhere, FULL, median, QUICK, timePair } from '../harness.ts';
import { asResult, call, latencyRows, ms, rotatedRounds, timedCalls } from '../latency.ts';
import type { CaseResult } from '../report.ts';
import { loadRows } from './load.ts';

const CLI = 'bin/mcp-payload-codec.js';
const MiB = 1024 * 1024;
/** The goals: added latency at p50, large results against direct, memory. */
const MAX_ADDED_MS = 0.3;
const MIN_THROUGHPUT_RATIO = 0.8;
const MAX_RSS_GROWTH_MIB = 64;
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Spawns a process and resolves with the first match of `pattern` in its stdout or stderr. */
function started(args: string[], pattern: RegExp): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let seen = '';
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const m = pattern.exec(seen);
      if (m) resolve({ child, url: m[1]! });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}): ${seen.slice(0, 500)}`)));
  });
}

export const upstream = () => started(['scripts/run-ts.mjs', 'bench/http-upstream.ts'], /listening (http:\/\/\S+)/);
export const proxy = (up: string, nodeArgs: string[] = [], cli = CLI, path = '/mcp') =>
  started([...nodeArgs, cli, 'proxy', '--upstream', `${up}${path}`, '--port', '0'], /listening on (http:\/\/\S+\/mcp)/);

async function client(url: string): Promise<Client> {
  const c = new Client({ name: 'bench', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

/** The floor: a bare node:http pass-through proxy in front of the upstream (bench/fixtures/http-passthrough.mjs). */
export const passThrough = (up: string, nodeArgs: string[] = []) =>
  started([...nodeArgs, 'bench/fixtures/http-passthrough.mjs', up], /listening on (http:\/\/\S+\/mcp)/);

export async function proxyLatency(direct: string, proxied: string, bareUrl: string, quick: boolean): Promise<CaseResult[]> {
  const calls = quick ? 200 : 2000;
  const perRound = quick ? 50 : 100;
  const d = await client(direct);
  const p = await client(proxied);
  const b = await client(bareUrl);
  const sides = [d, p, b];
  try {
    const [a, e] = [await call(d), await call(p)];
    if (isDeepStrictEqual(a, e) || !isDeepStrictEqual(a, asResult(e)))
      throw new Error('proxy: the reply through the proxy is not the direct one encoded');
    if (!isDeepStrictEqual(a, await call(b))) throw new Error('proxy: the bare pass-through changed the reply');
    for (const c of sides) await timedCalls(c, quick ? 50 : 300, []);
    const { lat, ratio, added: addedProxy, addedFloor: addedBare, beyondFloor: beyondBare } = await rotatedRounds(sides, calls, perRound);
    const name = `${calls.toLocaleString('en-US')} sequential tools/call over Streamable HTTP`;
    return [
      ...latencyRows('proxy', name, lat[1]!, lat[0]!, ratio, addedProxy, MAX_ADDED_MS),
      {
        group: 'proxy',
        name: `${name}: added at p50 by a bare node:http pass-through proxy (the floor of any Node proxy)`,
        bytes: 0,
        figure: ms(addedBare),
      },
      {
        group: 'proxy',
        name: `${name}: added at p50 beyond the bare pass-through (what is proxy's own)`,
        bytes: 0,
        figure: ms(beyondBare),
      },
    ];
  } finally {
    await Promise.allSettled(sides.map((c) => c.close()));
  }
}

/** A raw session (initialize, initialized) at `url`; returns a function that calls `big` and reads the whole SSE body. */
async function rawSession(url: string, bytes: number): Promise<() => Promise<Uint8Array>> {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  await init.arrayBuffer();
  const headers = { ...HEADERS, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
  await (
    await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  ).arrayBuffer();
  let id = 1;
  return async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'big', arguments: { bytes } } }),
    });
    return new Uint8Array(await res.arrayBuffer());
  };
}

/** The JSON-RPC message in an SSE body of one message event. */
const sseMessage = (body: Uint8Array) => {
  const data = new TextDecoder()
    .decode(body)
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).replace(/^ /, ''));
  const m = JSON.parse(data.filter((d) => d.trim()).join('\n')) as { id?: unknown };
  delete m.id; // (ids differ from call to call)
  return m;
};

async function throughputRow(direct: string, proxied: string, quick: boolean): Promise<CaseResult> {
  const size = quick ? 2 * MiB : 8 * MiB;
  const d = await rawSession(direct, size);
  const p = await rawSession(proxied, size);
  const [a, b] = [await d(), await p()];
  if (!isDeepStrictEqual(sseMessage(a), decodeMessage(sseMessage(b) as never)))
    throw new Error('proxy: the large result through the proxy is not the direct one encoded');
  const pair = await timePair(p, d, { unit: 'MB/s', bytes: a.length }, quick ? QUICK : FULL);
  return {
    group: 'proxy',
    name: `a large SSE result (${size / MiB} MiB of mixed text in a tools/call result, one event)`,
    bytes: a.length,
    ours: elsewhere(pair.ours), // (the proxy and the upstream are child processes)
    baselineName: 'direct',
    baseline: elsewhere(pair.baseline),
    ratio: pair.ratio,
    target: `>= ${MIN_THROUGHPUT_RATIO}x direct`,
    targetRatio: MIN_THROUGHPUT_RATIO,
    met: pair.ratio >= MIN_THROUGHPUT_RATIO,
  };
}

/** Streams `mib` 1 MiB events through the proxy, reading and dropping them; the bytes read. */
async function stream(proxied: string, mib: number): Promise<number> {
  const res = await fetch(`${new URL(proxied).origin}/events?mib=${mib}`, { headers: { accept: 'text/event-stream' } });
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) total += chunk.length;
  return total;
}

/** Linux: reset the process's peak RSS (VmHWM) to its current RSS; read both. */
const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kb = (text: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)![1]) * 1024;

/**
 * A fresh proxy per run (a child process: its own RSS; its upstream `up` + `path`), warmed up
 * with `read(url, 4)`, then its peak RSS growth while `read(url, mib)` passes through it: the
 * row, against the target (`bound` MiB).
 */
async function rssGrowthRow(
  up: string,
  runCount: number,
  mib: number,
  name: (runs: number) => string,
  read: (url: string, mib: number) => Promise<number>,
  path = '/mcp',
  bound = MAX_RSS_GROWTH_MIB,
): Promise<CaseResult> {
  const runs: { growth: number; mbps: number }[] = [];
  for (let r = 0; r < runCount; r++) {
    const { child, url } = await proxy(up, [], undefined, path);
    try {
      await read(url, 4);
      writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
      const baseline = kb(status(child.pid!), 'VmRSS');
      const t0 = performance.now();
      const bytes = await read(url, mib);
      const seconds = (performance.now() - t0) / 1000;
      runs.push({ growth: (kb(status(child.pid!), 'VmHWM') - baseline) / MiB, mbps: bytes / 1e6 / seconds });
    } finally {
      child.kill('SIGTERM');
    }
  }
  const growths = runs.map((r) => r.growth);
  const growth = median(growths);
  const mbps = runs.find((r) => r.growth === growth)!.mbps;
  return {
    group: 'proxy',
    name: name(runs.length),
    bytes: mib * MiB,
    figure: `${growth.toFixed(1)} MiB, worst ${Math.max(...growths).toFixed(1)} (${mbps.toFixed(0)} MB/s)`,
    target: `< ${bound} MiB`,
    met: growth < bound,
  };
}

const rssRow = (up: string, quick: boolean) =>
  rssGrowthRow(
    up,
    quick ? 1 : 3,
    quick ? 64 : 256,
    (n) => `a ${quick ? 64 : 256} MiB SSE response (1 MiB events) through the proxy: its peak RSS growth (median of ${n}, worst)`,
    stream,
  );

/** GETs one event of `mib` MiB through the proxy (at `url`) and drops it; the bytes read (an error unless it came out whole, ending in `tail`). */
async function oneEvent(url: string, mib: number, tail: string): Promise<number> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' } });
  let bytes = 0;
  let last: Uint8Array = new Uint8Array(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    if (chunk.length) last = chunk;
  }
  if (new TextDecoder().decode(last.subarray(-tail.length)) !== tail || bytes < mib * MiB)
    throw new Error(`proxy: the ${mib} MiB event did not come through whole (${bytes} bytes)`);
  return bytes;
}

/** The proxy's peak RSS growth while one event of 400 MiB (64 quick) passes through it. */
export const largeEventRow = (up: string, quick: boolean) =>
  rssGrowthRow(
    up,
    quick ? 1 : 3,
    quick ? 64 : 400,
    (n) =>
      `one ${quick ? 64 : 400} MiB SSE event (its type before its data) through the proxy: its peak RSS growth (median of ${n}, worst)`,
    (url, mib) => oneEvent(`${new URL(url).origin}/event?mib=${mib}`, mib, '"}]}}\n\n'),
  );

/** The events of bench/http-upstream.ts's /held: how each ends, and what it is. */
const HELD_EVENTS = {
  notification: ['"}}\n\n', 'a log notification whose params.data is one string'],
  image: ['","mimeType":"image/png","type":"image"}]}}\n\n', 'an image content item, its data before its type'],
} as const;

/**
 * One event of 400 MiB (64 quick) on a GET stream of the proxy's MCP endpoint, whose large value
 * must be held until what follows it: its peak RSS growth, against holding it once (its size
 * and the bound of a streamed event).
 */
export const heldEventRows = async (up: string, quick: boolean): Promise<CaseResult[]> => {
  const mib = quick ? 64 : 400;
  const rows: CaseResult[] = [];
  for (const [shape, [tail, what]] of Object.entries(HELD_EVENTS)) {
    rows.push(
      await rssGrowthRow(
        up,
        quick ? 1 : 3,
        mib,
        (n) => `one ${mib} MiB SSE event on a GET stream of /mcp, ${what}: its peak RSS growth (median of ${n}, worst)`,
        (url, m) => oneEvent(`${url}?shape=${shape}&mib=${m}`, m, tail),
        '/held',
        mib + MAX_RSS_GROWTH_MIB,
      ),
    );
  }
  return rows;
};

/** The upstream alone (bench/large-event.ts). */
export async function withUpstream<T>(f: (up: string) => Promise<T>): Promise<T> {
  const up = await upstream();
  try {
    return await f(up.url);
  } finally {
    up.child.kill('SIGTERM');
  }
}

export async function httpResults(quick: boolean): Promise<CaseResult[]> {
  const up = await upstream();
  const px = await proxy(up.url);
  const bare = await passThrough(up.url);
  try {
    const direct = `${up.url}/mcp`;
    return [
      ...(await proxyLatency(direct, px.url, bare.url, quick)),
      ...(await loadRows(client, direct, px.url, quick)),
      await throughputRow(direct, px.url, quick),
      await rssRow(up.url, quick),
      await largeEventRow(up.url, quick),
    ];
  } finally {
    bare.child.kill('SIGTERM');
    px.child.kill('SIGTERM');
    up.child.kill('SIGTERM');
  }
}
