// Errors that name where a problem is, never what the payload says there. A leaf: everything
// may import it, it imports nothing.

export type JsonPath = readonly (string | number)[];

/** Where one string holding U+FFFD sits (findReplacementCharacters in integrity.ts finds them). */
export interface IntegrityReport {
  /** Keys and indices from the root to the string (for a key: to the property it names). */
  readonly path: JsonPath;
  /** The first element of `path` as a string: the tool parameter; '' for a bare string. */
  readonly parameterName: string;
  /** Whether the U+FFFD is in a property value (or array element, or bare string) or a key. */
  readonly location: 'value' | 'key';
  /** How many U+FFFD a UTF-8 writer would write: those present and the lone surrogates. */
  readonly replacementCharacterCount: number;
  /** How many of them are lone UTF-16 surrogates (written as U+FFFD by any UTF-8 encoder). */
  readonly loneSurrogateCount: number;
  /** UTF-16 index of the first U+FFFD or lone surrogate. */
  readonly characterOffset: number;
  /** UTF-8 byte length of the text before it (a lone surrogate counts as U+FFFD's 3 bytes). */
  readonly utf8ByteOffset: number;
}

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
  /**
   * In a stream: whether the message whose keys collide is a response (`result` or `error`, no
   * `method`), an answer to the other side's request: that side must be told, not the sender.
   */
  readonly response: boolean;
  /** In a stream, when the message was a batch: the ids of the responses in it (all dropped). */
  readonly batchResponseIds: readonly unknown[] | undefined;
  /**
   * `id`, `batchIds` and `batchResponseIds` as the message wrote them (JSON text): answer under
   * these, since JSON.parse rounds ids past 2^53 (`9007199254740993` is 9007199254740992).
   */
  readonly idText: string | undefined;
  readonly batchIdTexts: readonly string[] | undefined;
  readonly batchResponseIdTexts: readonly string[] | undefined;

  constructor(
    path: JsonPath,
    keyIndexes: [number, number],
    stream?: {
      messageNumber: number;
      id: unknown;
      batchIds?: unknown[];
      response?: boolean;
      batchResponseIds?: unknown[];
      texts?: { id?: string; batchIds?: string[]; batchResponseIds?: string[] };
    },
  ) {
    const where = stream
      ? `an object in message ${stream.messageNumber}${stream.id === undefined ? '' : ` (id ${typeof stream.id === 'string' ? quoteName(stream.id) : JSON.stringify(stream.id)})`}`
      : `the object at ${formatPathShort(path)}`;
    super(`Decoding makes keys #${keyIndexes[0]} and #${keyIndexes[1]} of ${where} equal; the payload was rejected rather than merged`);
    this.path = path;
    this.keyIndexes = keyIndexes;
    this.messageNumber = stream?.messageNumber;
    this.id = stream?.id;
    this.batchIds = stream?.batchIds;
    this.response = stream?.response ?? false;
    this.batchResponseIds = stream?.batchResponseIds;
    this.idText = stream?.texts?.id;
    this.batchIdTexts = stream?.texts?.batchIds;
    this.batchResponseIdTexts = stream?.texts?.batchResponseIds;
  }
}

/** A name in a message: quoted, and cut after 64 characters so the message stays small. */
function quoteName(s: string): string {
  return s.length <= 64 ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, 64))}… (${s.length} characters)`;
}

/** formatPath, cut to about 160 characters: the start of the path and how deep it goes. */
function formatPathShort(path: JsonPath): string {
  let out = '$';
  for (let i = 0; i < path.length; i++) {
    const p = path[i]!;
    const step = typeof p === 'number' ? `[${p}]` : IDENTIFIER.test(p) && p.length <= 64 ? `.${p}` : `[${quoteName(p)}]`;
    if (out.length + step.length > 160) return `${out}… (${path.length} levels deep)`;
    out += step;
  }
  return out;
}

/** A tool call's arguments hold U+FFFD: the text was damaged before it got here. */
export class ArgumentIntegrityError extends Error {
  override readonly name = 'ArgumentIntegrityError';
  readonly toolName: string | undefined;
  /** The first reports, as bounded by the search (see findReplacementCharacters). */
  readonly reports: readonly IntegrityReport[];
  /** How many strings hold U+FFFD in all (at least reports.length). */
  readonly total: number;

  constructor(reports: readonly IntegrityReport[], toolName?: string, total = (reports as { total?: number }).total ?? reports.length) {
    const first = reports[0];
    const tool = toolName === undefined ? '' : ` of tool ${quoteName(toolName)}`;
    const blocked = 'the call was blocked before it reached the MCP server.';
    if (!first) {
      super(
        `MCP tool arguments${tool} contain invalid UTF-8 replacement characters (U+FFFD) in ${total} string(s), nested too deep to report their paths; ${blocked}`,
      );
    } else {
      const what = first.parameterName === '' ? 'MCP tool argument' : `MCP tool argument ${quoteName(first.parameterName)}`;
      const at =
        first.path.length > 1
          ? ` at ${formatPathShort(first.path)}${first.location === 'key' ? ' (in the key)' : ''}`
          : first.location === 'key'
            ? ' (in its name)'
            : '';
      const more = total > 1 ? ` ${total - 1} more string(s) are affected.` : '';
      const lone = first.loneSurrogateCount
        ? `, ${first.loneSurrogateCount} of them lone UTF-16 surrogate(s) that UTF-8 writes as U+FFFD`
        : '';
      super(
        `${what}${tool}${at} contains ${first.replacementCharacterCount} invalid UTF-8 replacement character(s) (U+FFFD${lone}); ` +
          `${blocked} First UTF-8 byte offset: ${first.utf8ByteOffset}.${more}`,
      );
    }
    this.toolName = toolName;
    this.reports = reports;
    this.total = Math.max(total, reports.length);
  }
}

/**
 * WASM memory (4 GiB at most) cannot hold what was asked for: a resource limit of the process,
 * not a fault of the input. Streams hold WASM memory only while they read a message in pieces
 * (about 1 MB each), so this is thousands of such messages at once, or one too large. An HTTP
 * piece answers the request that met it with 503 and Retry-After; other requests go on.
 */
export class WasmMemoryFullError extends RangeError {
  override readonly name = 'WasmMemoryFullError';
}
