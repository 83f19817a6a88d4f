// scan: U+FFFD per NDJSON message and parameter. It prints where, never what: no payload text,
// and a key that is itself damaged is named by its position, not its text.
import { createReadStream } from 'node:fs';
import { findReplacementCharacters, type IntegrityReport, isDamaged } from '../codec/integrity.js';
import { PAYLOAD_FIELDS } from '../codec/payload.js';
import { formatPath, type JsonPath } from '../errors.js';
import { isId } from '../jsonrpc/message.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../stream/index.js';
import { parseJson } from '../util/json.js';
import { ndjsonLines } from './ndjson-lines.js';
import { UsageError } from './usage-error.js';

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;
const JSON_BLANK = /^[ \t\r]*$/;

/**
 * Names a damaged key by its position among its object's keys. JSON.parse keeps keys in
 * document order except integer-like ones, which it moves first; when the object has any, the
 * position counts only the other keys (a damaged key is never integer-like).
 */
function keyPosition(holder: unknown, key: string): string {
  const keys = Object.keys(holder as object);
  const numeric = keys.filter((k) => ARRAY_INDEX.test(k)).length;
  return numeric === 0 ? `key #${keys.indexOf(key)}` : `key #${keys.indexOf(key) - numeric} of the non-numeric keys`;
}

/** formatPath, with damaged keys named by position. */
function safePath(root: unknown, path: JsonPath): string {
  let out = '$';
  let node = root;
  for (const p of path) {
    out += typeof p === 'string' && isDamaged(p) ? `[${keyPosition(node, p)}]` : formatPath([p]).slice(1);
    node = (node as Record<string | number, unknown>)[p];
  }
  return out;
}

function describe(r: IntegrityReport, root: unknown, base: JsonPath): string {
  const name = isDamaged(r.parameterName)
    ? `parameter ${keyPosition(root, r.parameterName)} (its name is damaged)`
    : `parameter ${JSON.stringify(r.parameterName)}`;
  const where = r.path.length > 1 ? ` at ${formatPath(base) + safePath(root, r.path).slice(1)}` : '';
  return `${name}${where}${r.location === 'key' ? ' (key)' : ''}: ${r.replacementCharacterCount} x U+FFFD${r.loneSurrogateCount ? ` (${r.loneSurrogateCount} as lone surrogates)` : ''}, first at character ${r.characterOffset}, UTF-8 byte ${r.utf8ByteOffset}`;
}

function label(lineNumber: number, m: Record<string, unknown>, batchIndex: number | undefined): string {
  const id = isId(m.id) ? ` (id ${JSON.stringify(m.id)})` : '';
  const method = typeof m.method === 'string' ? ` ${m.method}` : '';
  return `line ${lineNumber}${batchIndex === undefined ? '' : ` [${batchIndex}]`}${id}${method}`;
}

/** Reports of one message: a tool call's arguments, or else its payload fields. */
function reportMessage(m: Record<string, unknown>, out: (line: string) => void): number {
  const params = m.params as Record<string, unknown> | undefined;
  const sources: [unknown, JsonPath][] =
    m.method === 'tools/call' && params && typeof params === 'object'
      ? [[params.arguments ?? {}, ['params', 'arguments']]]
      : PAYLOAD_FIELDS.filter((f) => f in m).map((f) => [{ [f]: m[f] }, []]);
  let found = 0;
  for (const [value, base] of sources) {
    const reports = findReplacementCharacters(value);
    for (const r of reports) out(describe(r, value, base));
    // (Reports are bounded; the count is not.)
    if (reports.total > reports.length) out(`and ${reports.total - reports.length} more string(s) with U+FFFD`);
    found += reports.total;
  }
  return found;
}

function input(file: string | undefined): AsyncIterable<Uint8Array> {
  if (file === undefined || file === '-') return process.stdin;
  const stream = createReadStream(file);
  return (async function* () {
    try {
      yield* stream;
    } catch (e) {
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  })();
}

/**
 * 0 if no U+FFFD, 1 if any, 2 if a line is not JSON (each such line is reported on stderr and
 * skipped, so the rest is still scanned; the scan is incomplete, which outranks "found").
 */
export async function scan(file: string | undefined): Promise<number> {
  const utf8 = new TextDecoder(); // invalid UTF-8 becomes U+FFFD: damage, and reported as such
  let lineNumber = 0;
  let found = 0;
  let invalid = 0;
  const print = (prefix: string) => (text: string) => process.stdout.write(`${prefix}: ${text}\n`);
  for await (const bytes of ndjsonLines(input(file), DEFAULT_MAX_MESSAGE_BYTES)) {
    lineNumber++;
    const text = utf8.decode(bytes);
    if (JSON_BLANK.test(text)) continue;
    const parsed = parseJson(text);
    if (parsed === undefined) {
      invalid++;
      process.stderr.write(`mcp-payload-codec: line ${lineNumber}: invalid JSON, skipped\n`);
      continue;
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    messages.forEach((m, i) => {
      if (typeof m !== 'object' || m === null || Array.isArray(m)) return;
      const msg = m as Record<string, unknown>;
      found += reportMessage(msg, print(label(lineNumber, msg, Array.isArray(parsed) ? i : undefined)));
    });
  }
  if (invalid) return 2;
  if (found === 0) process.stderr.write(`no U+FFFD in ${lineNumber} line(s)\n`);
  return found > 0 ? 1 : 0;
}
