// What Kafka 4.1.1 prints (stdout, normalized by scenario.ts normalize()) for scenario.ts steps, recorded
// with `npx tsx broker/test/integration/share-groups-cli/record-kafka.ts` (a fresh oracle, share groups
// enabled with kafka-features upgrade --feature share.version=1) on 2026-12-06. Re-record after
// changing the steps.
export const KAFKA_4_1_1_OUTPUT: ReadonlyArray<{ args: string; code: number; out: string }> = [
  {
    args: '--list',
    code: 0,
    out: 'workers',
  },
  {
    args: '--list --state',
    code: 0,
    out: 'GROUP STATE\nworkers Stable',
  },
  {
    args: '--describe --group workers',
    code: 0,
    out: 'GROUP TOPIC PARTITION START-OFFSET\nworkers jobs 0 3',
  },
  {
    args: '--describe --group workers --members',
    code: 0,
    out: 'GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT\nworkers c2hhcmUtY2xpLW1lbWJlcg /127.0.0.1 minnow-cli 1 jobs:0',
  },
  {
    args: '--describe --group workers --state',
    code: 0,
    out: 'GROUP COORDINATOR (ID) STATE #MEMBERS\nworkers BROKER (1) Stable 1',
  },
  {
    args: '--delete --group workers',
    code: 0,
    out: "Error: Deletion of some share groups failed:\n* Group 'workers' could not be deleted due to: org.apache.kafka.common.errors.GroupNotEmptyException: Share group 'workers' is not EMPTY.",
  },
  {
    args: '--delete-offsets --group workers --topic jobs',
    code: 0,
    out: 'Error: The group is not empty.\n\nTOPIC STATUS\njobs Error: The group is not empty.',
  },
  {
    args: '--describe --group workers --state',
    code: 0,
    out: 'GROUP COORDINATOR (ID) STATE #MEMBERS\nworkers BROKER (1) Empty 0',
  },
  {
    args: '--describe --group workers',
    code: 0,
    out: 'GROUP TOPIC PARTITION START-OFFSET\nworkers jobs 0 3',
  },
  {
    args: '--describe --group workers --members',
    code: 0,
    out: '',
  },
  {
    args: '--reset-offsets --group workers --topic jobs --to-earliest --execute',
    code: 0,
    out: 'Error: Executing share group command failed due to --reset-offsets option is not yet implemented',
  },
  {
    args: '--delete-offsets --group workers --topic jobs',
    code: 0,
    out: 'TOPIC STATUS\njobs Successful',
  },
  {
    args: '--describe --group workers',
    code: 0,
    out: 'GROUP TOPIC PARTITION START-OFFSET',
  },
  {
    args: '--delete --group workers',
    code: 0,
    out: "Deletion of requested share groups ('workers') was successful.",
  },
  {
    args: '--list',
    code: 0,
    out: '',
  },
  {
    args: '--describe --group workers',
    code: 0,
    out: 'Error: Executing share group command failed due to org.apache.kafka.common.errors.GroupIdNotFoundException: Group workers not found.',
  },
];
