// The proxy's answer through Web streams (when it is not relayed as it comes): the upstream's
// response encoded, the guard's own answers added, and settled before its head goes.
import type { Message } from '../jsonrpc/message.js';
import type { CallGuard } from './call-guard.js';
import { withAnswers } from './guarded.js';
import { downstream, toHeaders } from './proxy-headers.js';
import type { RelaySettings } from './proxy-relayed.js';
import type { Answer } from './proxy-request.js';
import { asResponse, type Upstream } from './proxy-upstream.js';
import { encodeResponse, type headKind } from './response.js';
import { settle, streamEnding } from './settle.js';
import type { TimedPost } from './timed.js';

/** What the answer is for: the request's method, its guard, its body as sent, the guard's answers. */
export interface AnsweredCall {
  method: string;
  guard: CallGuard | undefined;
  original: Uint8Array | undefined;
  answers: Message[];
}

export interface EncodedHow {
  timed: TimedPost | undefined;
  framing: { endpoint: boolean; method: string };
  kind: ReturnType<typeof headKind>;
  /** The answer when the response cannot be passed on (what failed: memory full, or the bytes). */
  failed: (failure: unknown) => Answer | Promise<Answer>;
}

export async function encodedAnswer(relay: RelaySettings, call: AnsweredCall, upstream: Upstream, how: EncodedHow): Promise<Answer> {
  const { method, guard, original } = call;
  const { bodyOptions, notes } = relay;
  const { timed, framing, kind } = how;
  const response = asResponse(upstream);
  let failure: unknown;
  const refused = (e: unknown) => {
    failure = e;
    notes.refused(method, e);
  };
  const encoded = await encodeResponse(response, { ...bodyOptions, ...framing, guard, timed, onTruncated: notes.truncated(method) });
  const filtered = await withAnswers(encoded, call.answers, bodyOptions, relay.max);
  // An event stream cut short by a refused event ends with an error for each request of the
  // POST: its answer was the refused event or would have come after it, and the host must not
  // wait for its timeout (a request answered before gets a second answer, which clients drop).
  const ending = kind === 'sse' && original ? (e: unknown) => streamEnding(original, e, bodyOptions) : undefined;
  // A JSON answer's first chunk is read before the headers go (it fails: 502 instead); a body
  // encoded whole (text, errors) or an event stream goes at once, however long it stays open.
  const settled = await settle(filtered.body, (kind === 'json' && response.ok) || kind === 'binary', refused, ending);
  if (settled === 'failed') return how.failed(failure);
  return new Response(settled, {
    status: filtered.status,
    statusText: filtered.statusText,
    headers: toHeaders(downstream(filtered.headers)),
  });
}
