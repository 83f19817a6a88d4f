// Says which seed the properties draw from, once per run, so any run can be replayed.
import { suiteSeed } from './suite-seed.ts';

export default function setup(): void {
  const seed = suiteSeed();
  console.log(
    seed === undefined
      ? 'fast-check: a fresh seed per property (each failure prints its own)'
      : `fast-check seed: ${seed} (replay or vary with FC_SEED=n; npm run fuzz draws fresh seeds)`,
  );
}
