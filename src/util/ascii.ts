// ASCII text: prefixes, suffixes and headers are ASCII (or Latin-1), so they need no UTF-8.

/** Bytes of a string whose characters are all below U+0100 (headers, prefixes, suffixes). */
export const latin1Bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** ASCII letters to lower case; nothing else changes (no Unicode case mapping). */
export const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
