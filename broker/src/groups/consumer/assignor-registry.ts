// Which server-side assignors this broker offers: `group.consumer.assignors` (assignor.ts).
import type { PartitionAssignor } from './assignor';
import { rangeAssignor } from './range-assignor';
import { uniformAssignor } from './uniform-assignor';

/** Kafka's group.consumer.assignors default: uniform first (the default), then range. */
export const BUILT_IN_ASSIGNORS: readonly PartitionAssignor[] = [uniformAssignor, rangeAssignor];

export const DEFAULT_CONSUMER_ASSIGNORS = BUILT_IN_ASSIGNORS.map((a) => a.name);

/**
 * The assignors named by `group.consumer.assignors` (Kafka also takes class names: the simple name
 * of Kafka's classes is accepted). An unknown name is a configuration error, said at startup.
 */
export function assignorsNamed(names: readonly string[]): PartitionAssignor[] {
  return names.map((raw) => {
    const name = raw.trim();
    const simple = name
      .replace(/^.*\./, '')
      .replace(/Assignor$/, '')
      .toLowerCase();
    const found = BUILT_IN_ASSIGNORS.find((a) => a.name === name || a.name === simple);
    if (!found)
      throw new Error(
        `group.consumer.assignors names "${name}", which minnow does not have: use ${DEFAULT_CONSUMER_ASSIGNORS.join(' or ')}`,
      );
    return found;
  });
}
