// createCodec(): the string API over a compiled term set.
import { compileAutomaton } from './automaton.js';
import { writeDescriptor, type Descriptor } from './core/descriptor.js';
import { coreDecode, coreEncode, transcode, type TranscodeJob } from './core/transcode.js';
import { mapWellFormed } from './core/well-formed.js';
import { resolveOptions, type CodecOptions, type ResolvedOptions } from './options.js';

export interface Codec {
  /** The options in force, with defaults filled in. */
  readonly options: Omit<ResolvedOptions, 'patterns' | 'key'>;
  /** Replaces every term (and every occurrence of the prefix) with a token. */
  encodeText(text: string): string;
  /** Restores every valid token; everything else is kept as it is. */
  decodeText(text: string): string;
}

export interface Compiled {
  readonly encodeJob: TranscodeJob;
  readonly decodeJob: TranscodeJob;
}

const compiled = new Map<string, Compiled>();

/** The core jobs for a set of options, compiled once per distinct term set and format. */
export function compile(o: ResolvedOptions): Compiled {
  let c = compiled.get(o.key);
  if (c) return c;
  const automaton = compileAutomaton(o.patterns);
  const hex = o.hexCase === 'upper' ? '0123456789ABCDEF' : '0123456789abcdef';
  // Encode and decode calls never interleave (both are synchronous), so one descriptor serves both.
  const desc: Descriptor = writeDescriptor(automaton, o.prefix, o.suffix, hex);
  const tokenBytes = o.prefix.length + o.suffix.length;
  c = {
    encodeJob: { fn: coreEncode, desc, expansion: 2 + tokenBytes / automaton.minPatternBytes },
    decodeJob: { fn: coreDecode, desc, expansion: 1 },
  };
  compiled.set(o.key, c);
  return c;
}

export function createCodec(options?: CodecOptions): Codec {
  const resolved = resolveOptions(options);
  const { encodeJob, decodeJob } = compile(resolved);
  const encodePiece = (s: string) => transcode(encodeJob, s);
  const decodePiece = (s: string) => transcode(decodeJob, s);
  const { prefix, suffix, hexCase, terms } = resolved;
  return Object.freeze({
    options: Object.freeze({ prefix, suffix, hexCase, terms }),
    encodeText: (text: string) => (text.length === 0 ? text : mapWellFormed(text, encodePiece)),
    decodeText: (text: string) => (text.length === 0 ? text : mapWellFormed(text, decodePiece)),
  });
}
