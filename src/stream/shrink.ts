// When a stream lets go of a buffer it grew for large messages (the carry, the output batch):
// growing it again costs page faults and copies (7% on mixed traffic with a screenshot in ten
// messages when it went at the first small one), so it stays while large messages come now and
// then, and goes after a long run of small ones.

/** Small uses in a row after which a grown buffer goes. */
const SHRINK_AFTER = 64;

export class ShrinkRule {
  private run = 0;

  /** `keep`: the size a buffer may keep for good. */
  constructor(private readonly keep: number) {}

  /** After a use of `used` bytes of a buffer of `capacity`: whether to let it go now. */
  letGo(capacity: number, used: number): boolean {
    if (capacity <= this.keep) return false;
    this.run = used <= this.keep ? this.run + 1 : 0;
    if (this.run < SHRINK_AFTER) return false;
    this.run = 0;
    return true;
  }
}
