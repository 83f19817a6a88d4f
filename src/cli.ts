// The mcp-payload-codec command: wrap any stdio MCP server, transform stdin to stdout, or scan
// NDJSON for U+FFFD. Node only (child processes, files); the library entries stay portable.
import { spawn } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { formatPath } from './errors.js';
import { findReplacementCharacters, type IntegrityReport } from './integrity.js';
import { LineWriter } from './cli/line-writer.js';
import { INVALID_PARAMS } from './mcp/filtering.js';
import { errorResponse } from './mcp/wrapper.js';
import { LineSplitter } from './cli/lines.js';
import { ToolCallGuard } from './mcp/tool-guard.js';
import type { Message } from './mcp/wrapper.js';
import type { CodecOptions } from './options.js';
import { PAYLOAD_FIELDS } from './payload.js';
import { createByteTransformer, type Framing, type StreamOptions } from './stream/index.js';

const HELP = `Usage: mcp-payload-codec <command> [options]

Commands:
  wrap [options] -- <command> [args...]  Run a stdio MCP server as a child and filter its
                                         traffic: its stdout is encoded on the way to ours,
                                         our stdin decoded on the way to it. stderr passes
                                         through. A request whose decoded keys collide is
                                         answered with JSON-RPC error -32602, not forwarded.
                                         --guard also blocks calls to tools the server does
                                         not list and calls whose arguments fail the tool's
                                         inputSchema (answered -32602, reason on stderr).
  encode [options]                       stdin to stdout, terms aliased
  decode [options]                       stdin to stdout, tokens restored
  scan [file]                            Report U+FFFD per NDJSON message and parameter (never
                                         the content); exit code 1 if any is found

Options:
  --framing ndjson|content-length|sse    encode, decode (default: ndjson; wrap: ndjson)
  --prefix STRING                        token prefix (default: __mcp_ref_)
  --hex-case lower|upper                 hex digits written by encoding (default: lower)
  --terms FILE.json                      terms to alias: {"ascii":[...],"exact":[...],"pairs":[[a,b],...]}
  -h, --help                             this text
`;

class UsageError extends Error {}

