// End to end against a real third-party server, @modelcontextprotocol/server-everything: the
// same requests directly and through `wrap` (real child processes, the real SDK Client). What
// comes through the proxy must be what the library's encodeMessage makes of the direct result,
// hold no term where a model could see it, and keep opaque bytes and protocol fields intact.
import { Buffer } from 'node:buffer';
import { gunzipSync } from 'node:zlib';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Progress, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeText, encodeText, encodeValue } from '../src/index.ts';
import {
  connect,
  EVERYTHING,
  encodedResult,
  findTerm,
  isBase64DataUri,
  modelVisibleStrings,
  type Pair,
  pseudoRandomBytes,
  REQUEST,
  type Request,
  requests,
  type Session,
  same,
  termLeaks,
} from './e2e-helpers.ts';

const SERVER = [process.execPath, EVERYTHING, 'stdio'];
const T = 30_000;

// Resources made on the fly end with the time they were made ("... created at 4:16:06 PM"), which
// differs between the two runs: only that tail is replaced, only in those resources.
const DYNAMIC_URI = /^demo:\/\/resource\/dynamic\//;
const CREATED_AT = /(created at ).+$/s;
const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value !== 'object' || value === null) return value;
  const o = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]));
  if (typeof o.uri === 'string' && DYNAMIC_URI.test(o.uri)) {
    if (typeof o.text === 'string') o.text = o.text.replace(CREATED_AT, '$1<time>');
    // A corrupted blob (not strict base64) is left as it is, so that it fails the comparison.
    if (typeof o.blob === 'string' && STRICT_BASE64.test(o.blob)) {
      o.blob = Buffer.from(Buffer.from(o.blob, 'base64').toString('utf8').replace(CREATED_AT, '$1<time>')).toString('base64');
    }
  }
  return o;
}

let pair: Pair;
const { callTool, complete, getPrompt, listPrompts, listResources, listResourceTemplates, listTools, readResource } = requests;
const check = <P, R>(req: Request<P, R>, params: P) => same(pair, req, params, normalise);

beforeAll(async () => {
  const [direct, wrapped] = await Promise.all([connect(SERVER, 'direct'), connect(SERVER, 'wrap')]);
  pair = { direct, wrapped };
}, T);

afterAll(async () => {
  await Promise.all([pair?.direct.close(), pair?.wrapped.close()]);
});

