// Roots the client declares (`--root client`, library `roots: 'client'`): when the client has
// the `roots` capability, the guard asks it `roots/list` (a request of its own, once the client
// said `notifications/initialized`, and again on each `notifications/roots/list_changed`) and
// keeps its `file:` roots. Until it knows them, a call with a path argument waits for the
// answer (bounded by ROOTS_TIMEOUT_MS); a call with a path argument that the roots cannot judge
// (no capability, an asking that failed, no file: root) is blocked with the reason.
import type { MaybePromise, Message } from '../jsonrpc/message.js';
import type { OwnRequests } from './own-requests.js';
import { fileUriPath, type OutsideRoots, pathArguments, type Realpath, Roots } from './paths.js';

/** How long the client may take to list its roots. */
export const ROOTS_TIMEOUT_MS = 10_000;

/** The local paths of a `roots/list` result's `file:` roots (Windows ones when any names a drive). */
export function fileRoots(result: unknown): string[] {
  const roots = (result as { roots?: unknown } | null)?.roots;
  if (!Array.isArray(roots)) throw new Error('its roots/list answer holds no roots array');
  const uris = roots.map((r) => (r as { uri?: unknown } | null)?.uri).filter((u): u is string => typeof u === 'string');
  const windows = uris.some((u) => /^file:\/\/(localhost)?\/[A-Za-z]:/i.test(u));
  return uris.flatMap((u) => fileUriPath(u, windows ? 'win32' : 'posix') ?? []);
}

export class ClientRoots {
  private roots: Roots | undefined;
  /** Why the roots are not known (while `roots` is undefined and nothing is asked). */
  private unknown = 'the client has not finished initializing';
  private asking: Promise<void> | undefined;
  /** Askings started (an answer to one before the last is stale). */
  private asked = 0;

  /** `realpath`: this machine's, where the server runs here (the roots are made real with it). */
  constructor(private readonly realpath?: Realpath) {}

  /** A notification from the client on its way to the server (`capabilities`: its `initialize`'s). */
  notified(message: Message, capabilities: unknown, client: OwnRequests | undefined): void {
    const method = (message as { method?: unknown }).method;
    if (method !== 'notifications/initialized' && method !== 'notifications/roots/list_changed') return;
    if (typeof (capabilities as { roots?: unknown } | undefined)?.roots !== 'object') {
      this.unknown = 'the client declared no roots (its roots capability)';
      return;
    }
    if (!client) {
      this.unknown = 'this transport cannot ask the client for its roots';
      return;
    }
    const n = ++this.asked;
    const asking = client.request('roots/list', {}, ROOTS_TIMEOUT_MS).then(
      (result) => {
        if (n === this.asked) this.adopt(result);
      },
      (e: unknown) => {
        if (n !== this.asked) return;
        this.roots = undefined;
        this.unknown = `asking the client for its roots failed: ${(e as Error).message}`;
      },
    );
    this.asking = asking;
    void asking.then(() => {
      if (this.asking === asking) this.asking = undefined;
    });
  }

  private adopt(result: unknown): void {
    let paths: string[];
    try {
      paths = fileRoots(result).map((p) => {
        try {
          return this.realpath?.(p) ?? p;
        } catch {
          return p; // (cannot tell: kept as given, checked lexically against)
        }
      });
      this.roots = paths.length ? new Roots(paths, this.realpath) : undefined;
      this.unknown = 'the client listed no file: roots';
    } catch (e) {
      this.roots = undefined;
      this.unknown = `the client's roots cannot be used: ${(e as Error).message}`;
    }
  }

  /** The first path argument outside the client's roots (waits while they are asked for). */
  check(args: Record<string, unknown>, schema?: unknown): MaybePromise<OutsideRoots | undefined> {
    const found = pathArguments(args, schema);
    if (!found.length) return undefined;
    if (this.asking) return this.asking.then(() => this.check(args, schema));
    if (this.roots) return this.roots.check(args, schema);
    const pointer = found[0]!.pointer;
    return { pointer, reason: `argument ${JSON.stringify(pointer)} is a path, and the client's roots are not known: ${this.unknown}` };
  }
}
