// What offsets (group-offsets.ts) and ListGroups/DescribeGroups (group-admin.ts) read of the
// coordinator: its groups, its storage and logger. A view of its own so those modules need not
// import coordinator.ts, which imports them (the import graph stays a DAG).
import type { Logger } from '../logger';
import type { Storage } from '../storage/storage';
import type { KeyedSerial } from '../keyed-serial';
import type { Group } from './group';
import type { ConsumerGroupCoordinator } from './consumer/consumer-coordinator';

export interface GroupRegistry {
  readonly storage: Storage;
  readonly logger: Logger;
  readonly now: () => number;
  /** Offset writes of one group run one at a time (commit, OffsetDelete, DeleteGroups): keyed-serial.ts. */
  readonly offsetWrites: KeyedSerial<string>;
  /** True once the coordinator is closed: every request gets NOT_COORDINATOR. */
  readonly isClosed: boolean;
  /** The in-memory group, if any (groups known only by stored offsets are not in memory). */
  group(groupId: string): Group | undefined;
  /** In-memory groups, for ListGroups. */
  allGroups(): IterableIterator<Group>;
  /** The KIP-848 consumer groups (their own coordinator, groups/consumer/). */
  readonly consumer: ConsumerGroupCoordinator;
}
