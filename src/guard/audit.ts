// The trail of a guard's decisions: one entry per tools/call it judged (and per request a call
// timer answered), for a log a person reads later. Names where and why, never an argument's value.

/** Why a call was stopped: set where the block is decided, never read back from a reason's text. */
export type AuditRule = 'unknown-tool' | 'schema' | 'damaged' | 'outside-roots' | 'policy' | 'confirm' | 'timeout' | 'malformed';

/** What became of a call: `confirmed`/`declined` by the user (rule `confirm`), or the others. */
export type AuditDecision = 'allowed' | 'blocked' | 'confirmed' | 'declined' | 'timed-out';

export interface AuditEntry {
  /** When it was decided (ISO 8601). */
  readonly time: string;
  /** The MCP session (its Mcp-Session-Id) the call came in, where there is one. */
  readonly session?: string;
  /** The request's id as written (its JSON text: `7`, `"a"`, `9007199254740993`); absent for a call without one (dropped: guard/drop.ts). */
  readonly request?: string;
  /** The tool's name, for a tools/call. */
  readonly tool?: string;
  readonly decision: AuditDecision;
  /** Why, unless allowed. */
  readonly rule?: AuditRule;
  /** JSON pointers of the arguments concerned, where the block names them. */
  readonly paths?: readonly string[];
}

/** Receives the guard's decisions (blocked and allowed calls alike; a caller filters). */
export type OnAudit = (entry: AuditEntry) => void;

/** `/a/0/b~1c`: a JSON pointer of keys and indices (RFC 6901). */
export const jsonPointer = (path: readonly (string | number)[]): string =>
  path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/**
 * The trail's entry for a verdict on a tools/call: allowed, unless `block` says why not
 * (`decision`: 'blocked' unless it says another, as 'confirmed' for a call the user allowed).
 */
export const auditEntry = (
  request: string | undefined,
  tool: string,
  block?: { rule: AuditRule; decision?: Exclude<AuditDecision, 'allowed'> | undefined; paths?: readonly string[] | undefined },
  session?: string | null,
): AuditEntry => ({
  time: new Date().toISOString(),
  ...(session ? { session } : {}),
  ...(request === undefined ? {} : { request }),
  tool,
  ...(block
    ? { decision: block.decision ?? 'blocked', rule: block.rule, ...(block.paths ? { paths: block.paths } : {}) }
    : { decision: 'allowed' }),
});

/** `entry` as decided in MCP session `session`, where there is one (after `time`, as auditEntry writes it). */
export const inSession = ({ time, ...rest }: AuditEntry, session: string | null | undefined): AuditEntry =>
  session ? { time, session, ...rest } : { time, ...rest };
