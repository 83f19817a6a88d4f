// npm run load:idle-streams [-- STREAMS]: many idle event streams through one `proxy` process
// (the CLI), as connected MCP clients hold them, while other clients make calls; reports the
// proxy's RSS growth per idle stream. Not part of npm test: it takes tens of seconds and about
// 2 x STREAMS file descriptors in the proxy (a proxied stream takes two).
//
// Each client initialises a session (POST), then opens its GET event stream with that session,
// reads the one event the upstream sends on it (a notification holding a term, encoded by the
// proxy: the stream read a message and went idle) and holds it open. The upstream (a child
// process) is a plain node:http endpoint that holds its streams cheaply. Meanwhile other clients
// call a tool in a loop; every call must pass, encoded. Loopback only; bounded in count and time.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const STREAMS = Number(process.argv[2] ?? 8000);
const DEADLINE_MS = 240_000; // the whole run, at most
const OPENING = 200; // clients opening at once
const TOKEN = '__mcp_ref_7177656e__'; // 'qwen', encoded
const root = fileURLToPath(new URL('..', import.meta.url));

const deadline = setTimeout(() => fail(`not done in ${DEADLINE_MS / 1000} s`), DEADLINE_MS);
const children = [];
function fail(why) {
  process.stderr.write(`load-idle-streams: ${why}\n`);
  for (const c of children) c.kill('SIGKILL');
  process.exit(1);
}

// The upstream: a child process, so that neither its sockets nor its memory count here or in the proxy.
const UPSTREAM = `
const http = require('node:http');
let sessions = 0;
const notification = 'event: message\\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"qwen is here"}}\\n\\n';
const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(notification);
    return;
  }
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const m = JSON.parse(body);
    const headers = { 'content-type': 'application/json' };
    if (m.method === 'initialize') {
      headers['mcp-session-id'] = 's' + ++sessions;
      res.writeHead(200, headers);
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'idle', version: '1' } } }));
    }
    if (m.id === undefined) return res.writeHead(202).end();
    res.writeHead(200, headers);
    res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'qwen answered' }] } }));
  });
});
server.keepAliveTimeout = 600000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/** Starts a child and resolves with the first line it writes on `stream` that matches `pattern`. */
function start(command, args, stream, pattern) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream].on('data', (d) => {
      text += d;
      const m = text.match(pattern);
      if (m) resolve({ child, match: m });
    });
    child.on('exit', (code) => reject(new Error(`${command} exited (${code}): ${text.slice(0, 500)}`)));
  });
}

const upstream = await start(process.execPath, ['-e', UPSTREAM], 'stdout', /^(\d+)\n/);
// The proxy, with as many file descriptors as the system lets it have (two per proxied stream).
const bin = `${root}bin/mcp-payload-codec.js`;
const proxy = await start(
  'sh',
  [
    '-c',
    `ulimit -n 20000 2>/dev/null; exec "${process.execPath}" "${bin}" proxy --upstream http://127.0.0.1:${upstream.match[1]}/mcp --port 0`,
  ],
  'stderr',
  /proxy listening on (http:\/\/[^ ]+\/mcp)/,
);
const url = new URL(proxy.match[1]);
const rssKiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proxy.child.pid}/status`, 'utf8'))[1]);

// Calls keep-alive; each idle stream has its own connection, as each client has.
const callAgent = new Agent({ keepAlive: true, maxSockets: 16 });
function post(body, session) {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (session) headers['mcp-session-id'] = session;
    const req = request(url, { method: 'POST', headers, agent: callAgent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, session: res.headers['mcp-session-id'], text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'load', version: '1' } },
};
async function call(session, id) {
  const t0 = performance.now();
  const r = await post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } }, session);
  if (r.status !== 200 || !r.text.includes(TOKEN) || r.text.includes('qwen')) throw new Error(`call ${id}: status ${r.status}`);
  return performance.now() - t0;
}

/** A client: a session, and its GET event stream, held open once its first event is read. */
const held = [];
async function openStream() {
  const { status, session } = await post(initialize).catch((e) => {
    throw new Error(`initialize: ${e.message}`);
  });
  if (status !== 200 || !session) throw new Error(`initialize: status ${status}`);
  await new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET: status ${res.statusCode}`));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
        if (text.includes('\n\n')) {
          if (!text.includes(TOKEN) || text.includes('qwen')) reject(new Error('GET: the event was not encoded'));
          resolve();
        }
      });
      res.on('end', () => reject(new Error('GET: ended')));
    });
    req.on('error', (e) => reject(new Error(`GET: ${e.message}`)));
    req.end();
    held.push(req);
  });
}

// Warm up (the codec compiled, the first blocks taken), then the baseline.
const caller = (await post(initialize)).session;
for (let i = 0; i < 50; i++) await call(caller, i);
await new Promise((r) => setTimeout(r, 500));
const before = rssKiB();

// Other clients' calls, all along.
const latencies = [];
let callErrors = 0;
let calling = true;
const calls = (async () => {
  for (let id = 1000; calling; id++) {
    try {
      latencies.push(await call(caller, id));
    } catch (e) {
      callErrors++;
      if (callErrors <= 3) process.stderr.write(`load-idle-streams: ${e.message}\n`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
})();

const t0 = performance.now();
let started = 0;
let opened = 0;
let openErrors = 0;
let firstError;
async function opener() {
  while (started < STREAMS && openErrors <= 20) {
    const n = started++;
    try {
      await openStream();
      opened++;
    } catch (e) {
      openErrors++;
      firstError ??= `stream ${n}: ${e.message}`;
    }
  }
}
await Promise.all(Array.from({ length: OPENING }, opener));
const openSeconds = (performance.now() - t0) / 1000;
await new Promise((r) => setTimeout(r, 2000)); // (settle: what the proxy made while opening is collected or kept)
const after = rssKiB();
const while0 = latencies.length;
await new Promise((r) => setTimeout(r, 2000)); // calls with every stream open and idle
calling = false;
await calls;
const idleCalls = latencies.slice(while0);

const pct = (xs, p) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))].toFixed(1) : '-';
console.log(
  `idle event streams open through one proxy: ${opened} of ${STREAMS} in ${openSeconds.toFixed(1)} s (errors: ${openErrors}${firstError ? `; first: ${firstError}` : ''})`,
);
console.log(
  `proxy RSS: ${(before / 1024).toFixed(1)} MiB before, ${(after / 1024).toFixed(1)} MiB with them open: ${((after - before) / Math.max(opened, 1)).toFixed(1)} KiB per idle stream`,
);
console.log(
  `other clients' calls meanwhile: ${latencies.length} passed, ${callErrors} failed; p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms (with all open: ${idleCalls.length} calls, p50 ${pct(idleCalls, 50)} ms)`,
);
clearTimeout(deadline);
for (const r of held) r.destroy();
callAgent.destroy();
for (const c of children) c.kill('SIGTERM');
process.exit(openErrors || callErrors ? 1 : 0);
