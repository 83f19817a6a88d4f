// A request refused from its headers alone (413 for a declared length, 401 without a token),
// whose body arrives after the answer: the server (a real `proxy` process) must drop the body
// and keep serving. Node 20's Readable.toWeb threw from the late body's 'data' event once the
// stream was cancelled, and the process died.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { listening } from './http-cli-helpers.ts';

vi.setConfig({ testTimeout: 20_000 });

/**
 * Sends a POST's headers, then its body: at once (`late` false: in the middle of the server's
 * asynchronous check) or after the answer; resolves with the answer's status line.
 */
function headersThenBody(url: string, headers: string[], body: string, late: boolean): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let seen = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {}); // (the server may close once it answered)
    socket.on('data', (chunk: string) => {
      seen += chunk;
      if (!seen.includes('\r\n\r\n')) return;
      if (late) socket.write(body);
      setTimeout(() => socket.destroy(), 100);
      resolve(seen.slice(0, seen.indexOf('\r\n')));
    });
    socket.on('close', () => reject(new Error('closed before an answer')));
    socket.write(
      [
        `POST ${pathname} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        ...headers,
        '',
        '',
      ].join('\r\n'),
    );
    if (!late) for (let i = 0; i < body.length; i += 16 * 1024) socket.write(body.slice(i, i + 16 * 1024));
  });
}

describe('a request refused before its body arrives', () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(256 * 1024) } });

  it('413 from the declared length: the late body is dropped, the proxy keeps serving', async () => {
    const { p, url } = await listening(['proxy', '--upstream', 'http://127.0.0.1:9/mcp', '--port', '0', '--max-message-bytes', '64']);
    for (let i = 0; i < 6; i++) expect(await headersThenBody(url, [], body, i % 2 === 0)).toMatch(/ 413 /);
    await new Promise((r) => setTimeout(r, 200));
    expect(p.exitCode).toBe(null);
    expect((await fetch(url, { method: 'GET' })).status).toBe(502); // (still answering)
  });

  it('401 without a token: the same', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mcp-early-')), 'tokens');
    writeFileSync(file, 'token-0123456789abcdef\n');
    const { p, url } = await listening(['proxy', '--upstream', 'http://127.0.0.1:9/mcp', '--port', '0', '--auth-token-file', file]);
    for (let i = 0; i < 6; i++) expect(await headersThenBody(url, [], body, i % 2 === 0)).toMatch(/ 401 /);
    await new Promise((r) => setTimeout(r, 200));
    expect(p.exitCode).toBe(null);
    expect((await fetch(url, { method: 'GET' })).status).toBe(401);
  });
});
