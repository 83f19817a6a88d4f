// JSON read where a message may not be JSON at all (the encoder or the stream reports that).

/** `text`'s JSON value, or undefined when it is not JSON (no JSON text parses to undefined). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether a JSON value is an object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
