// The kafka-share-groups.sh steps share-groups-cli.test.ts runs against minnow, and that
// record-kafka.ts ran against Kafka 4.1.1 to get kafka-4.1.1-output.ts: a share consumer
// (kafka-console-share-consumer.sh --max-messages 3) takes 3 of 10 records and leaves; a member
// that only heartbeats (ShareGroupHeartbeat from this process, fixed member id) keeps the group
// Stable while the tool lists and describes it and is refused deleting it or its offsets; after it
// leaves, the tool describes, deletes the offsets and deletes the group. Every tool run is Kafka
// 4.1.1's own class, one JVM each (support/java-launch.ts).
import { KafkaConnection } from '../../../src/client/connection';
import { ApiKey } from '../../../src/protocol/api-keys';
import type {
  DescribeShareGroupOffsetsResponse,
  ShareGroupDescribeResponse,
  ShareGroupHeartbeatResponse,
} from '../../../src/protocol/messages';
import { runJava } from '../../support/java-launch';
import { kafkaJars, kafkaTool } from '../../support/kafka-cli';

export const TOPIC = 'jobs';
export const GROUP = 'workers';
export const RECORDS = 10;

const SHARE_GROUPS = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';
const SHARE_CONSOLE = 'org.apache.kafka.tools.consumer.ConsoleShareConsumer';
const CONFIGS = 'kafka.admin.ConfigCommand';
const TOPICS = 'org.apache.kafka.tools.TopicCommand';
const PRODUCER = 'org.apache.kafka.tools.ConsoleProducer';

/** One tool run: its arguments after --bootstrap-server, exit code and stdout. */
export interface Step {
  args: string[];
  code: number | null;
  out: string;
}

async function tool(main: string, args: string[], input?: string): Promise<Step> {
  const r = await runJava(kafkaTool(main, args, await kafkaJars()), { input, timeoutMs: 120_000 });
  if (r.code !== 0 && main !== SHARE_GROUPS)
    throw new Error(`${main} ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return { args, code: r.code, out: r.stdout };
}

async function connect(bootstrap: string): Promise<KafkaConnection> {
  const [host, port] = bootstrap.split(':');
  return KafkaConnection.connect(host!, Number(port), { connectTimeoutMs: 5000, requestTimeoutMs: 15_000 });
}

/** Polls (bounded) until `ok` holds for the group's offsets and description; throws after ~60 s. */
async function waitFor(
  bootstrap: string,
  what: string,
  ok: (offsets: bigint[], state: string, members: number) => boolean,
): Promise<void> {
  const c = await connect(bootstrap);
  try {
    let last = '';
    for (let i = 0; i < 120; i++) {
      const o: DescribeShareGroupOffsetsResponse = await c.send(ApiKey.DescribeShareGroupOffsets, 0, {
        groups: [{ groupId: GROUP, topics: [{ topicName: TOPIC, partitions: [0] }] }],
      });
      const d: ShareGroupDescribeResponse = await c.send(ApiKey.ShareGroupDescribe, 1, {
        groupIds: [GROUP],
        includeAuthorizedOperations: false,
      });
      const offsets = o.groups[0]!.topics.flatMap((t) => t.partitions.map((p) => p.startOffset));
      const g = d.groups[0]!;
      if (ok(offsets, g.groupState, g.members.length)) return;
      last = `offsets ${offsets.join(',')} state ${g.groupState} members ${g.members.length}`;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`share group ${GROUP} never reached "${what}" (last: ${last})`);
  } finally {
    c.close();
  }
}

/** The member that keeps the group Stable: its id (a Kafka Uuid string, KIP-1082) and client id. */
export const MEMBER_ID = 'c2hhcmUtY2xpLW1lbWJlcg';

/** Joins the share group and heartbeats every second until `leave()` (epoch -1). */
async function heartbeatingMember(bootstrap: string): Promise<{ leave: () => Promise<void> }> {
  const c = await connect(bootstrap);
  let epoch = 0;
  const beat = async (memberEpoch: number) => {
    const r: ShareGroupHeartbeatResponse = await c.send(ApiKey.ShareGroupHeartbeat, 1, {
      groupId: GROUP,
      memberId: MEMBER_ID,
      memberEpoch,
      rackId: null,
      subscribedTopicNames: memberEpoch === 0 ? [TOPIC] : null,
    });
    if (r.errorCode !== 0) throw new Error(`ShareGroupHeartbeat: error ${r.errorCode} ${r.errorMessage ?? ''}`);
    return r.memberEpoch;
  };
  epoch = await beat(0);
  let failure: unknown;
  const timer = setInterval(() => {
    beat(epoch).then(
      (e) => (epoch = e),
      (err: unknown) => (failure = err),
    );
  }, 1000);
  return {
    leave: async () => {
      clearInterval(timer);
      try {
        if (failure) throw failure;
        await beat(-1);
      } finally {
        c.close();
      }
    },
  };
}

/** The steps, in order. */
export async function runShareGroupsCli(bootstrap: string): Promise<Step[]> {
  const bs = ['--bootstrap-server', bootstrap];
  await tool(TOPICS, [...bs, '--create', '--topic', TOPIC, '--partitions', '1', '--replication-factor', '1']);
  await tool(CONFIGS, [
    ...bs,
    '--alter',
    '--entity-type',
    'groups',
    '--entity-name',
    GROUP,
    '--add-config',
    'share.auto.offset.reset=earliest',
  ]);
  const lines = Array.from({ length: RECORDS }, (_, i) => `job-${i}`).join('\n') + '\n';
  await tool(PRODUCER, [...bs, '--topic', TOPIC], lines);
  // Takes 3 records, accepts them and releases the rest as it closes: the start offset moves to 3.
  const consumed = await tool(SHARE_CONSOLE, [...bs, '--topic', TOPIC, '--group', GROUP, '--max-messages', '3']);
  if (consumed.out.trim() !== 'job-0\njob-1\njob-2')
    throw new Error(`the share consumer printed ${JSON.stringify(consumed.out)}, not job-0..2`);
  await waitFor(bootstrap, 'start offset 3, no members', (o, _s, m) => m === 0 && o[0] === 3n);

  const steps: Step[] = [];
  const run = async (...args: string[]) => steps.push(await tool(SHARE_GROUPS, [...bs, ...args]));
  const member = await heartbeatingMember(bootstrap);
  try {
    await run('--list');
    await run('--list', '--state');
    await run('--describe', '--group', GROUP);
    await run('--describe', '--group', GROUP, '--members');
    await run('--describe', '--group', GROUP, '--state');
    await run('--delete', '--group', GROUP);
    await run('--delete-offsets', '--group', GROUP, '--topic', TOPIC);
  } finally {
    await member.leave();
  }
  await run('--describe', '--group', GROUP, '--state');
  await run('--describe', '--group', GROUP);
  await run('--describe', '--group', GROUP, '--members');
  await run('--reset-offsets', '--group', GROUP, '--topic', TOPIC, '--to-earliest', '--execute');
  await run('--delete-offsets', '--group', GROUP, '--topic', TOPIC);
  await run('--describe', '--group', GROUP);
  await run('--delete', '--group', GROUP);
  await run('--list');
  await run('--describe', '--group', GROUP);
  return steps;
}

/** What may differ between two runs: the coordinator's address, the column widths it changes, trailing blanks. */
export function normalize(out: string, bootstrap: string): string {
  return out
    .split(bootstrap)
    .join('BROKER')
    .replace(/[ \t]+/g, ' ')
    .replace(/ +$/gm, '')
    .trim();
}
