// mcp-payload-codec/mcp: wrappers for the MCP SDK's Transport interface. Nothing here loads
// ajv: the tool guard imports its schema compiler the first time it validates.
export { filterTransportIfEnabled, INVALID_PARAMS, PayloadFilteringTransport, type FilterOptions } from './filtering.js';
export type { GuardReply } from './guard-reply.js';
export { damagedCall, IntegrityGuardTransport, type IntegrityGuardOptions } from './integrity-guard.js';
export { ToolCallGuard, ToolCallGuardTransport, type BlockedCall, type ToolCallGuardOptions } from './tool-guard.js';
export { TransportWrapper } from './wrapper.js';
