/**
 * The authorizer's cost per check on the hot path (a Produce or Fetch asks once per topic per
 * request): no ACLs at all, a cached decision among 1,000 ACLs, and an uncached decision (a new
 * resource name each time, so the index lookup and the rules run). Prints ns per check.
 * Run: `npx tsx broker/bench/authorizer.bench.ts`.
 */
import type { AclBinding } from '../src/protocol/acl';
import { Authorizer } from '../src/server/authorizer';
import { newSession, PLAINTEXT_LISTENER } from '../src/server/session';
import { MemoryStorage } from '../src/storage/memory/memory-storage';
import { promised } from '../src/storage/sync-adapter';

const session = { ...newSession(PLAINTEXT_LISTENER, '10.0.0.5'), principal: { principalType: 'User', name: 'app-7' } };

function bindings(n: number): AclBinding[] {
  const out: AclBinding[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      resourceType: i % 3 === 0 ? 'GROUP' : 'TOPIC',
      resourceName: i % 10 === 0 ? `team-${i}-` : `topic-${i}`,
      patternType: i % 10 === 0 ? 'PREFIXED' : 'LITERAL',
      principal: `User:app-${i % 50}`,
      host: '*',
      operation: i % 2 === 0 ? 'READ' : 'WRITE',
      permissionType: i % 17 === 0 ? 'DENY' : 'ALLOW',
    });
  }
  return out;
}

function measure(name: string, iterations: number, fn: (i: number) => boolean): void {
  for (let i = 0; i < 10_000; i++) fn(i); // warm up
  let allowed = 0; // used, so the calls are not optimised away
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) if (fn(i)) allowed++;
  const ns = Number(process.hrtime.bigint() - start) / iterations;
  console.log(`| ${name} | ${ns.toFixed(0)} ns | ${allowed} of ${iterations} allowed |`);
}

async function main(): Promise<void> {
  const empty = await Authorizer.open(promised(new MemoryStorage()), {
    superUsers: [],
    allowEveryoneIfNoAclFound: true,
  });
  const storage = new MemoryStorage();
  storage.createAcls(bindings(1000));
  const full = await Authorizer.open(promised(storage), {
    superUsers: ['User:admin'],
    allowEveryoneIfNoAclFound: false,
  });

  console.log('| check | per call | decisions |\n|---|---|---|');
  measure('no ACLs (ALLOW_EVERYONE)', 2_000_000, () => empty.authorize(session, 'WRITE', 'TOPIC', 'topic-7'));
  measure('1,000 ACLs, cached decision', 2_000_000, () => full.authorize(session, 'WRITE', 'TOPIC', 'topic-7'));
  measure('1,000 ACLs, uncached (new name each call)', 200_000, (i) =>
    full.authorize(session, 'WRITE', 'TOPIC', `team-${(i % 100) * 10}-x${i}`),
  );
}

void main();
