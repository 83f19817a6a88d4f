// A growable list of numbers in one typed array: no objects for the collector to trace.

/** Made at a list's first push: a typed array of more than 64 bytes costs microseconds to make. */
const NO_NUMBERS = new Float64Array(0);

export class NumList {
  a = NO_NUMBERS;
  length = 0;

  push(v: number): void {
    if (this.length === this.a.length) {
      const grown = new Float64Array(Math.max(16, this.a.length * 2));
      grown.set(this.a);
      this.a = grown;
    }
    this.a[this.length++] = v;
  }

  /** Empties it, giving back a large array. */
  clear(): void {
    this.length = 0;
    if (this.a.length > 1024) this.a = NO_NUMBERS;
  }
}
