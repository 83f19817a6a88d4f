export { createCodec, type Codec } from './codec.js';
export { DEFAULT_TERMS, type TermSet, type TermSetInput } from './terms.js';
export type { CodecOptions, HexCase } from './options.js';
export { ArgumentIntegrityError, formatPath, PayloadKeyCollisionError, type JsonPath } from './errors.js';
export { assertNoReplacementCharacters, DEFAULT_PATH_BUDGET, DEFAULT_REPORT_LIMIT, findReplacementBytes, findReplacementCharacters, type ByteIntegrityReport, type FindReplacementOptions, type IntegrityReport, type IntegrityReports } from './integrity.js';
export { FILTER_ENV, isFilterEnabled } from './opt-in.js';
import { createCodec } from './codec.js';

const defaultCodec = createCodec();

// The default codec's methods (mobile-mcp wire format), bound for direct import.
export const encodeText = (text: string): string => defaultCodec.encodeText(text);
export const decodeText = (text: string): string => defaultCodec.decodeText(text);
export const encodeValue = <T>(value: T): T => defaultCodec.encodeValue(value);
export const decodeValue = <T>(value: T): T => defaultCodec.decodeValue(value);
export const encodeMessage = <T>(message: T): T => defaultCodec.encodeMessage(message);
export const decodeMessage = <T>(message: T): T => defaultCodec.decodeMessage(message);
