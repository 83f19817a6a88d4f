// Runs in the browser page (served as is, never transformed): imports the built bundles the
// way an application would and reports what they did.
export async function root() {
  const m = await import('/dist/index.js');
  const samples = [
    'Open Qwen in 阿里 Cloud',
    'lone \uD800 high, lone \uDC00 low, pair 😀',
    '__mcp_ref_7177656e__ looks like a token',
    '\uFEFFbom',
  ];
  return {
    hasProcess: typeof globalThis.process !== 'undefined',
    encoded: m.encodeText('Open Qwen in 阿里 Cloud'),
    roundTrips: samples.map((s) => m.decodeText(m.encodeText(s)) === s),
    message: m.encodeMessage({ jsonrpc: '2.0', id: 'Qwen', result: { Qwen: ['通义'] } }),
    reports: m.findReplacementCharacters({ content: '汉'.repeat(2607) + '\uFFFD\uFFFD\uFFFD' }),
    // UTF-8 offsets past the 64 KiB the browser measures at a time (no Buffer there).
    longReport: m.findReplacementCharacters(['汉'.repeat(30000) + 'a😀'.repeat(10) + '\uD800\uFFFD']),
    filter: m.isFilterEnabled(),
  };
}

export async function stream() {
  const { createEncodeStream } = await import('/dist/stream.js');
  const response = await fetch('/data.ndjson');
  const out = await new Response(response.body.pipeThrough(createEncodeStream())).arrayBuffer();
  return Array.from(new Uint8Array(out));
}

export async function http() {
  const { createFilteringFetch } = await import('/dist/http.js');
  const filtered = createFilteringFetch();
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'open', arguments: { app: '__mcp_ref_5177656e__' } },
  });
  const response = await filtered('/echo-sse', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body,
  });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}
