// Splits a byte stream into lines for the CLI's guard. `keep` decides, from a line's first
// bytes, whether it is worth holding whole (tool lists are; screenshots are not).

const HEAD = 512;

export class LineSplitter {
  private parts: Uint8Array[] = [];
  private length = 0;
  private keeping = true;

  constructor(
    private readonly onLine: (line: Uint8Array) => void,
    private readonly keep: (head: Uint8Array) => boolean = () => true,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      if (end > start) this.add(chunk.subarray(start, end));
      if (nl < 0) return;
      if (this.keeping && this.length > 0) this.onLine(this.take());
      this.parts = [];
      this.length = 0;
      this.keeping = true;
      start = nl + 1;
    }
  }

  private add(piece: Uint8Array): void {
    if (!this.keeping) return;
    this.parts.push(piece.slice());
    this.length += piece.length;
    if (this.length >= HEAD && !this.keep(this.take())) {
      this.keeping = false;
      this.parts = [];
    }
  }

  private take(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    this.parts = [out];
    return out;
  }
}
