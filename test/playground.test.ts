// The playground page (docs/playground/, served as plain files after the build) in real headless
// Chromium: typing shows tokens marked with their originals, the fold mode changes what is
// caught, damage is reported with its offsets, NDJSON goes through the byte streams, and the
// page stays small. Expected tokens are written by hand (the wire format), not by the codec.
import { statSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error (a plain .mjs script, no types)
import { PLAYGROUND, servePlayground } from '../scripts/playground.mjs';
import { launchChromium } from './chromium.ts';

let server: Server;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await servePlayground(0);
  browser = await launchChromium();
  page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
  await page.waitForSelector('#summary:not(:empty)');
  expect(errors).toEqual([]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

async function show(input: string, options: Record<string, string> = {}) {
  for (const [id, value] of Object.entries(options)) await page.selectOption(`#${id}`, value);
  const before = await page.textContent('#summary');
  await page.fill('#input', input);
  // (The page updates a moment after the last keystroke.)
  await page.waitForFunction(
    (b) => document.querySelector('#summary')!.textContent !== b || document.querySelector('#status')!.textContent,
    before,
  );
  await page.waitForTimeout(150);
  return {
    output: await page.textContent('#output'),
    marks: await page.$$eval('#output mark', (ms) => ms.map((m) => [m.textContent, (m as HTMLElement).title])),
    summary: await page.textContent('#summary'),
    reports: await page.$$eval('#reports li', (ls) => ls.map((l) => l.textContent)),
    status: await page.textContent('#status'),
  };
}

describe('the playground', () => {
  it('marks each token with its original, and confirms the round trip', async () => {
    const shown = await show('open qwen, then Qwen', { mode: 'text', fold: 'ascii', 'hex-case': 'lower' });
    expect(shown.marks).toEqual([
      ['__mcp_ref_7177656e__', 'qwen'],
      ['__mcp_ref_5177656e__', 'Qwen'],
    ]);
    expect(shown.output).toBe('open __mcp_ref_7177656e__, then __mcp_ref_5177656e__');
    expect(shown.summary).toContain('2 token(s); round trip: exact');
    expect(shown.reports).toEqual(['no U+FFFD, no lone surrogate']);
  });

  it('catches lookalikes only with fold nfkc, and writes upper-case hex when asked', async () => {
    expect((await show('ｑｗｅｎ', { fold: 'ascii' })).marks).toEqual([]);
    expect((await show('ｑｗｅｎ', { fold: 'nfkc', 'hex-case': 'upper' })).marks).toEqual([
      ['__mcp_ref_EFBD91EFBD97EFBD85EFBD8E__', 'ｑｗｅｎ'],
    ]);
  });

  it('reports U+FFFD and lone surrogates with their places', async () => {
    const shown = await show('{"path":"a\\ufffdb","k":["x","\\ud800y"]}', { mode: 'json', fold: 'ascii', 'hex-case': 'lower' });
    expect(shown.reports).toEqual([
      '$.path: 1 U+FFFD, the first at character 1 (UTF-8 byte 1)',
      '$.k[1]: 0 U+FFFD, 1 lone surrogate(s), the first at character 0 (UTF-8 byte 0)',
    ]);
  });

  it('runs NDJSON traffic through the byte streams, byte for byte', async () => {
    const line = '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"qwen"}]}}';
    const shown = await show(`${line}\n${line}\n`, { mode: 'ndjson' });
    expect(shown.output).toBe(`${line.replace('qwen', '__mcp_ref_7177656e__')}\n`.repeat(2));
    expect(shown.summary).toContain('round trip: exact');
  });

  it('says what is wrong with the options, without a stack', async () => {
    await page.fill('#terms', '{"ascii": [');
    const shown = await show('qwen', { mode: 'text' });
    expect(shown.status).toMatch(/^terms: /);
    await page.fill('#terms', '');
  });

  it('weighs under 100 KB besides the bundle', () => {
    const own = ['index.html', 'playground.js'].map((f) => statSync(join(PLAYGROUND, f)).size);
    expect(own.reduce((a, b) => a + b, 0)).toBeLessThan(100 * 1024);
  });
});
