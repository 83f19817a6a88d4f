/** Splits a byte stream into messages for a MessagePipe, and writes the framing around them. */
export interface Framer {
  push(chunk: Uint8Array): void;
  /** The input ended: finish or refuse what is left. */
  close(): void;
  /** Where the pipe's transformed message bytes go (views, valid only during the call). */
  output(bytes: Uint8Array): void;
}
