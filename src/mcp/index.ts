// mcp-payload-codec/mcp: wrappers for the MCP SDK's Transport interface.
export { filterTransportIfEnabled, INVALID_PARAMS, PayloadFilteringTransport, type FilterOptions } from './filtering.js';
export { damagedCall, IntegrityGuardTransport, type IntegrityGuardOptions } from './integrity-guard.js';
export { ToolCallGuard, ToolCallGuardTransport, type BlockedCall, type ToolCallGuardOptions } from './tool-guard.js';
export { TransportWrapper } from './wrapper.js';
