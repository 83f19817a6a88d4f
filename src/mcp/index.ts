// mcp-payload-codec/mcp: wrappers for the MCP SDK's Transport interface.
export { filterTransportIfEnabled, INVALID_PARAMS, PayloadFilteringTransport, type FilterOptions } from './filtering.js';
export { damagedCall, IntegrityGuardTransport, type IntegrityGuardOptions } from './integrity-guard.js';
export { TransportWrapper } from './wrapper.js';
