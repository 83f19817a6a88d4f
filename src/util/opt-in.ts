// The opt-in switch: filtering is on only when MCP_MODEL_PAYLOAD_FILTER is exactly "1".

export const FILTER_ENV = 'MCP_MODEL_PAYLOAD_FILTER';

type Env = Record<string, string | undefined>;

/** Where there is no `process` (browsers, workers), the default environment is empty. */
function defaultEnv(): Env {
  const p = (globalThis as { process?: { env?: Env } }).process;
  return p?.env ?? {};
}

export function isFilterEnabled(env: Env = defaultEnv()): boolean {
  return env[FILTER_ENV] === '1';
}
