// Prints the plain closing line CI reads, "N passed, N failed", from vitest's JSON report.
// A missing or unreadable report counts as one failure, so a run that tested nothing shows.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(process.argv[2] ?? 'test-results.json', 'utf8'));
  passed = report.numPassedTests;
  failed = report.numFailedTests + (report.numTotalTests === 0 ? 1 : 0);
  if (!report.success && failed === 0) failed = 1; // e.g. a suite that failed to load
} catch {
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
