// The field policy: which parts of an MCP message are protocol or opaque bytes, and pass
// untouched, taken from the MCP schema (2024-11-05 to 2025-11-25). Everything else under
// `params`, `result` and `error` is payload. Every rule is recognised by path and shape alone
// (a stream may see `method` after `params`), and the streaming core (assembly/json/fields.ts)
// applies the same rules; test/field-policy.test.ts holds the two to each other.
import type { KeyShape } from './key-shapes.js';

/** Where a member sits relative to the message: which members are protocol, and nested rules. */
export interface FieldRule {
  /** Members whose whole value is protocol: identifiers the peers match on. */
  readonly keep?: readonly string[];
  /** Rules for the value of a member (an object). */
  readonly members?: Readonly<Record<string, FieldRule>>;
  /** Rules for every element of an array value. */
  readonly each?: FieldRule;
  /** The value is a JSON Schema (a tool's inputSchema or outputSchema). */
  readonly schema?: true;
}

/**
 * `params` of requests and notifications: `progressToken` (notifications/progress, 2024-11-05),
 * `requestId` (notifications/cancelled, 2024-11-05), `protocolVersion` (initialize,
 * 2024-11-05), `cursor` (list requests, 2024-11-05), `taskId` (tasks/get, tasks/result,
 * tasks/cancel, notifications/tasks/status, 2025-11-25), `elicitationId` (URL elicitation and
 * notifications/elicitation/complete, 2025-11-25), `url` (URL elicitation, 2025-11-25: the page
 * the host opens for the user, not text for the model; a token in it is a host that does not exist).
 */
export const PARAMS_RULE: FieldRule = {
  keep: ['progressToken', 'requestId', 'protocolVersion', 'cursor', 'taskId', 'elicitationId', 'url'],
};

const TOOL_SCHEMAS: FieldRule = { members: { inputSchema: { schema: true }, outputSchema: { schema: true } } };

/**
 * `result` of responses: `protocolVersion` (initialize), `nextCursor` (list results),
 * `taskId` (GetTaskResult, CancelTaskResult), `task.taskId` (CreateTaskResult), `tasks[].taskId`
 * (ListTasksResult); and `tools[].inputSchema` / `outputSchema` (tools/list), whose `maxLength`
 * is widened when encoding (see `schemaWidening`).
 */
export const RESULT_RULE: FieldRule = {
  keep: ['protocolVersion', 'nextCursor', 'taskId'],
  members: { task: { keep: ['taskId'] }, tasks: { each: { keep: ['taskId'] } }, tools: { each: TOOL_SCHEMAS } },
};

/** The rule for each payload member of a message (`error` has none). */
export const ENVELOPE_RULES: Readonly<Record<string, FieldRule | undefined>> = { params: PARAMS_RULE, result: RESULT_RULE };

/** `_meta` (2025-03-26 on; everywhere from 2025-06-18) is metadata for software, wherever it nests. */
export const META_KEY = '_meta';

/** Media content (image 2024-11-05, audio 2025-03-26): its `data` is base64. */
export const MEDIA_TYPES: readonly string[] = ['image', 'audio'];

/**
 * A whole `data:` URI with `;base64,` (icons, 2025-11-25; links): its base64 payload is opaque,
 * its header (`data:`, the media type and parameters, `;base64,`) is text. Matched on the
 * decoded text: `data:` and `;base64,` in any ASCII case, a media type of printable ASCII
 * without space, `"`, `,` or `\`, then base64 (standard or URL-safe alphabet, up to two `=`).
 * So the header ends at the first comma. A `data:` URI inside prose stays text.
 */
const BASE64_DATA_URI = /^data:[!#-+\--[\]-~]*;base64,[A-Za-z0-9+/_-]*={0,2}$/i;

export function isBase64DataUri(s: string): boolean {
  return s.length >= 13 && (s.charCodeAt(0) | 0x20) === 0x64 && BASE64_DATA_URI.test(s);
}

/** Opaque members of an object (opaqueMembers): bits. */
const OPAQUE_DATA = 1;
const OPAQUE_BLOB = 2;

/**
 * Which of an object's members are opaque bytes (media `data` under a MEDIA_TYPES `type`, a resource's
 * `blob` beside a `uri`), worked out once per object from the values the walk read (memberValues) before any
 * member is mapped: `type` is read once, and what it was decides. (A non-enumerable own `type`
 * or `uri`, which the walk does not read, is looked up here.)
 */
export function opaqueMembers(o: Record<string, unknown>, shape: KeyShape, vals: readonly unknown[]): number {
  let bits = 0;
  if (shape.dataAt >= 0) {
    const t = shape.typeAt >= 0 ? vals[shape.typeAt] : Object.hasOwn(o, 'type') ? o.type : undefined;
    if (typeof t === 'string' && MEDIA_TYPES.includes(t)) bits |= OPAQUE_DATA;
  }
  if (shape.blobAt >= 0 && (shape.uriAt >= 0 || Object.hasOwn(o, 'uri'))) bits |= OPAQUE_BLOB;
  return bits;
}

/** True when member `key` passes untouched: `_meta`, opaque bytes (`opaque`: opaqueMembers), a protocol field. */
export function keepsMember(key: string, opaque: number, rule: FieldRule | undefined): boolean {
  if (key === META_KEY) return true;
  if (opaque !== 0 && ((key === 'data' && opaque & OPAQUE_DATA) || (key === 'blob' && opaque & OPAQUE_BLOB))) return true;
  return rule?.keep?.includes(key) === true;
}

/** Schema keywords whose value maps names to schemas. */
export const SCHEMA_NAME_MAPS: readonly string[] = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Schema keywords whose value is data, not a schema. */
export const SCHEMA_DATA: readonly string[] = ['const', 'default', 'enum', 'examples'];

/**
 * How much `maxLength` grows in encoded tool schemas: the most ASCII characters one code point
 * can become (a whole match of `c` code points and `b` UTF-8 bytes is a token of
 * `prefix + 2b + suffix` characters), rounded up, so encoded values stay valid.
 */
export function schemaWidening(patterns: readonly { readonly text: string }[], prefix: string, suffix: string): number {
  const bytes = new TextEncoder();
  let most = 1;
  for (const { text } of patterns) {
    const codePoints = [...text].length;
    most = Math.max(most, (prefix.length + 2 * bytes.encode(text).length + suffix.length) / codePoints);
  }
  return Math.ceil(most);
}

/** A `maxLength` value widened by `factor`, or unchanged when it is not a safe count. */
export function widenMaxLength(value: unknown, factor: number): unknown {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return value;
  const wide = value * factor;
  return wide <= Number.MAX_SAFE_INTEGER ? wide : value;
}
