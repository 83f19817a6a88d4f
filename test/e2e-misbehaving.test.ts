// End to end against a server that breaks the rules (test/fixtures/misbehaving-server.mjs), and a
// host that does: the real SDK Client, directly and through `wrap`, in real child processes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type AudioContent,
  type BlobResourceContents,
  type ImageContent,
  ProgressNotificationSchema,
  type ResourceLink,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeText } from '../src/index.ts';
import {
  connect,
  encodedResult,
  findTerm,
  MISBEHAVING,
  type Pair,
  REQUEST,
  type Request,
  ROOT,
  requests,
  type Session,
  same,
  termLeaks,
} from './e2e-helpers.ts';

const D = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'e2e-misbehaving-data.json'), 'utf8'));
const T = 30_000;

interface Recorded {
  s: Session;
  /** Every notifications/progress the host received, as it received it. */
  progress: Record<string, unknown>[];
}

async function open(via: 'direct' | 'wrap', noisy = false): Promise<Recorded> {
  const progress: Record<string, unknown>[] = [];
  const s = await connect([process.execPath, MISBEHAVING, ...(noisy ? ['--noisy'] : [])], via, (c) =>
    c.setNotificationHandler(ProgressNotificationSchema, (n) => void progress.push(n.params)),
  );
  await s.client.listTools(undefined, REQUEST); // the client caches the output validators
  return { s, progress };
}

let direct: Recorded;
let wrapped: Recorded;

const pairOf = (d: Recorded, w: Recorded): Pair => ({ direct: d.s, wrapped: w.s });
const { callTool, listResources, listTools, readResource } = requests;
const toolNamed = (tools: Tool[], name: string) => tools.find((t) => t.name === name)!;
const check = <P, R>(req: Request<P, R>, params: P) => same(pairOf(direct, wrapped), req, params);

