// Values of the HTTP commands' options (proxy, connect, serve), read from the one command line
// parser (args.ts), and what the three share.
import type { CodecOptions } from '../codec/options.js';
import type { CommandLine } from './args.js';
import { UsageError } from './usage-error.js';

/** The codec options and the message bound, as every command takes them. */
export type StreamCommandOptions = CodecOptions & { maxMessageBytes?: number };

export function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new UsageError(`${flag} must be a positive whole number`);
  return Number(value);
}

export function port(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError('--port must be 0 to 65535');
  return Number(value);
}

/** The longest timer Node keeps (2^31-1 ms, about 596 h): a longer one fires after 1 ms. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** A duration as written: '90s', '10m', '1h', or plain seconds; not 0. */
export const DURATION = /^0*[1-9][0-9]*[smh]?$/;

/** A DURATION's milliseconds; at most MAX_DURATION_MS. */
export function duration(value: string | undefined, flag: string, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  if (!DURATION.test(value)) throw new UsageError(`${flag} must be a duration such as 90s, 10m or 1h`);
  const unit = /[smh]$/.test(value) ? (value.at(-1) as 's' | 'm' | 'h') : 's';
  const ms = Number.parseInt(value, 10) * { s: 1000, m: 60_000, h: 3_600_000 }[unit];
  if (ms > MAX_DURATION_MS) throw new UsageError(`${flag} must be at most 596h (2147483s), the longest timer Node keeps`);
  return ms;
}

/** --call-timeout and --call-timeout-max (wrap, serve, proxy, connect): none when not given. */
export function callTimeout({ values }: CommandLine): { callTimeoutMs?: number; callTimeoutMaxMs?: number } {
  const timeout = values['call-timeout'];
  if (values['call-timeout-max'] !== undefined && timeout === undefined) throw new UsageError('--call-timeout-max needs --call-timeout');
  if (timeout === undefined) return {};
  const callTimeoutMs = duration(timeout, '--call-timeout', 0);
  const callTimeoutMaxMs = duration(values['call-timeout-max'], '--call-timeout-max', 10 * callTimeoutMs);
  if (callTimeoutMaxMs < callTimeoutMs)
    throw new UsageError('--call-timeout-max must be at least --call-timeout (progress only extends a call)');
  return { callTimeoutMs, callTimeoutMaxMs };
}

/**
 * Resolves on SIGINT, SIGTERM or SIGHUP (a server command runs until then); with `onHangup`,
 * SIGHUP calls it instead (a server re-reads its token file) and only SIGINT and SIGTERM stop.
 */
export function untilSignal(onHangup?: () => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    const on = (signal: NodeJS.Signals) => {
      if (signal === 'SIGHUP' && onHangup) return onHangup();
      for (const s of signals) process.off(s, on);
      resolve(signal);
    };
    for (const s of signals) process.on(s, on);
  });
}
