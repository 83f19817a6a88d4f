// The bearer check's timing: a wrong token that differs from a real one only in its last
// character against a wrong token of another length. Equal times (ratio about 1) mean the
// comparison says nothing of how close a guess came or how long the real tokens are.
import { bearerTokens } from '../../src/http/index.ts';
import type { BenchCase } from '../case.ts';

const REAL = ['team-token-0123456789abcdefghijklmnopqrstuvwxyz', 'ops-token-9876543210zyxwvutsrqponmlkjihgfedcba'];
const CALLS = 100;
const request = (token: string) => new Request('http://localhost/mcp', { method: 'POST', headers: { authorization: `Bearer ${token}` } });

export async function accessCases(): Promise<BenchCase[]> {
  const { authorize } = await bearerTokens(REAL);
  const near = request(`${REAL[0]!.slice(0, -1)}X`);
  const other = request('guess-0123456789abcd');
  const refused = async (r: Request) => {
    let n = 0;
    for (let i = 0; i < CALLS; i++) if ((await authorize(r)) instanceof Response) n++;
    return n;
  };
  return [
    {
      group: 'access',
      name: `bearer check: a wrong token one character from a real one (${CALLS} checks)`,
      bytes: 0,
      unit: 'µs/msg',
      messages: CALLS,
      ours: () => refused(near),
      baselineName: 'a wrong token of another length',
      baseline: () => refused(other),
    },
  ];
}
