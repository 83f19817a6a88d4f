// Tables of numbers a framer gathers per frame, event or line (offsets into a chunk), made small
// and grown by doubling: a stream that carries a few small messages, as most HTTP responses do,
// need not make the 40-48 KB a batch of FRAMES rows takes.

/** Rows a table starts with. */
const START_ROWS = 64;

export function rowTable(width: number): Float64Array {
  return new Float64Array(width * START_ROWS);
}

/** `table`, or a copy of it twice as long when its `length` numbers in use leave no room for `need` more. */
export function withRoom(table: Float64Array, length: number, need: number): Float64Array {
  if (length + need <= table.length) return table;
  let size = table.length * 2;
  while (size < length + need) size *= 2;
  const grown = new Float64Array(size);
  grown.set(table.subarray(0, length));
  return grown;
}
