// Codec and stream options from the command line, checked up front: a bad option is a usage
// error (exit code 2) before any child starts or any byte is read. The checks are the codec's
// own rules (resolveOptions), without its automaton or WASM core: wrap starts its server after
// them and builds the codec while the server starts (codec-build.ts).
import { readFileSync } from 'node:fs';
import { type CodecOptions, type HexCase, resolveOptions } from '../codec/options.js';
import type { Fold } from '../codec/terms.js';
import type { Framing } from '../stream/index.js';
import { type CommandLine, VALUE_TYPES } from './args.js';
import { UsageError } from './usage-error.js';

export function codecOptions(line: CommandLine): CodecOptions {
  const { values } = line;
  const options: CodecOptions = {};
  if (values.prefix !== undefined) options.prefix = values.prefix;
  if (values.suffix !== undefined) options.suffix = values.suffix;
  if (values['hex-case'] !== undefined) options.hexCase = oneOf<HexCase>('hex-case', values['hex-case']);
  if (values.fold !== undefined) options.fold = oneOf<Fold>('fold', values.fold);
  if (values.terms !== undefined) {
    try {
      options.terms = JSON.parse(readFileSync(values.terms, 'utf8'));
    } catch (e) {
      throw new UsageError(`cannot read --terms ${values.terms}: ${(e as Error).message.split('\n')[0]}`);
    }
  } else if (line.inlineTerms !== undefined) options.terms = line.inlineTerms;
  try {
    resolveOptions(options);
  } catch (e) {
    throw usageError(e);
  }
  return options;
}

/** The codec's refusal of an option, as the command line's: without the function's name. */
export const usageError = (e: unknown) => new UsageError((e as Error).message.replace(/^createCodec: /, ''));

export function framing({ values }: CommandLine): Framing {
  return values.framing === undefined ? 'ndjson' : oneOf<Framing>('framing', values.framing);
}

/** `value` if it is one of the option's values (VALUE_TYPES), else a usage error listing them. */
function oneOf<T extends string>(name: 'framing' | 'hex-case' | 'fold', value: string): T {
  const { values } = VALUE_TYPES[name] as { values: readonly string[] };
  if (values.includes(value)) return value as T;
  throw new UsageError(`--${name} must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}`);
}

export function maxMessageBytes({ values }: CommandLine): number | undefined {
  const value = values['max-message-bytes'];
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError('--max-message-bytes must be a positive whole number of bytes');
  return Number(value);
}
