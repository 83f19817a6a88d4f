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
