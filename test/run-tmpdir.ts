// Every temporary file of a run (the tests', the servers and commands they start) goes under one
// directory of the run's own, removed when the run ends: the tests make scratch directories by
// the hundred (audit trails, what a fixture server saw) and removing each where it is made would
// be a line in each of thirty files. os.tmpdir() reads TMPDIR on each call; the workers and their
// children inherit it (vitest starts its workers after the global setup). Each project runs the
// global setup: the first makes the directory, the others find it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MADE = 'MCP_PAYLOAD_CODEC_TEST_TMPDIR';

export default function setup(): () => void {
  if (process.env[MADE]) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'mcp-payload-codec-tests-'));
  process.env.TMPDIR = process.env[MADE] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
