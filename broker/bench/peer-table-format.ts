// How bench:peers' tables print a figure, and the shape of a table row (peers-report.ts,
// codec-report.ts). Pure: broker/test/perf/peers.test.ts.
import type { PeerScenarioResult } from './peers-report';

const MiB = 1024 * 1024;

/** a ÷ b as "0.42×" (two significant figures below 10), "–" when either is missing or b is 0. */
export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '–';
  const r = a / b;
  return `${r >= 10 ? Math.round(r).toLocaleString('en-US') : r >= 1 ? r.toFixed(2) : r.toPrecision(2)}×`;
}

export const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const ms = (n: number) =>
  !Number.isFinite(n) ? '–' : n >= 100 ? String(Math.round(n)) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
export const mb = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(0)} MB` : '–');
export const pctCore = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)} %` : '–');
export const seconds = (msv: number) =>
  Number.isFinite(msv) ? `${(msv / 1000).toFixed(msv < 10_000 ? 2 : 1)} s` : '–';
export const perByte = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
export const mbs = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

/** A row: its heading, the figure per broker (as number for ratios) and how it is printed. */
export interface Row {
  label: string;
  value: (r: PeerScenarioResult) => number[];
  show: (xs: number[]) => string;
  /** No minnow ÷ Kafka for this row (it is not a figure of the broker). */
  noRatio?: true;
}
