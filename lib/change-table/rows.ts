// The changes the table covers: each row is the base deploy plus one changed -c value (or a new
// broker release), synthesized and diffed against the base (change-table.ts).

export type StackKind = 'single' | 'cluster';

/** The base deploys: the README's first deploy, with the AMI pinned as "The AMI replacement risk" advises. */
export const BASE_CONTEXT: Readonly<Record<StackKind, Readonly<Record<string, string>>>> = {
  single: { allowedCidr: '203.0.113.0/24', availabilityZone: 'eu-west-2a', amiId: 'ami-0aaaaaaaaaaaaaaaa' },
  cluster: {
    allowedCidr: '203.0.113.0/24',
    storage: 'postgres',
    availabilityZones: 'eu-west-2a,eu-west-2b',
    amiId: 'ami-0aaaaaaaaaaaaaaaa',
  },
};

export interface ChangeRow {
  readonly stack: StackKind;
  /** The -c values that differ from the base (none: only the broker release is new). */
  readonly context: Readonly<Record<string, string>>;
  /**
   * new: another broker release (the asset's content, and so its hash, the release id, differs);
   * unshipped: a commit that changes only what the asset leaves out (tests, docs).
   */
  readonly release?: 'new' | 'unshipped';
  /** What the row stands for, when the -c values alone do not say it. */
  readonly what?: string;
}

export const ROWS: readonly ChangeRow[] = [
  { stack: 'single', context: { instanceType: 't3.small' }, what: 'same architecture' },
  {
    stack: 'single',
    context: { instanceType: 't4g.small', amiId: 'ami-0bbbbbbbbbbbbbbbb' },
    what: 'another architecture, with an AMI of it',
  },
  { stack: 'single', context: { amiId: 'ami-0cccccccccccccccc' }, what: 'a newer AMI' },
  { stack: 'single', context: {}, release: 'new', what: 'a new broker release (another commit)' },
  { stack: 'single', context: {}, release: 'unshipped', what: "a commit that changes only the broker's tests or docs" },
  { stack: 'single', context: { logLevel: 'debug' } },
  { stack: 'single', context: { cpuCredits: 'unlimited' } },
  { stack: 'single', context: { security: 'off' } },
  { stack: 'single', context: { alarmEmail: 'ops@example.com' } },
  { stack: 'single', context: { allowedCidr: '198.51.100.0/24' } },
  { stack: 'single', context: { dataVolumeGiB: '30' }, what: 'grow' },
  { stack: 'single', context: { snapshotRetentionDays: '14' } },
  { stack: 'single', context: { logRetentionDays: '90' } },
  { stack: 'cluster', context: { brokers: '3' } },
  { stack: 'cluster', context: { instanceType: 't3.small' }, what: 'same architecture' },
  { stack: 'cluster', context: {}, release: 'new', what: 'a new broker release (another commit)' },
  { stack: 'cluster', context: { dbInstanceType: 'db.t4g.small' } },
];
