/**
 * What client quotas add per request (server/quotas): the accounting a connection runs after each
 * request once any client quota is set, for a client no quota matches and for one that is
 * measured. Without any quota the connection skips it all on one boolean read. Best of three
 * rounds, as codec.bench.ts does. Run: `npx tsx broker/bench/quota-cost.bench.ts`.
 */
import { ApiKey } from '../src/protocol/api-keys';
import { BrokerQuotas } from '../src/server/quotas/broker-quotas';
import { recordRequest, RequestCost } from '../src/server/quotas/request-quotas';
import type { ClientQuotaEntry } from '../src/storage/storage';

const RUN_MS = Number(process.env.BENCH_MS ?? 1000);

function bench(what: string, fn: (i: number) => unknown): void {
  const deadline = (ms: number) => process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let i = 0;
  for (let end = deadline(RUN_MS / 5); process.hrtime.bigint() < end;) fn(i++);
  let best = 0;
  for (let round = 0; round < 3; round++) {
    let n = 0;
    const start = process.hrtime.bigint();
    for (let end = deadline(RUN_MS); process.hrtime.bigint() < end; n++) fn(i++);
    const s = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.max(best, n / s);
  }
  console.log(`| ${what} | ${Math.round(best).toLocaleString('en')} | ${(1e9 / best).toFixed(0)} ns |`);
}

const quotas = (entries: ClientQuotaEntry[]) => {
  const q = new BrokerQuotas({ samples: 11, windowMs: 1000 });
  q.reload({ clientQuotas: () => entries });
  return q;
};
const produce: RequestCost = {
  apiKey: ApiKey.Produce,
  user: 'ANONYMOUS',
  clientId: 'perf-producer',
  requestBytes: 16_000,
  responseBytes: 60,
  handlerMs: 0.05,
  noResponse: false,
};
// Generous bounds: measured, never throttled.
const big = 1e15;

console.log('| per produce request | ops/s | cost |');
console.log('|---|---|---|');
const none = quotas([]);
bench('no quota set (the connection reads clientQuotasOn only)', () => none.clientQuotasOn);
const other = quotas([{ entity: { 'client-id': 'someone-else' }, values: { producer_byte_rate: big } }]);
bench('quotas set, none for this client', (i) => recordRequest(other, produce, 1_700_000_000_000 + (i >> 10)));
const mine = quotas([
  { entity: { 'client-id': 'perf-producer' }, values: { producer_byte_rate: big, request_percentage: big } },
]);
bench('byte-rate and request-time quota on this client', (i) =>
  recordRequest(mine, produce, 1_700_000_000_000 + (i >> 10)),
);
