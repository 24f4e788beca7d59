// bench:peers' t3.micro baseline scenario (issue 33, goal 1): on one fresh broker, the highest rate
// of 1 KiB records kafka-producer-perf-test can pace (the seed article's tool and settings, acks=all)
// while the broker's CPU stays within 20 % of one core over a 60 s window: the load a t3.micro
// carries on its earned credits alone. The search is capacity-search.ts; each step is one tool run
// on its own topic, CPU counted from 3 s in (the tool's JIT warm-up) to the end. Before the first
// step, an unmeasured run at the seed rate warms the broker: a cold JVM's first window at 7,000/s
// took 33.5 % of a core where its later ones took 15 % at 6,670/s (2026-12-06), and a first step that
// fails on a cold broker caps the whole search below it.
import { CAPACITY_DEFAULTS, CapacityStep, searchBaselineRate } from './capacity-search';
import { SEED_RATE } from './load-args';
import { peakBetween, RunningPeer } from './peer-brokers';
import { kafkaProducerPerf, STEADY_AFTER_MS } from './peer-scenarios';
import type { PeerId, PeerScenarioResult, ToolFigures } from './peers-report';
import { log } from './processes';

/** What the scenario found on one broker (kept in peers-last-run.json with every step). */
export interface CapacityFigures {
  /** Highest passing rate, records/s; 0 when none passed. */
  rate: number;
  budgetPercent: number;
  windowS: number;
  steps: CapacityStep[];
}

/** Warm-up, window and step budget: 30 s, then 60 s x at most 5 steps (about 6 minutes a broker); --quick: 3 s, 6 s x 2. */
export function capacityPlan(quick: boolean): { warmUpS: number; windowS: number; maxSteps: number } {
  return quick ? { warmUpS: 3, windowS: 6, maxSteps: 2 } : { warmUpS: 30, windowS: 60, maxSteps: 5 };
}

export async function capacityScenario(
  peer: RunningPeer,
  kafkaVersion: string,
  id: PeerId,
  quick: boolean,
): Promise<PeerScenarioResult> {
  const { warmUpS, windowS, maxSteps } = capacityPlan(quick);
  const from = Date.now();
  log(`  warm-up: ${warmUpS} s at ${SEED_RATE} records/s, not measured`);
  await kafkaProducerPerf(peer, kafkaVersion, 'cap-warm-up', SEED_RATE * warmUpS, 1024, SEED_RATE);
  const runs = new Map<number, ToolFigures>();
  const search = await searchBaselineRate(
    async (rate) => {
      // Enough records for the warm-up and then the whole window at this rate.
      const records = Math.round(rate * (windowS + STEADY_AFTER_MS / 1000));
      const t = await kafkaProducerPerf(peer, kafkaVersion, `cap-${rate}`, records, 1024, rate);
      runs.set(rate, t);
      return { brokerCpuPercent: t.brokerCpuPercent, achievedRate: t.recordsPerSec };
    },
    { ...CAPACITY_DEFAULTS, startRate: SEED_RATE, maxSteps },
    (s) =>
      log(
        `  ${s.rate} records/s: broker CPU ${s.brokerCpuPercent.toFixed(1)} % of a core, reached ${Math.round(s.achievedRate)}/s: ${s.pass ? 'within' : 'over'} the budget`,
      ),
  );
  const best = runs.get(search.rate);
  const peak = peakBetween(peer.sampler, from, Date.now());
  return {
    peer: id,
    runs: best ? [best] : [],
    startupMs: peer.startupMs,
    idleRssBytes: peer.idleRssBytes,
    peakRssBytes: peak?.rssBytes ?? NaN,
    peakAnonBytes: peak?.anonBytes ?? NaN,
    capacity: { rate: search.rate, budgetPercent: CAPACITY_DEFAULTS.budgetPercent, windowS, steps: search.steps },
  };
}
