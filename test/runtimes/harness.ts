// One fetch handler that every runtime under test serves (Bun.serve, Deno.serve, a Worker in
// workerd), built from the package's shipped bundles (imported by the package's name, as a
// user's code would) by esbuild. Node (test/runtimes.test.ts) drives it and compares what it
// answers with its own results:
//   POST /codec   a corpus of codec cases -> each case's output (or the error's name)
//   POST /stream  chunks through createEncodeStream / createDecodeStream -> the bytes out
//   /mcp          createFilteringProxy in front of the upstream (the real SDK server, in Node)
//   POST /client  createFilteringFetch as the client side: a session with the upstream
// Nothing here is a reference: Node runs the same bundles, and the test holds both to it.

import { createCodec } from 'mcp-payload-codec';
import { createFilteringFetch, createFilteringProxy } from 'mcp-payload-codec/http';
import { createDecodeStream, createEncodeStream } from 'mcp-payload-codec/stream';

export interface CodecCase {
  options: Record<string, unknown>;
  op: 'encodeText' | 'decodeText' | 'encodeMessage' | 'decodeMessage';
  input: unknown;
}

export interface StreamCase {
  mode: 'encode' | 'decode';
  framing: 'ndjson' | 'content-length' | 'sse';
  /** The input's chunks, each in base64. */
  chunks: string[];
}

const base64 = (b: Uint8Array) => btoa(Array.from(b, (c) => String.fromCharCode(c)).join(''));
const unbase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** Each case's output: `{ out }`, or `{ error }` with the error's name (never its text). */
export function runCodecCases(cases: CodecCase[]): unknown[] {
  return cases.map(({ options, op, input }) => {
    try {
      return { out: createCodec(options)[op](input as string) };
    } catch (e) {
      return { error: (e as Error).name };
    }
  });
}

/** The stream's output in base64 (`{ out }`), or `{ error }` with the error's code and its stack's first line. */
export async function runStream({ mode, framing, chunks }: StreamCase): Promise<unknown> {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(unbase64(chunk));
      c.close();
    },
  });
  const out = input.pipeThrough(mode === 'encode' ? createEncodeStream({ framing }) : createDecodeStream({ framing }));
  try {
    return { out: base64(new Uint8Array(await new Response(out).arrayBuffer())) };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? (e as Error).name, stack: String((e as Error).stack).split('\n')[0] };
  }
}

/** A raw client session through createFilteringFetch: initialize, then one call; what it got. */
async function clientSession(upstream: string, tool: { name: string; arguments: unknown }): Promise<unknown[]> {
  const fetch = createFilteringFetch({});
  const post = async (body: unknown, session?: string) => {
    const response = await fetch(upstream, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify(body),
    });
    return { response, text: await response.text() };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'runtime', version: '1' } },
  });
  const session = init.response.headers.get('mcp-session-id') ?? undefined;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: tool }, session);
  return [init.response.status, call.response.status, call.text];
}

/** The handler, for an upstream MCP endpoint (the SDK server the test runs in Node). */
export function harness(upstream: string): (request: Request) => Promise<Response> {
  const proxy = createFilteringProxy({ upstream, allowedHosts: ['*'] });
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === '/codec') return Response.json(runCodecCases(await request.json()));
    if (path === '/stream') return Response.json(await Promise.all(((await request.json()) as StreamCase[]).map(runStream)));
    if (path === '/client') return Response.json(await clientSession(upstream, await request.json()));
    return proxy(request);
  };
}