function codecOptions(values: Record<string, string | boolean | undefined>): CodecOptions {
  const options: CodecOptions = {};
  if (typeof values.prefix === 'string') options.prefix = values.prefix;
  if (values['hex-case'] !== undefined) {
    if (values['hex-case'] !== 'lower' && values['hex-case'] !== 'upper') throw new UsageError('--hex-case must be lower or upper');
    options.hexCase = values['hex-case'];
  }
  if (typeof values.terms === 'string') {
    try {
      options.terms = JSON.parse(readFileSync(values.terms, 'utf8'));
    } catch (e) {
      throw new UsageError(`cannot read --terms ${values.terms}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return options;
}

function framing(value: string | boolean | undefined): Framing {
  if (value === undefined) return 'ndjson';
  if (value === 'ndjson' || value === 'content-length' || value === 'sse') return value;
  throw new UsageError('--framing must be ndjson, content-length or sse');
}

/** stdin through a transformer to stdout, with backpressure. */
async function transformStdio(mode: 'encode' | 'decode', options: StreamOptions): Promise<number> {
  const out = new LineWriter(process.stdout);
  const t = createByteTransformer(mode, options, (b) => out.write(b));
  for await (const chunk of process.stdin) {
    t.push(chunk as Uint8Array);
    await out.drained();
  }
  t.close();
  await out.end();
  return 0;
}

const utf8 = new TextDecoder();
/** One NDJSON line. */
const line = (value: unknown) => new TextEncoder().encode(JSON.stringify(value) + '\n');
const NEWLINE = new Uint8Array([0x0a]);

/** Runs `command` as a child MCP server over stdio and filters both directions. */
function wrap(command: string[], options: CodecOptions, guarded: boolean): Promise<number> {
  const [file, ...args] = command;
  if (!file) throw new UsageError('wrap needs a command after --');
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const toClient = new LineWriter(process.stdout);
  const fail = (where: string, e: unknown) => {
    process.stderr.write(`mcp-payload-codec: ${where}: ${(e as Error).message}\n`);
    child.kill('SIGTERM');
    process.exitCode = 1;
  };
  const encoder = createByteTransformer('encode', options, (b) => toClient.write(b));
  const decoder = createByteTransformer('decode', {
    ...options,
    onCollision: (e) => {
      if (e.batchIds) {
        // A batch goes whole: every request in it is answered, in one batch response.
        const replies = e.batchIds.map((id) => errorResponse(id as string | number, INVALID_PARAMS, id === e.id ? e.message : `dropped with its batch: ${e.message}`));
        if (replies.length) toClient.reply(line(replies));
      } else if (e.id === undefined || e.id === null) process.stderr.write(`mcp-payload-codec: dropped a notification: ${e.message}\n`);
      else toClient.reply(line(errorResponse(e.id as string | number, INVALID_PARAMS, e.message)));
    },
  }, (b) => toServer(b));
  const writeToServer = (b: Uint8Array) => {
    if (!child.stdin.write(b)) process.stdin.pause();
  };
  let toServer = writeToServer;
  let fromServer = (_chunk: Uint8Array) => {};
  if (guarded) {
    // Checked on decoded values, so tools see (and schemas judge) the real ones.
    const guard = new ToolCallGuard({ onblock: (b) => process.stderr.write(`mcp-payload-codec: blocked tools/call ${JSON.stringify(b.toolName)}: ${b.reason}\n`) });
    const requests = new LineSplitter((request) => {
      let message: unknown;
      try {
        message = JSON.parse(utf8.decode(request));
      } catch {
        message = undefined;
      }
      const reply = message && !Array.isArray(message) ? guard.outgoing(message as Message) : undefined;
      if (reply) toClient.reply(line(reply));
      else {
        writeToServer(request);
        writeToServer(NEWLINE);
      }
    });
    toServer = (b) => requests.push(b);
    // Tool lists and list changes, read from the server's own (not yet encoded) output.
    const responses = new LineSplitter(
      (line) => {
        try {
          const message = JSON.parse(utf8.decode(line));
          for (const m of Array.isArray(message) ? message : [message]) guard.incoming(m as Message);
        } catch {
          // not JSON: the encoder reports it
        }
      },
      (head) => /"tools"|tools\/list_changed/.test(utf8.decode(head)),
    );
    fromServer = (chunk) => responses.push(chunk);
  }
  child.stdin.on('drain', () => process.stdin.resume());
  child.stdin.on('error', () => {}); // the child may exit before reading everything; 'close' reports it
  // Each direction reports its first error only: its transformer refuses work after that.
  const once = (where: string) => {
    let failed = false;
    return (work: () => void) => {
      if (failed) return;
      try {
        work();
      } catch (e) {
        failed = true;
        fail(where, e);
      }
    };
  };
  const fromServerSide = once('from the server');
  const fromClientSide = once('from the client');
  child.stdout.on('data', (chunk: Buffer) => {
    fromServerSide(() => {
      fromServer(chunk);
      encoder.push(chunk);
    });
    if (!toClient.ready) {
      child.stdout.pause();
      void toClient.drained().then(() => child.stdout.resume());
    }
  });
  child.stdout.on('end', () => fromServerSide(() => encoder.close()));
  process.stdin.on('data', (chunk: Buffer) => fromClientSide(() => decoder.push(chunk)));
  process.stdin.on('end', () => {
    fromClientSide(() => decoder.close());
    child.stdin.end();
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve, reject) => {
    child.on('error', (e) => reject(new UsageError(`cannot start ${file}: ${e.message}`)));
    child.on('close', (code, signal) => {
      void toClient.end().then(() => {
        process.stdin.pause();
        if (signal) {
          process.removeAllListeners(signal);
          process.kill(process.pid, signal);
        }
        resolve(process.exitCode && process.exitCode !== 0 ? Number(process.exitCode) : (code ?? 1));
      });
    });
  });
}

function describeReport(r: IntegrityReport, fieldPath: (string | number)[]): string {
  const where = r.path.length > 1 ? ` at ${formatPath([...fieldPath, ...r.path])}` : '';
  return `parameter ${JSON.stringify(r.parameterName)}${where}${r.location === 'key' ? ' (key)' : ''}: ${r.replacementCharacterCount} x U+FFFD, first at character ${r.characterOffset}, UTF-8 byte ${r.utf8ByteOffset}`;
}

/** Reports U+FFFD per message and parameter; 1 if any, 0 if none. */
async function scan(file: string | undefined): Promise<number> {
  const lines = createInterface({ input: file ? createReadStream(file) : process.stdin, crlfDelay: Infinity });
  let lineNumber = 0;
  let found = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new UsageError(`line ${lineNumber}: invalid JSON`);
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof m !== 'object' || m === null) continue;
      const msg = m as Record<string, unknown>;
      const label = `line ${lineNumber}${msg.id !== undefined ? ` (id ${JSON.stringify(msg.id)})` : ''}${typeof msg.method === 'string' ? ` ${msg.method}` : ''}`;
      const params = msg.params as Record<string, unknown> | undefined;
      const sources: [unknown, (string | number)[]][] = msg.method === 'tools/call' && params && typeof params === 'object'
        ? [[params.arguments ?? {}, ['params', 'arguments']]]
        : PAYLOAD_FIELDS.filter((f) => f in msg).map((f) => [{ [f]: msg[f] }, []]);
      for (const [value, fieldPath] of sources) {
        for (const r of findReplacementCharacters(value)) {
          found++;
          process.stdout.write(`${label}: ${describeReport(r, fieldPath)}\n`);
        }
      }
    }
  }
  if (found === 0) process.stderr.write(`no U+FFFD in ${lineNumber} line(s)\n`);
  return found > 0 ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  const dashdash = argv.indexOf('--');
  const own = dashdash >= 0 ? argv.slice(0, dashdash) : argv;
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      framing: { type: 'string' },
      prefix: { type: 'string' },
      'hex-case': { type: 'string' },
      terms: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      guard: { type: 'boolean' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    return command || values.help ? 0 : 2;
  }
  const options = codecOptions(values);
  if (values.framing !== undefined && command !== 'encode' && command !== 'decode') throw new UsageError('--framing applies to encode and decode (wrap speaks NDJSON, as MCP stdio does)');
  if (values.guard && command !== 'wrap') throw new UsageError('--guard applies to wrap');
  switch (command) {
    case 'wrap':
      if (dashdash < 0) throw new UsageError('wrap needs -- before the server command');
      return wrap(argv.slice(dashdash + 1), options, values.guard === true);
    case 'encode':
    case 'decode':
      return transformStdio(command, { ...options, framing: framing(values.framing) });
    case 'scan':
      return scan(rest[0]);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)} (see --help)`);
  }
}

export function run(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`mcp-payload-codec: ${(e as Error).message.split('\n')[0]}\n`);
      process.exitCode = e instanceof UsageError ? 2 : 1;
    },
  );
}
