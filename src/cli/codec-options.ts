// Codec and stream options from the command line, checked up front: a bad option is a usage
// error (exit code 2) before any child starts or any byte is read.
import { readFileSync } from 'node:fs';
import { createCodec } from '../codec.js';
import type { CodecOptions } from '../options.js';
import type { Framing } from '../stream/index.js';
import type { CommandLine } from './args.js';
import { UsageError } from './usage-error.js';

export function codecOptions({ values }: CommandLine): CodecOptions {
  const options: CodecOptions = {};
  if (values.prefix !== undefined) options.prefix = values.prefix;
  if (values.suffix !== undefined) options.suffix = values.suffix;
  if (values['hex-case'] !== undefined) {
    if (values['hex-case'] !== 'lower' && values['hex-case'] !== 'upper') throw new UsageError('--hex-case must be lower or upper');
    options.hexCase = values['hex-case'];
  }
  if (values.fold !== undefined) {
    if (values.fold !== 'ascii' && values.fold !== 'nfkc') throw new UsageError('--fold must be ascii or nfkc');
    options.fold = values.fold;
  }
  if (values.terms !== undefined) {
    try {
      options.terms = JSON.parse(readFileSync(values.terms, 'utf8'));
    } catch (e) {
      throw new UsageError(`cannot read --terms ${values.terms}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  try {
    createCodec(options); // compiles once; the streams reuse it
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/^createCodec: /, ''));
  }
  return options;
}

export function framing({ values }: CommandLine): Framing {
  const value = values.framing;
  if (value === undefined) return 'ndjson';
  if (value === 'ndjson' || value === 'content-length' || value === 'sse') return value;
  throw new UsageError('--framing must be ndjson, content-length or sse');
}

export function maxMessageBytes({ values }: CommandLine): number | undefined {
  const value = values['max-message-bytes'];
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new UsageError('--max-message-bytes must be a positive whole number of bytes');
  return Number(value);
}
