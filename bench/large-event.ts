// npm run bench:large-event [-- --quick]: only the proxy rows of one large SSE event (400 MiB):
// its `event: message` line before its data, as the SDK writes it; and on a GET stream of the
// MCP endpoint, a value held until what follows it (a log notification's params.data, an
// image's data before its type). The proxy process's peak RSS growth while each passes, against
// the bounds bench/cases/http.ts sets. Exits 1 when one is over.
import { heldEventRows, largeEventRow, withUpstream } from './cases/http.ts';

const quick = process.argv.includes('--quick');
const rows = await withUpstream(async (up) => [await largeEventRow(up, quick), ...(await heldEventRows(up, quick))]);
for (const row of rows) process.stdout.write(`${row.name}: ${row.figure} (target ${row.target})\n`);
process.exitCode = rows.every((r) => r.met) ? 0 : 1;
