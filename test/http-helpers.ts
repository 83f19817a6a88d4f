// What every HTTP path (fetch wrapper, proxy, connect, serve) must show a host, checked one way.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import { encodeText } from '../src/index.ts';

export const TIMEOUT = { timeout: 5_000 }; // (a hang fails fast)

export const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

export interface Seen {
  kind: string;
  text: string;
}

/** The tool list arrives encoded, and an echo call gets the decoded argument to the server and the encoded result back. */
export async function expectEncodedListAndEcho(client: Client, text: string, calls?: () => unknown): Promise<void> {
  const { tools } = await client.listTools(undefined, TIMEOUT);
  expect(tools.find((t) => t.name === 'echo')!.description).toBe(encodeText('Echoes text, for Qwen and 通义千问 users'));
  const result = await client.callTool({ name: 'echo', arguments: { text: encodeText(text) } }, undefined, TIMEOUT);
  if (calls) expect(calls()).toEqual([{ tool: 'echo', args: { text } }]);
  expect(textOf(result)).toBe(encodeText(`echo: ${text}`));
}

/** Progress and log messages sent during a call arrive encoded, each before the result. */
export async function expectProgressBeforeResult(client: Client, seen: Seen[], steps: number): Promise<void> {
  const result = await client.callTool({ name: 'progress', arguments: { steps } }, undefined, {
    ...TIMEOUT,
    onprogress: (p) => void seen.push({ kind: 'progress', text: p.message ?? '' }),
  });
  seen.push({ kind: 'result', text: textOf(result) });
  const want: Seen[] = [];
  for (let i = 1; i <= steps; i++) want.push({ kind: 'progress', text: encodeText(`Qwen step ${i}`) }, { kind: 'log', text: encodeText(`dashscope log ${i}`) });
  expect(seen).toEqual([...want, { kind: 'result', text: encodeText('Qwen done') }]);
}
