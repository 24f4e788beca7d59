// Kafka's JSON message specs as the generator reads them: the field and message shapes, version
// ranges ("3+", "0-7", "none") and the names derived from spec names.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The spec folder in the repository: Kafka's message JSON files (README, LICENSE and NOTICE beside it). */
export const REPO_SPEC_DIR = path.join(__dirname, '..', 'protocol-specs', 'messages');

export interface FieldSpec {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  default?: string | number | boolean;
  ignorable?: boolean;
  tag?: number | string;
  taggedVersions?: string;
  flexibleVersions?: string;
  fields?: FieldSpec[];
  about?: string;
}

export interface MessageSpec {
  apiKey?: number;
  type: 'request' | 'response' | 'header' | 'data';
  name: string;
  validVersions: string;
  flexibleVersions: string;
  deprecatedVersions?: string;
  latestVersionUnstable?: boolean;
  listeners?: string[];
  fields: FieldSpec[];
  commonStructs?: { name: string; versions?: string; fields: FieldSpec[] }[];
}

export interface Range {
  min: number;
  max: number; // Infinity for "N+", -1 for "none"
}

export function parseRange(s: string | undefined): Range {
  if (s === undefined || s === 'none' || s === '') return { min: 0, max: -1 };
  if (s.endsWith('+')) return { min: Number(s.slice(0, -1)), max: Infinity };
  const [a, b] = s.split('-');
  return { min: Number(a), max: Number(b ?? a) };
}

export const isEmpty = (r: Range) => r.max < r.min;
export const intersect = (a: Range, b: Range): Range => ({ min: Math.max(a.min, b.min), max: Math.min(a.max, b.max) });

/** A boolean TS expression of `v` that is true exactly for the versions of `r` within `valid`. */
export function cond(r: Range, valid: Range): string {
  const i = intersect(r, valid);
  if (isEmpty(i)) return 'false';
  const lo = i.min > valid.min ? `v >= ${i.min}` : '';
  const hi = i.max < valid.max ? `v <= ${i.max}` : '';
  if (lo && hi) return i.min === i.max ? `v === ${i.min}` : `(${lo} && ${hi})`;
  return lo || hi || 'true';
}

export function loadSpec(file: string): MessageSpec {
  const text = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l))
    .join('\n');
  return JSON.parse(text) as MessageSpec;
}

export const camel = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
export const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