describe('server-everything through wrap', () => {
  it('initialize: server info, capabilities and instructions', () => {
    const info = (c: Client) => ({
      serverInfo: c.getServerVersion(),
      capabilities: c.getServerCapabilities(),
      instructions: c.getInstructions(),
    });
    expect(info(pair.direct.client).instructions).toBeTruthy();
    expect(info(pair.wrapped.client)).toEqual(encodedResult(info(pair.direct.client)));
    expect(termLeaks(info(pair.wrapped.client))).toEqual([]);
  });

  it(
    'tools/list',
    async () => {
      const { wrapped: w } = await check(listTools, undefined);
      expect(w.tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['echo', 'get-structured-content', 'trigger-long-running-operation']),
      );
    },
    T,
  );

  it(
    'echo: terms, CJK, the token prefix, and tokens sent back by the model',
    async () => {
      const messages = [
        'qwen',
        'Ask Alibaba Cloud about QWEN and 通义千问 (Qwen-Max, q-wen, ali_baba)',
        'a literal __mcp_ref_ and __MCP_REF_zz__',
        encodeText('open com.alibaba.Qwen in 钉钉'), // what a model sends back: tokens
        'nothing to alias here',
      ];
      for (const message of messages) {
        const r = await check(callTool, { name: 'echo', arguments: { message } });
        // The server saw real values, whatever the model sent.
        expect(r.direct.content).toEqual([{ type: 'text', text: `Echo: ${decodeText(message)}` }]);
      }
    },
    T,
  );

  it(
    'images, annotations, embedded resources and resource links',
    async () => {
      const tiny = await check(callTool, { name: 'get-tiny-image', arguments: {} });
      const image = (tiny.wrapped.content as { type: string; data?: string }[]).find((c) => c.type === 'image')!;
      expect(image.data).toBe((tiny.direct.content as { data?: string }[])[1]!.data);
      for (const messageType of ['error', 'success', 'debug']) {
        await check(callTool, { name: 'get-annotated-message', arguments: { messageType, includeImage: true } });
      }
      for (const resourceType of ['Text', 'Blob']) {
        await check(callTool, { name: 'get-resource-reference', arguments: { resourceType, resourceId: 3 } });
      }
      await check(callTool, { name: 'get-resource-links', arguments: { count: 4 } });
      await check(callTool, { name: 'get-sum', arguments: { a: 2, b: 40 } });
    },
    T,
  );

  it(
    'structured output, validated by the SDK client against the listed outputSchema',
    async () => {
      await check(listTools, undefined); // the client caches the validators
      for (const location of ['New York', 'Chicago', 'Los Angeles']) {
        const r = await check(callTool, { name: 'get-structured-content', arguments: { location } });
        expect(r.wrapped.structuredContent).toBeDefined();
      }
    },
    T,
  );

  it(
    'a gzip blob whose base64 holds `qwen` arrives byte-identical, embedded and read as a resource',
    async () => {
      // Incompressible input after the three bytes ab 07 a7: deflate stores it verbatim, 15 bytes
      // (a multiple of 3) into the gzip file, so its base64 holds `qwen`.
      const input = Buffer.concat([Buffer.from([0xab, 0x07, 0xa7]), pseudoRandomBytes(61, 12345)]);
      const dataUri = `data:application/octet-stream;base64,${input.toString('base64')}`;
      const name = 'qwen-report.bin.gz';
      const embedded = await check(callTool, { name: 'gzip-file-as-resource', arguments: { name, data: dataUri, outputType: 'resource' } });
      const blobOf = (r: Record<string, unknown>) => (r.content as { resource: { blob: string } }[])[0]!.resource.blob;
      expect(findTerm(blobOf(embedded.direct))).toBe('qwen'); // the precondition: the server's own base64 holds a term
      expect(blobOf(embedded.wrapped)).toBe(blobOf(embedded.direct));
      expect(gunzipSync(Buffer.from(blobOf(embedded.wrapped), 'base64')).equals(input)).toBe(true);

      const link = await check(callTool, { name: 'gzip-file-as-resource', arguments: { name, data: dataUri, outputType: 'resourceLink' } });
      const uri = (link.wrapped.content as { uri: string }[])[0]!.uri; // the model's view of the uri: tokens
      const read = await check(readResource, { uri });
      expect(read.wrapped.contents[0]).toMatchObject({ blob: blobOf(embedded.direct) });
    },
    T,
  );

  it(
    "progress with the SDK's own number token",
    async () => {
      // The SDK client handles a notification a tick later than a response that arrives in the same
      // chunk, and drops the handler with the response: the last step may be lost on either
      // connection (an SDK race, not the proxy's). The steps seen must be in order, from 1.
      const progress = (c: Client, p: { name: string; arguments: Record<string, unknown> }) => {
        const seen: Progress[] = [];
        return c.callTool(p, undefined, { ...REQUEST, onprogress: (x) => seen.push(x) }).then((result) => ({ result, seen }));
      };
      const steps = 3;
      const params = { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps } };
      const [d, w] = await Promise.all([progress(pair.direct.client, params), progress(pair.wrapped.client, params)]);
      expect(w.result).toEqual(encodedResult(d.result));
      for (const { seen } of [d, w]) {
        expect(seen.length).toBeGreaterThanOrEqual(steps - 1);
        expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => ({ progress: i + 1, total: steps })));
      }
    },
    T,
  );

  it(
    "progress under the host's own string and number tokens, terms and token-like text included",
    async () => {
      const tokens: (string | number)[] = ['qwen-job-通义', '__mcp_ref_7177656e__', 'Alibaba', 0, 7];
      const pair = (via: 'direct' | 'wrap') => {
        const got: Record<string, unknown>[] = [];
        return connect(SERVER, via, (c) => c.setNotificationHandler(ProgressNotificationSchema, (n) => void got.push(n.params))).then(
          (s) => ({ s, got }),
        );
      };
      const [d, w] = await Promise.all([pair('direct'), pair('wrap')]);
      try {
        const run = (s: Session) =>
          Promise.all(
            tokens.map((progressToken) =>
              s.client.callTool(
                { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 }, _meta: { progressToken } },
                undefined,
                REQUEST,
              ),
            ),
          );
        await Promise.all([run(d.s), run(w.s)]);
        const byToken = (got: Record<string, unknown>[]) =>
          tokens.map((t) => got.filter((p) => p.progressToken === t).map((p) => p.progress));
        expect(byToken(d.got)).toEqual(tokens.map(() => [1, 2])); // the server's behaviour, directly
        expect(byToken(w.got)).toEqual(byToken(d.got));
        expect(w.got).toHaveLength(d.got.length);
        expect(w.s.errors).toEqual([]);
      } finally {
        await Promise.all([d.s.close(), w.s.close()]);
      }
    },
    T,
  );

  it(
    'resources/list, templates, and reading text and binary resources',
    async () => {
      const list = await check(listResources, undefined);
      expect(list.wrapped.resources.length).toBeGreaterThan(0);
      await check(listResourceTemplates, undefined);
      for (const uri of ['demo://resource/dynamic/text/1', 'demo://resource/dynamic/blob/1', 'demo://resource/dynamic/blob/2']) {
        await check(readResource, { uri });
      }
      // Static documents, and any session resource an earlier test made (the gzip blob).
      for (const { uri } of list.wrapped.resources) await check(readResource, { uri });
    },
    T,
  );

  it(
    'prompts/list and prompts/get',
    async () => {
      const list = await check(listPrompts, undefined);
      expect(list.wrapped.prompts.length).toBeGreaterThan(0);
      await check(getPrompt, { name: 'simple-prompt' });
      await check(getPrompt, {
        name: 'args-prompt',
        arguments: { city: 'Hangzhou (阿里巴巴 HQ)', state: encodeText('Zhejiang, home of Qwen') },
      });
      await check(getPrompt, { name: 'completable-prompt', arguments: { department: 'Engineering', name: 'Alice' } });
      for (const resourceType of ['Text', 'Blob'])
        await check(getPrompt, { name: 'resource-prompt', arguments: { resourceType, resourceId: '2' } });
    },
    T,
  );

  it(
    'completion',
    async () => {
      const r = await check(complete, {
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'department', value: 'E' },
      });
      expect(r.wrapped.completion.values).toEqual(['Engineering']);
      await check(complete, {
        ref: { type: 'ref/prompt', name: 'completable-prompt' },
        argument: { name: 'name', value: '' },
        context: { arguments: { department: 'Sales' } },
      });
      await check(complete, {
        ref: { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' },
        argument: { name: 'resourceId', value: '42' },
      });
    },
    T,
  );

  it('the SDK client reported no connection error (bad line, unknown id or token) on either connection', () => {
    // Only the SDK's own late-progress race (see above) is allowed, on both connections alike.
    const real = (s: Session) =>
      s.errors.filter((e) => !/^Received a progress notification for an unknown token: .*"progressToken":\d+\}/.test(e.message));
    expect(real(pair.direct)).toEqual([]);
    expect(real(pair.wrapped)).toEqual([]);
  });
});

