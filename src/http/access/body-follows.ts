// Whether a body follows a request's head (RFC 9112, section 6.3): it does when the head
// carries Transfer-Encoding or a Content-Length above 0, and never otherwise (a bodiless
// DELETE, a POST of Content-Length: 0). A request refused from its head closes its connection
// only when a body follows: kept open, the server would read that body, however long the client
// took; closed without one, a request pipelined behind it was lost.

/** Whether a body follows the head whose fields `headers` reads. */
export function bodyFollows(headers: { get(name: string): string | null }): boolean {
  if (headers.get('transfer-encoding') !== null) return true;
  const length = headers.get('content-length');
  // (anything but digits that are all 0 counts as a body: a server that read it otherwise refused it)
  return length !== null && !/^\s*0+\s*$/.test(length);
}

/**
 * `response`, a refusal of `request` before its body was read: the body is dropped unread and,
 * when one follows the head, the connection goes with the answer, so the rest is not read either
 * (a server would otherwise drain it to keep the connection: an unfinished body, never ending,
 * held it open and read).
 */
export function refusedUnread(request: Request, response: Response): Response {
  void request.body?.cancel().catch(() => {});
  if (!bodyFollows(request.headers)) return response;
  const headers = new Headers(response.headers);
  headers.set('connection', 'close');
  return withHeaders(response, headers);
}

/** Copies a Response with other headers (its body is passed on, not read). */
export const withHeaders = (response: Response, headers: Headers) =>
  new Response(response.body, { status: response.status, statusText: response.statusText, headers });
