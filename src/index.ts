export { createCodec, type Codec } from './codec.js';
export { DEFAULT_TERMS, type TermSet, type TermSetInput } from './terms.js';
export type { CodecOptions, HexCase } from './options.js';
import { createCodec } from './codec.js';

const defaultCodec = createCodec();

/** {@link Codec.encodeText} of the default codec (mobile-mcp wire format). */
export const encodeText = (text: string): string => defaultCodec.encodeText(text);
/** {@link Codec.decodeText} of the default codec (mobile-mcp wire format). */
export const decodeText = (text: string): string => defaultCodec.decodeText(text);
