// Every property fails fast: a property run that hangs (an async predicate that never settles)
// fails after `timeout`, and a whole check, shrinking included, is interrupted after a time
// limit; a failure already found is still reported, and a check interrupted before its runs
// are done counts as failed (markInterruptAsFailure), so an interrupted run never passes
// quietly. Shrinking a bad generator can otherwise go on for many minutes. Every property
// draws from the run's seed (suite-seed.ts).
import fc from 'fast-check';
import { suiteSeed } from './suite-seed.ts';

const fuzzing = Number(process.env.FUZZ_RUNS) > 0;
const seed = suiteSeed();
fc.configureGlobal({
  ...fc.readConfigureGlobal(),
  ...(seed === undefined ? {} : { seed }),
  timeout: fuzzing ? 60_000 : 5_000,
  interruptAfterTimeLimit: fuzzing ? 840_000 : 20_000,
  markInterruptAsFailure: true,
});
