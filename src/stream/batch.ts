// The output of one push goes out as one chunk (up to a bound): a TransformStream's enqueue
// costs more than transforming a small message, and messages arrive many to a chunk.
import { concat } from './pipe.js';

/** Output is let through once this much has gathered, so a huge input chunk is not doubled. */
const MAX_BATCH = 1024 * 1024;

export class OutputBatch {
  private parts: Uint8Array[] = [];
  private size = 0;

  constructor(private readonly emit: (bytes: Uint8Array) => void) {}

  readonly add = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    this.parts.push(bytes);
    this.size += bytes.length;
    if (this.size >= MAX_BATCH) this.flush();
  };

  /** Emits what has gathered, as one chunk (a part emitted alone is passed as it is). */
  flush(): void {
    if (this.parts.length === 0) return;
    const out = concat(this.parts);
    this.parts = [];
    this.size = 0;
    this.emit(out);
  }
}
