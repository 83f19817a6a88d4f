export { type Codec, createCodec } from './codec/codec.js';
export {
  assertNoReplacementCharacters,
  type ByteIntegrityReport,
  DEFAULT_PATH_BUDGET,
  DEFAULT_REPORT_LIMIT,
  type FindReplacementOptions,
  findReplacementBytes,
  findReplacementCharacters,
  type IntegrityReport,
  type IntegrityReports,
} from './codec/integrity.js';
export type { CodecOptions, HexCase } from './codec/options.js';
export { DEFAULT_TERMS, type TermSet, type TermSetInput } from './codec/terms.js';
export { ArgumentIntegrityError, formatPath, type JsonPath, PayloadKeyCollisionError, WasmMemoryFullError } from './errors.js';
export { FILTER_ENV, isFilterEnabled } from './util/opt-in.js';

import { createCodec } from './codec/codec.js';

const defaultCodec = createCodec();

// The default codec's methods (mobile-mcp wire format), bound for direct import.
export const encodeText = (text: string): string => defaultCodec.encodeText(text);
export const decodeText = (text: string): string => defaultCodec.decodeText(text);
export const encodeValue = <T>(value: T): T => defaultCodec.encodeValue(value);
export const decodeValue = <T>(value: T): T => defaultCodec.decodeValue(value);
export const encodeMessage = <T>(message: T): T => defaultCodec.encodeMessage(message);
export const decodeMessage = <T>(message: T): T => defaultCodec.decodeMessage(message);
