// Reference options for the two wire formats, built from the library's own term list
// (which test/wire-format.test.ts pins against the design card, docs/DESIGN.md).
import { DEFAULT_TERMS } from '../src/index.ts';
import type { ReferenceOptions } from './reference.ts';

export const MOBILE_MCP: ReferenceOptions = { prefix: '__mcp_ref_', suffix: '__', upper: false, terms: DEFAULT_TERMS };
export const CUA_DRIVER: ReferenceOptions = { prefix: '__cuaf_', suffix: '__', upper: true, terms: DEFAULT_TERMS };

/** The two wire formats: the codec options that make each, and the reference's. */
export const WIRE_FORMATS = [
  { name: 'mobile-mcp', options: {}, ref: MOBILE_MCP },
  { name: 'cua-driver', options: { prefix: '__cuaf_', hexCase: 'upper' as const }, ref: CUA_DRIVER },
];
