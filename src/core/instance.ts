// Instantiates the WASM core synchronously from bytes inlined at build time: no fetch, no fs,
// no top-level await, so importing the package works the same in Node, browsers and workers.
import { SCALAR_WASM_BASE64, SIMD_WASM_BASE64 } from './wasm-bytes.js';

/**
 * The shipped core's exports (assembly/index.ts; its constants are src/core/abi.ts).
 * test/abi.test.ts holds both builds to these names and arities.
 */
export interface CoreExports {
  readonly memory: WebAssembly.Memory;
  heapBase(): number;
  /** Term matching: match records, in UTF-16 units (mode 1) or bytes (mode 2). */
  scan(desc: number, inp: number, len: number, out: number, final: number, mode: number): number;
  /** The streaming JSON transducer (assembly/json/). */
  jsonReset(state: number): void;
  jsonStep(state: number, inp: number, len: number, out: number): number;
  jsonFinish(state: number, out: number): number;
  /** Whole NDJSON lines that need no host, in one call (results in the state: J_LINES_*). */
  jsonLines(state: number, inp: number, len: number, out: number, maxBytes: number): number;
  /** One whole message longer than the batch regions, by the indexed path alone: the bytes written, or -1 (refused). */
  jsonLarge(state: number, inp: number, n: number, out: number, map: number, mapEntries: number): number;
  /** Whole message bodies the host framed, in one call (a frame table: FRAME_SIZE, F_*). */
  jsonMessages(state: number, inp: number, frames: number, count: number, out: number): number;
  /** U+FFFD (EF BF BD) count and first offset in bytes, written as u32 + i32 at result. */
  countReplacement(ptr: number, len: number, result: number): void;
  /** encodeText's result as UTF-16 from a UTF-16 copy of the input and its match records: the units written. */
  result16(desc: number, src: number, units: number, records: number, count: number, out: number): number;
  /** UTF-16 units as UTF-8 (lone surrogates as U+FFFD, their count a u32 at lone): the bytes written. */
  utf16ToUtf8(src: number, units: number, dst: number, lone: number): number;
}

// Node's Buffer decodes base64 natively (0.1 ms for the core, against 1.5 ms for atob and a
// byte loop that runs before any JIT): a tenth of the cold start budget. Browsers take atob.
const NodeBuffer = (globalThis as { Buffer?: { from(text: string, encoding: 'base64'): Uint8Array } }).Buffer;

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  if (NodeBuffer) {
    const decoded = NodeBuffer.from(text, 'base64');
    const bytes = new Uint8Array(decoded.length); // (a pooled Buffer shares its ArrayBuffer: own one)
    bytes.set(decoded);
    return bytes;
  }
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** 'simd' unless the engine lacks WebAssembly SIMD (or MCP_PAYLOAD_CODEC_WASM=scalar asks). */
function chooseVariant(simdBytes: Uint8Array<ArrayBuffer>): 'simd' | 'scalar' {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  if (env?.MCP_PAYLOAD_CODEC_WASM === 'scalar') return 'scalar';
  return WebAssembly.validate(simdBytes) ? 'simd' : 'scalar';
}

const simd = fromBase64(SIMD_WASM_BASE64);
/** Which build of the core runs (the scalar one has no Teddy stage: tests need to know). */
export const coreVariant = chooseVariant(simd);
const bytes = coreVariant === 'simd' ? simd : fromBase64(SCALAR_WASM_BASE64);
export const core = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as CoreExports;
