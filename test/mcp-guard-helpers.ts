// Shared by the guard tests: the default terms found in text the client got.
import { DEFAULT_TERMS } from '../src/index.ts';

/** Every spelling of every default term found in `text` (ASCII ones ignoring ASCII case). */
export function termsIn(text: string): string[] {
  const folded = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const ascii = [...DEFAULT_TERMS.ascii, ...DEFAULT_TERMS.pairs.flatMap(([a, b]) => ['', '-', '_', ' '].map((sep) => a + sep + b))];
  return [...ascii.filter((t) => folded.includes(t)), ...DEFAULT_TERMS.exact.filter((t) => text.includes(t))];
}
