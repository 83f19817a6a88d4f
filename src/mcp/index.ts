// mcp-payload-codec/mcp: wrappers for the MCP SDK's Transport interface. Nothing here loads
// ajv: the tool guard imports its schema compiler the first time it validates.

export type { AuditDecision, AuditEntry, AuditRule, OnAudit } from '../guard/audit.js';
export type { AskUser, ConfirmRequest } from '../guard/confirm.js';
export { DROPPED, type Dropped, type DroppedCall } from '../guard/drop.js';
export type { GuardReply } from '../guard/reply.js';
export { CallTimeoutTransport, type CallTimeoutTransportOptions } from './call-timeout.js';
export { type FilterOptions, filterTransportIfEnabled, INVALID_PARAMS, PayloadFilteringTransport } from './filtering.js';
export { damagedCall, type IntegrityGuardOptions, IntegrityGuardTransport } from './integrity-guard.js';
export {
  type BlockedCall,
  ToolCallGuard,
  type ToolCallGuardOptions,
  ToolCallGuardTransport,
  type ToolCallGuardTransportOptions,
} from './tool-guard.js';
export { TransportWrapper } from './wrapper.js';