describe('the model-visible walker', () => {
  it('sees keys and payload strings, and skips protocol fields and opaque base64 only', () => {
    const value = {
      qwenKey: 'x',
      text: 'Alibaba',
      _meta: { qwen: 'qwen' },
      nested: {
        _meta: { alibaba: 1 },
        progressToken: 'qwen',
        requestId: 'qwen',
        protocolVersion: 'qwen',
        cursor: 'qwen',
        nextCursor: 'qwen',
        taskId: 'qwen',
      },
      content: [
        { type: 'image', data: 'qwen', mimeType: 'image/png' },
        { type: 'audio', data: 'qwen', mimeType: 'audio/wav' },
        { type: 'text', data: 'q-wen' }, // not an image: visible
        { uri: 'file:///a', blob: 'qwen' },
        { blob: 'tmall' }, // no uri: visible
      ],
      icons: [{ src: 'data:image/png;base64,qwenAA==' }, { src: 'data:text/plain,qwen' }],
      cjk: '通义千问',
    };
    expect(termLeaks(value).sort()).toEqual([
      '$ (key): qwen',
      '$.cjk: 通义',
      '$.content[2].data: q-wen',
      '$.content[4].blob: tmall',
      '$.icons[1].src: qwen',
      '$.text: alibaba',
    ]);
    expect(isBase64DataUri('data:image/png;base64,qwen')).toBe(true);
    expect(isBase64DataUri('data:image/png;base64,qw_en')).toBe(false);
    expect(modelVisibleStrings(encodeValue({ text: 'QWEN 阿里云 ALI-CLOUD' })).map((s) => findTerm(s.text))).toEqual([
      undefined,
      undefined,
    ]);
  });
});
