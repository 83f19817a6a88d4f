// Errors that name where a problem is, never what the payload says there.
import type { IntegrityReport } from './integrity.js';

export type JsonPath = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `$.params.arguments[0]["odd key"]`: a readable rendering of a path of keys and indices. */
export function formatPath(path: JsonPath): string {
  let out = '$';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : IDENTIFIER.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return out;
}

/** Decoding made two keys of one object equal; neither value was kept or dropped. */
export class PayloadKeyCollisionError extends Error {
  override readonly name = 'PayloadKeyCollisionError';
  /** Path of the object whose keys collide (as keys appear in the input). */
  readonly path: JsonPath;
  /** Positions (0-based, in key order) of the two keys that decode to the same text. */
  readonly keyIndexes: readonly [number, number];

  /** In a stream: the message's number (from 1) and its JSON-RPC id, when it has one. */
  readonly messageNumber: number | undefined;
  readonly id: unknown;
  /** In a stream, when the message was a batch: the ids of all its requests (all dropped). */
  readonly batchIds: readonly unknown[] | undefined;

  constructor(path: JsonPath, keyIndexes: [number, number], stream?: { messageNumber: number; id: unknown; batchIds?: unknown[] }) {
    const where = stream
      ? `an object in message ${stream.messageNumber}${stream.id === undefined ? '' : ` (id ${JSON.stringify(stream.id)})`}`
      : `the object at ${formatPath(path)}`;
    super(`Decoding makes keys #${keyIndexes[0]} and #${keyIndexes[1]} of ${where} equal; the payload was rejected rather than merged`);
    this.path = path;
    this.keyIndexes = keyIndexes;
    this.messageNumber = stream?.messageNumber;
    this.id = stream?.id;
    this.batchIds = stream?.batchIds;
  }
}

/** A tool call's arguments hold U+FFFD: the text was damaged before it got here. */
export class ArgumentIntegrityError extends Error {
  override readonly name = 'ArgumentIntegrityError';
  readonly toolName: string | undefined;
  readonly reports: readonly IntegrityReport[];

  constructor(reports: readonly IntegrityReport[], toolName?: string) {
    const first = reports[0]!;
    const what = first.parameterName === '' ? 'MCP tool argument' : `MCP tool argument ${JSON.stringify(first.parameterName)}`;
    const tool = toolName === undefined ? '' : ` of tool ${JSON.stringify(toolName)}`;
    const at = first.path.length > 1 ? ` at ${formatPath(first.path)}${first.location === 'key' ? ' (in the key)' : ''}` : first.location === 'key' ? ' (in its name)' : '';
    const more = reports.length > 1 ? ` ${reports.length - 1} more string(s) are affected.` : '';
    super(
      `${what}${tool}${at} contains ${first.replacementCharacterCount} invalid UTF-8 replacement character(s) (U+FFFD); ` +
        `the call was blocked before it reached the MCP server. First UTF-8 byte offset: ${first.utf8ByteOffset}.${more}`,
    );
    this.toolName = toolName;
    this.reports = reports;
  }
}
