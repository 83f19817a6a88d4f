// Shared by the guard and wrap tests: the default terms found in text the client got, and a
// guard that has learned a tool list.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_TERMS } from '../src/index.ts';
import { ToolCallGuardTransport } from '../src/mcp/index.ts';

/** Every spelling of every default term found in `text` (ASCII ones ignoring ASCII case). */
export function termsIn(text: string): string[] {
  const folded = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const ascii = [...DEFAULT_TERMS.ascii, ...DEFAULT_TERMS.pairs.flatMap(([a, b]) => ['', '-', '_', ' '].map((sep) => a + sep + b))];
  return [...ascii.filter((t) => folded.includes(t)), ...DEFAULT_TERMS.exact.filter((t) => text.includes(t))];
}

/**
 * A ToolCallGuardTransport over one end of an in-memory pair, after a tools/list (id 1) that the
 * far end answered with `tools`; `got` is what the guard delivered, `farGot` what reached the far end.
 */
export async function guardWithTools(tools: unknown[]) {
  const [near, far] = InMemoryTransport.createLinkedPair();
  const farGot: JSONRPCMessage[] = [];
  far.onmessage = (m) => void farGot.push(m);
  await far.start();
  const guarded = new ToolCallGuardTransport(near);
  const got: JSONRPCMessage[] = [];
  guarded.onmessage = (m) => void got.push(m);
  await guarded.start();
  await guarded.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  await far.send({ jsonrpc: '2.0', id: 1, result: { tools } } as JSONRPCMessage);
  return { guarded, far, got, farGot };
}

/** A tools/call with no id (or `"id": null`, given `{ id: null }`), which the guard drops; its arguments hold a secret. */
export const dropNote = (name: string, id?: { id: null }) => ({
  jsonrpc: '2.0',
  ...id,
  method: 'tools/call',
  params: { name, arguments: { all: 'SECRET' } },
});
/** A tools/call request beside the dropped ones. */
export const dropCall = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