describe('a misbehaving server through wrap', () => {
  beforeAll(async () => {
    [direct, wrapped] = await Promise.all([open('direct'), open('wrap')]);
  }, T);
  afterAll(async () => {
    await Promise.all([direct?.s.close(), wrapped?.s.close()]);
  });

  it('initialize: server info and instructions encoded, data: URI icons byte for byte', () => {
    const info = (c: Client) => ({ serverInfo: c.getServerVersion(), instructions: c.getInstructions() });
    expect(info(direct.s.client)).toEqual({ serverInfo: D.serverInfo, instructions: D.instructions });
    expect(info(wrapped.s.client)).toEqual(encodedResult(info(direct.s.client)));
    expect.soft(wrapped.s.client.getServerVersion()!.icons).toEqual(D.serverInfo.icons);
    expect(termLeaks(info(wrapped.s.client))).toEqual([]);
  });

  it(
    'tools/list: terms in names, descriptions, enums, required and property names encoded; _meta and icons byte for byte',
    async () => {
      const r = await check(listTools, undefined);
      expect(r.direct.tools).toEqual(D.tools);
      const search = toolNamed(r.wrapped.tools, encodeText('qwen_search'));
      expect.soft(search._meta).toEqual(D.meta);
      expect.soft(search.icons).toEqual(D.tools[0].icons);
      expect.soft(search.inputSchema.required).toEqual(['qwenModel', 'query'].map(encodeText));
      expect.soft(Object.keys(search.outputSchema!.properties!)).toEqual(['qwenModel', 'vendor', 'hits'].map(encodeText));
      // Encoded names stay valid SDK tool names (a CJK name included); lengths are in the report.
      expect.soft(r.wrapped.tools.map((t) => t.name).filter((n) => !/^[A-Za-z0-9._-]{1,128}$/.test(n))).toEqual([]);
    },
    T,
  );

  it(
    'tools/call by the names and values the model saw: the server gets real ones, the client validates the encoded result',
    async () => {
      const r = await check(callTool, {
        name: encodeText('qwen_search'),
        arguments: { [encodeText('qwenModel')]: encodeText('qwen-plus'), query: encodeText('Alibaba Cloud 通义') },
      });
      expect(r.direct.isError).toBeUndefined(); // the server got `qwenModel: qwen-plus`
      expect.soft(r.wrapped.structuredContent).toEqual({
        [encodeText('qwenModel')]: encodeText('qwen-plus'),
        vendor: encodeText('Alibaba'),
        hits: [encodeText('Alibaba Cloud 通义')],
      });
      expect.soft(r.wrapped._meta).toEqual(D.meta);
      const seen = '"args":{"qwenModel":"qwen-plus","query":"Alibaba Cloud 通义"}';
      expect(await wrapped.s.stderrWith(seen)).toContain(seen);
      const cjk = await check(callTool, { name: encodeText('钉钉_send'), arguments: { to: encodeText('阿里 team') } });
      expect(cjk.direct.content).toEqual([{ type: 'text', text: 'sent to 阿里 team via 钉钉' }]);
    },
    T,
  );

  it(
    'an outputSchema maxLength shorter than the encoded value: the SDK client still accepts the result',
    async () => {
      expect(D.tools.find((t: Tool) => t.name === 'short_vendor').outputSchema.properties.vendor.maxLength).toBeLessThan(
        encodeText('alibaba').length,
      );
      await check(listTools, undefined); // the client validates against the list it saw last
      const r = await check(callTool, { name: 'short_vendor', arguments: {} });
      expect(r.wrapped.structuredContent).toEqual({ vendor: encodeText('alibaba') });
    },
    T,
  );

  it(
    'image and audio data, blobs and data: URI icons arrive byte for byte; resources list and read',
    async () => {
      const media = await check(callTool, { name: 'media', arguments: {} });
      type Media = [ImageContent, AudioContent, { resource: BlobResourceContents }, ResourceLink];
      const [image, audio, resource, link] = media.wrapped.content as Media;
      expect([image.data, audio.data, resource.resource.blob, resource.resource._meta, link.icons]).toEqual([
        D.image,
        D.audio,
        D.blob,
        D.meta,
        D.resources[0].icons,
      ]);
      expect(findTerm(D.blob)).toBe('qwen'); // the precondition: the bytes' base64 spells terms

      const list = await check(listResources, undefined);
      expect.soft(list.wrapped.resources[0]!._meta).toEqual(D.meta);
      const blob = await check(readResource, { uri: list.wrapped.resources[0]!.uri });
      expect(blob.wrapped.contents[0]).toEqual({
        uri: encodeText(D.resources[0].uri),
        mimeType: 'application/octet-stream',
        blob: D.blob,
        _meta: D.meta,
      });
      const notes = await check(readResource, { uri: list.wrapped.resources[1]!.uri });
      expect(notes.wrapped.contents[0]).toMatchObject({ text: encodeText(D.notes) });
    },
    T,
  );

  it(
    "progress arrives under the host's own token (string with terms, token-like, number); its message is encoded",
    async () => {
      const tokens: (string | number)[] = ['qwen-job-通义', 'Alibaba', '__mcp_ref_7177656e__', '__mcp_ref_', 3];
      for (const progressToken of tokens) {
        // The host's token goes out as it is on both connections: it is the host's, not payload.
        const p = { name: 'slow', arguments: {}, _meta: { progressToken } };
        const [d, w] = await Promise.all([callTool.send(direct.s.client, p), callTool.send(wrapped.s.client, p)]);
        expect(w).toEqual(encodedResult(d));
      }
      const got = (r: Recorded) => tokens.map((t) => r.progress.filter((p) => p.progressToken === t).map((p) => p.message));
      expect(got(direct)).toEqual(tokens.map(() => ['indexing Qwen docs (1/2)', 'indexing Qwen docs (2/2)']));
      expect(got(wrapped)).toEqual(got(direct).map((messages) => (messages as string[]).map((m) => encodeText(m))));
      expect(wrapped.progress).toHaveLength(direct.progress.length);
    },
    T,
  );

  it('the SDK client reported no connection error (bad line, unknown id or token)', () => {
    expect(direct.s.errors).toEqual([]);
    expect(wrapped.s.errors).toEqual([]);
  });

  // Last on this connection: if the proxy dies of it, nothing else is lost.
  it(
    'a stray non-JSON line from the host does not end the session',
    async () => {
      wrapped.s.writeRaw('hello from the host about qwen\n');
      wrapped.s.writeRaw('{"jsonrpc":"2.0","id":99,\n');
      await check(callTool, { name: 'qwen_search', arguments: { qwenModel: 'qwen-max', query: 'after the stray lines' } });
      await check(listTools, undefined);
    },
    T,
  );
});

describe('a server that prints a banner and stray lines on stdout, through wrap', () => {
  let noisy: { d: Recorded; w: Recorded };
  beforeAll(async () => {
    const [d, w] = await Promise.all([open('direct', true), open('wrap', true)]);
    noisy = { d, w };
  }, T);
  afterAll(async () => {
    await Promise.all([noisy?.d.s.close(), noisy?.w.s.close()]);
  });

  it(
    'the session survives them, and results are those of the clean protocol',
    async () => {
      await same(pairOf(noisy.d, noisy.w), listTools, undefined);
      await same(pairOf(noisy.d, noisy.w), callTool, { name: 'slow', arguments: {}, _meta: { progressToken: 5 } });
      // Calls whose results need no other fix than this one (no blobs: see the clean server's tests).
      await same(pairOf(noisy.d, noisy.w), callTool, {
        name: encodeText('qwen_search'),
        arguments: { [encodeText('qwenModel')]: 'qwen-max', query: 'noise' },
      });
      expect(noisy.w.progress).toHaveLength(2);
      expect(noisy.d.s.rawLines.filter((l) => !l.startsWith('{"'))).not.toEqual([]); // the precondition: the server did misbehave
    },
    T,
  );

  it('no line the host receives holds a term where a model could see it, JSON or not', () => {
    const leaks = noisy.w.s.rawLines.flatMap((line, i) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        const term = findTerm(line);
        return term ? [`line ${i + 1} (not JSON): ${term}`] : [];
      }
      return termLeaks(message).map((leak) => `line ${i + 1}: ${leak}`);
    });
    expect(leaks).toEqual([]);
  });
});
