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
import { bestOpsPerSecond, opsRow } from './ops-rate';

const RUN_MS = Number(process.env.BENCH_MS ?? 1000);

function bench(what: string, fn: (i: number) => unknown): void {
  console.log(opsRow(what, bestOpsPerSecond(fn, RUN_MS)));
}

const quotas = (entries: ClientQuotaEntry[]) => {
  const q = new BrokerQuotas({ samples: 11, windowMs: 1000 });
  q.apply(entries);
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
