// The error of a byte stream: what is wrong (a code to branch on, a reason to read), in which
// message and at which byte offset of it, never the bytes. A leaf: every part of a stream
// (framers, pipe, transducer host) raises it.

export type PayloadStreamErrorCode =
  | 'invalid-json'
  | 'invalid-utf8'
  | 'control-character'
  | 'invalid-escape'
  | 'too-deep' // nesting past the transducer's stack, or deferred values nested past their bound
  | 'incomplete' // the message (or stream) ends before its JSON value or frame does
  | 'type-conflict' // two `type` keys that disagree about image/audio
  | 'too-large' // over maxMessageBytes (or a header block over its bound)
  | 'framing'; // a frame the framing cannot read unambiguously

/** Invalid input: names the message and byte offset, never the bytes. */
export class PayloadStreamError extends Error {
  override readonly name = 'PayloadStreamError';
  constructor(
    readonly code: PayloadStreamErrorCode,
    readonly reason: string,
    readonly messageNumber: number,
    /** Offset in the message's bytes (0-based) where the problem was found. */
    readonly byteOffset: number,
  ) {
    // Bad input, not a bug: a stream may refuse thousands of messages and go on, and a stack
    // trace (5-9 µs each in V8, more than reading the message) would name only the framer's
    // own frames. The code, the message number and the offset say where; `stack` is the message.
    const limit = Error.stackTraceLimit;
    const quiet = setStackTraceLimit(0);
    super(`${reason} in message ${messageNumber} at byte ${byteOffset}`);
    if (quiet) setStackTraceLimit(limit);
    // (JavaScriptCore, in Bun, gives an error made under a limit of 0 no `stack` at all.)
    if (!('stack' in this)) this.stack = `${this.name}: ${this.message}`;
  }
}

/** Sets Error.stackTraceLimit, unless Error is frozen (hardened realms: SES, --frozen-intrinsics); whether it did. */
function setStackTraceLimit(n: number): boolean {
  try {
    Error.stackTraceLimit = n;
    return true;
  } catch {
    return false;
  }
}
