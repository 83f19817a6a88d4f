// How a guard answers a call it blocked. 'result' (default): a CallToolResult with isError, as
// the MCP spec (2025-11-25, SEP-1303) asks for input validation errors, so the model reads the
// reason and can correct itself (an error response makes the SDK's callTool throw instead).
// 'error': JSON-RPC error -32602, for hosts that want one.
import { errorResponse, INVALID_PARAMS, type Message } from '../jsonrpc/message.js';

export type GuardReply = 'result' | 'error';

/** The answer to request `id`, blocked for `reason` (which names the place, never the value). */
export function blockedReply(id: string | number, form: GuardReply | undefined, reason: string, data?: unknown): Message {
  if (form === 'error') return errorResponse(id, INVALID_PARAMS, reason, data);
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: reason }], isError: true } };
}
