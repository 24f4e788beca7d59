// Fixtures shared by the bench:peers report tests (peers.test.ts, codec-scenario.test.ts): the three
// peer columns, one tool's figures, and a whole run's results around some scenarios.
import type { PeerInfo, PeerScenario, PeersResults, ToolFigures } from '../../bench/peers-report';

export const PEERS: PeerInfo[] = [
  { id: 'minnow', label: 'minnow' },
  { id: 'kafka-default', label: 'Kafka, 1G heap', heap: '1G' },
  { id: 'kafka-small', label: 'Kafka, 256m heap', heap: '256m' },
];

export const tool = (t: ToolFigures['tool'], rps: number, p99: number, cpu: number): ToolFigures => ({
  tool: t,
  records: 1000,
  recordsPerSec: rps,
  mbPerSec: rps / 1024,
  p50Ms: p99 / 4,
  p99Ms: p99,
  p999Ms: p99 * 2,
  brokerCpuPercent: cpu,
  toolCpuPercent: 90,
  missing: 0,
});

/** A whole run's results around `scenarios`, as peers.ts writes them. */
export const peersResults = (scenarios: PeerScenario[], kafkaSettings: string): PeersResults => ({
  startedAt: '2026-12-03T19:00:00.000Z',
  durationS: 600,
  quick: false,
  machine: { cpu: 'x', memory: '1 GiB', os: 'Linux', node: 'v20', loadBefore: '0', loadAfter: '0' },
  commit: 'abc1234',
  kafkaVersion: '4.1.1',
  java: 'openjdk version "17"',
  peers: PEERS,
  kafkaSettings,
  minnowSettings: 'acknowledged after the WAL commit',
  scenarios,
});
