// npm run bench:large-event [-- --quick]: only the proxy row of one large SSE event (400 MiB, its
// `event: message` line before its data, as the SDK writes it): the proxy process's peak RSS
// growth while it passes, against the bound bench/cases/http.ts sets. Exits 1 when it is over.
import { largeEventRow, withUpstream } from './cases/http.ts';

const quick = process.argv.includes('--quick');
const row = await withUpstream((up) => largeEventRow(up, quick));
process.stdout.write(`${row.name}: ${row.figure} (target ${row.target})\n`);
process.exitCode = row.met ? 0 : 1;
