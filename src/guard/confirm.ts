// Confirmation: a call the host's rule names (a tool's name, or 'destructive') is asked about
// before it leaves, and goes on only when the user says yes. Free of any transport: a transport
// hands in how it asks (an `elicitation/create` to the client, or the library's callback).
//
// 'destructive': every tool whose listed annotations say `destructiveHint: true` and not
// `readOnlyHint: true`. (MCP's default for a tool without annotations is destructive; taking
// that default here would ask about every call of most servers, so only a tool that says so is.)
import { NoAnswer, type OwnRequests } from './own-requests.js';

/** What the user is asked about: the tool and its argument names (never their values). */
export interface ConfirmRequest {
  readonly tool: string;
  readonly argumentNames: readonly string[];
}

/**
 * Asks the user; resolves true to let the call go on (a rejection blocks it with its reason).
 * `signal` aborts when the client cancelled the call meanwhile (its answer no longer counts).
 */
export type AskUser = (request: ConfirmRequest, signal?: AbortSignal) => Promise<boolean>;

/** The rule entry that names every tool annotated destructive. */
export const DESTRUCTIVE = 'destructive';

/** How long the user has to answer when no call time limit is given (under the SDK's default 60 s request timeout, so the host reads why). */
export const CONFIRM_TIMEOUT_MS = 55_000;

/** Argument names a message lists (the rest are counted). */
const MAX_NAMES = 20;

interface AnnotatedTool {
  readonly name: string;
  readonly annotations?: { readonly destructiveHint?: unknown; readonly readOnlyHint?: unknown };
}

/** Whether `rule` (tool names and 'destructive') asks about calls of `tool`. */
export function needsConfirmation(rule: readonly string[], tool: AnnotatedTool): boolean {
  if (rule.includes(tool.name)) return true;
  const a = tool.annotations;
  return rule.includes(DESTRUCTIVE) && a?.destructiveHint === true && a.readOnlyHint !== true;
}

/** Whether a client's `initialize` capabilities let it answer a form elicitation (an empty `elicitation` means form). */
export function canElicitForm(capabilities: unknown): boolean {
  const e = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (typeof e !== 'object' || e === null) return false;
  return 'form' in e || !('url' in e);
}

/** The property of the form the user sets. */
const FIELD = 'allow';

/** The `elicitation/create` params asking about one call (MCP 2025-06-18: a message and a flat form). */
export function confirmationParams({ tool, argumentNames }: ConfirmRequest): Record<string, unknown> {
  const names = argumentNames.slice(0, MAX_NAMES).map((n) => JSON.stringify(n));
  if (argumentNames.length > MAX_NAMES) names.push(`and ${argumentNames.length - MAX_NAMES} more`);
  const args = names.length ? `with the arguments ${names.join(', ')}` : 'without arguments';
  return {
    message: `Allow the tool ${JSON.stringify(tool)} to run ${args}?`,
    requestedSchema: {
      type: 'object',
      properties: { [FIELD]: { type: 'boolean', title: 'Allow this call', default: false } },
      required: [FIELD],
    },
  };
}

/** Asks through the client: an `elicitation/create` of the guard's own, answered within `timeoutMs`. */
export function elicitingAsker(client: OwnRequests, timeoutMs: number): AskUser {
  return async (request, signal) => {
    const result = (await client.request('elicitation/create', confirmationParams(request), timeoutMs, signal)) as {
      action?: unknown;
      content?: Record<string, unknown>;
    } | null;
    return result?.action === 'accept' && result.content?.[FIELD] === true;
  };
}

/** Why a confirmation did not let a call go on, and how the trail names it. */
export interface Refusal {
  readonly decision: 'declined' | 'timed-out' | 'blocked';
  readonly reason: string;
}

/** The reason for a client that cannot be asked. */
export const CANNOT_ASK = 'needs a confirmation that this client cannot ask for';

/** The reason for a call the client cancelled while its user was asked. */
export const CANCELLED = 'the client cancelled the call while the user was asked';

/**
 * Asks `ask` (undefined: this client cannot be asked); resolves undefined when the user
 * confirmed. Once `signal` aborts (the client cancelled the call), no answer lets it go on.
 */
export async function confirm(request: ConfirmRequest, ask: AskUser | undefined, signal?: AbortSignal): Promise<Refusal | undefined> {
  if (!ask) return { decision: 'blocked', reason: CANNOT_ASK };
  const cancelled = { decision: 'blocked', reason: CANCELLED } as const;
  try {
    const yes = await new Promise<boolean>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason));
      ask(request, signal).then(resolve, reject);
    });
    if (signal?.aborted) return cancelled;
    return yes ? undefined : { decision: 'declined', reason: 'declined by the user' };
  } catch (e) {
    if (signal?.aborted) return cancelled;
    if (e instanceof NoAnswer) return { decision: 'timed-out', reason: `no confirmation from the user within ${e.ms / 1000} s` };
    return { decision: 'blocked', reason: `asking the user for a confirmation failed: ${(e as Error).message}` };
  }
}
