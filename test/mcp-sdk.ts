// A small MCP server built with the real SDK, used by the transport and CLI tests.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface Seen {
  calls: { tool: string; args: unknown }[];
}

export function createTestServer(seen: Seen = { calls: [] }): McpServer {
  const server = new McpServer({ name: 'test-server', version: '1.0.0' });
  server.registerTool(
    'open_app',
    {
      description: 'Opens an installed app, such as Qwen or 钉钉 (com.alibaba.dingtalk).',
      inputSchema: { app: z.string(), path: z.string().optional() },
      outputSchema: { app: z.string(), bundleId: z.string() },
    },
    async (args) => {
      seen.calls.push({ tool: 'open_app', args });
      return {
        content: [{ type: 'text', text: `Opened ${args.app} at /Applications/${args.app}.app` }],
        structuredContent: { app: args.app, bundleId: `com.alibaba.${args.app}` },
      };
    },
  );
  server.registerTool('screenshot', { description: 'Takes a screenshot', inputSchema: {} }, async () => {
    seen.calls.push({ tool: 'screenshot', args: {} });
    return {
      content: [
        { type: 'image', data: 'qwenQWENcXdlbg==', mimeType: 'image/png' },
        { type: 'text', text: 'Qwen — 通义千问 window' },
      ],
    };
  });
  server.registerTool('crash', { description: 'Fails', inputSchema: {} }, async () => {
    seen.calls.push({ tool: 'crash', args: {} });
    return { isError: true, content: [{ type: 'text', text: 'Qwen crashed (dashscope timeout)' }] };
  });
  server.registerTool(
    'write_file',
    { description: 'Writes a file', inputSchema: { path: z.string(), content: z.string() } },
    async (args) => {
      seen.calls.push({ tool: 'write_file', args });
      return { content: [{ type: 'text', text: `wrote ${args.content.length} characters` }] };
    },
  );
  return server;
}

/** The client with every SDK request timing out after `ms` (the SDK's default is 60 s): a hang fails in seconds. */
export function quick(client: Client, ms = 3_000): Client {
  type Request = (request: unknown, schema: unknown, options?: object) => Promise<unknown>;
  const request = client.request.bind(client) as unknown as Request;
  (client as unknown as { request: Request }).request = (r, schema, options) => request(r, schema, { timeout: ms, ...options });
  return client;
}
