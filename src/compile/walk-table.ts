// The automaton as the core walks it (assembly/match.ts walkFrom, scalar) and short-match.ts
// reads it: each entry is where the next state's row starts, not the state's number, so a
// step is one shift, one add and one load (a number needed a multiply by the row width on the
// walk's chain of dependent loads). Accepting rows come last, so whether a state accepts is a
// compare of its entry, not another load.
//   entry e of a row: the next row starts at byte (e << shift) of the table; 0 is the dead row.
//   a state's class c is the u16 at byte (e << shift) + 2c.
//   e >= acceptFrom: a pattern ends in that state.
// (A leaf: core/descriptor.ts lays its tables out by it, and its CoreTables extend Dfa.)

/** The DFA of a term set as the compiler makes it (the core's CoreTables hold it): state 0 dead, 1 the start. */
export interface Dfa {
  /** u16 next state per [state * classCount + class]. */
  readonly transitions: Uint16Array;
  readonly classCount: number;
  /** 1 where a pattern ends, one per state. */
  readonly accepting: Uint8Array;
}

export interface WalkTable {
  /** u16 entries, rows of `classCount` (padded to 1 << shift bytes); row 0 is the dead state. */
  readonly rows: Uint16Array;
  readonly shift: number;
  /** The start state's entry. */
  readonly start: number;
  /** Entries from this one on are accepting states (0x10000: none). */
  readonly acceptFrom: number;
}

const made = new WeakMap<object, WalkTable>(); // (the descriptor and the short matcher ask for one automaton's)

/** The walk table of a DFA. */
export function walkTable(a: Dfa): WalkTable {
  let w = made.get(a);
  if (!w) {
    w = layOut(a);
    made.set(a, w);
  }
  return w;
}

function layOut(a: Dfa): WalkTable {
  const n = a.classCount;
  const states = a.accepting.length;
  // (u16 entries hold 65,536 rows at most, the compiler's limit, subsets.ts; past it no shift
  // fits them, every row being 1 << shift bytes at least: the search below would wrap its int32
  // and stop at a shift whose entries alias the dead row.)
  if (states > 0x10000) throw new RangeError(`walkTable: ${states} automaton states (at most 65536 fit 16-bit entries)`);
  // The dead state first, then the others that do not accept, then those that do.
  const order = [0];
  for (let s = 1; s < states; s++) if (!a.accepting[s]) order.push(s);
  const firstAccepting = order.length;
  for (let s = 1; s < states; s++) if (a.accepting[s]) order.push(s);
  // The least shift (>= 1: entries count u16 units at least) whose last row start fits 16 bits.
  let shift = 1;
  const rowBytes = () => align(2 * n, 1 << shift);
  while (((states - 1) * rowBytes()) >> shift > 0xffff) shift++;
  const width = rowBytes() >> 1; // u16 units a row
  const entry = new Uint32Array(states); // old state -> its row's entry
  order.forEach((s, k) => {
    entry[s] = (k * width * 2) >> shift;
  });
  const rows = new Uint16Array(states * width);
  order.forEach((s, k) => {
    for (let c = 0; c < n; c++) rows[k * width + c] = entry[a.transitions[s * n + c]!]!;
  });
  return {
    rows,
    shift,
    start: entry[1]!,
    acceptFrom: firstAccepting < states ? (firstAccepting * width * 2) >> shift : 0x10000,
  };
}

const align = (x: number, to: number) => Math.ceil(x / to) * to;
