// A scenario is a scripted request sequence run once against minnow and once against Kafka;
// every recorded step's outcome is compared afterwards. Helpers here build the odd inputs.
import * as net from 'node:net';
import { ApiKey } from '../src/protocol/api-keys';
import { KafkaConnection } from '../src/client/connection';
import { API_SPEC_BY_KEY } from '../src/protocol/messages/registry';
import { Reader } from '../src/protocol/reader';
import { Writer } from '../src/protocol/writer';
import { crc32c } from '../src/protocol/crc32c';
import { encodeRecordBatch, RecordBatchInput, CRC, ATTRIBUTES, RECORDS_COUNT } from '../src/protocol/record-batch';
import type { Outcome } from './compare';

export interface StepRecord {
  step: string;
  apiKey: number;
  apiVersion: number;
  outcome: Outcome;
}

export interface ScenarioContext {
  /** Which broker this run talks to; scenarios must not branch on it except to wait. */
  readonly target: 'minnow' | 'kafka';
  /** Sends a request and records its outcome under `step`; resolves with the body (undefined if none came). */
  send(step: string, apiKey: number, apiVersion: number, body: unknown): Promise<any>;
  /** Sends without recording (set-up and polling). Throws if no response came. */
  quiet(apiKey: number, apiVersion: number, body: unknown): Promise<any>;
  /**
   * Sends hand-made bytes on a fresh connection and records what came back: a response decoded as
   * `decodeAs` (API key, version and header version), or that the broker closed or stayed silent.
   */
  sendRaw(step: string, frame: Buffer, decodeAs: RawDecode): Promise<void>;
  /** Sends a request that gets no response (Produce acks=0); nothing is recorded. */
  fire(apiKey: number, apiVersion: number, body: unknown): Promise<void>;
  /** Waits until Metadata shows every partition of `topic` with a leader (Kafka creates topics asynchronously). */
  waitForTopic(topic: string): Promise<void>;
  /** Waits until FindCoordinator for `groupId` answers without error (Kafka loads __consumer_offsets first). */
  waitForCoordinator(groupId: string): Promise<void>;
}

export interface Scenario {
  name: string;
  about: string;
  run(ctx: ScenarioContext): Promise<void>;
}

export interface RawDecode {
  apiKey: number;
  apiVersion: number;
  /** Response header v1 has tagged fields after the correlation id. */
  headerVersion: 0 | 1;
}

/** A request frame: size, header v1/v2 (api key, version, correlation id 1, client id) and `body`. */
export function rawFrame(apiKey: number, apiVersion: number, body: Buffer, flexibleHeader = false): Buffer {
  const w = new Writer();
  w.int16(apiKey).int16(apiVersion).int32(1).nullableString('minnow-compat');
  if (flexibleHeader) w.uvarint(0);
  const header = Buffer.concat(w.toChunks());
  const size = Buffer.alloc(4);
  size.writeInt32BE(header.length + body.length);
  return Buffer.concat([size, header, body]);
}

/** Encodes a request body with the codec, for splicing into raw frames. */
export function encodeBody(apiKey: number, apiVersion: number, body: unknown): Buffer {
  const w = new Writer();
  API_SPEC_BY_KEY.get(apiKey)!.encodeRequest(w, apiVersion, body);
  return Buffer.concat(w.toChunks());
}

const RAW_TIMEOUT_MS = 5_000;

function rawExchange(host: string, port: number, frame: Buffer, decodeAs: RawDecode): Promise<Outcome> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    let data = Buffer.alloc(0);
    const done = (o: Outcome) => {
      clearTimeout(timer);
      s.destroy();
      resolve(o);
    };
    const timer = setTimeout(
      () => done({ kind: 'no-response', detail: `no answer within ${RAW_TIMEOUT_MS} ms` }),
      RAW_TIMEOUT_MS,
    );
    s.on('connect', () => s.write(frame));
    s.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      if (data.length < 4 || data.length < 4 + data.readInt32BE(0)) return;
      try {
        const r = new Reader(data.subarray(4, 4 + data.readInt32BE(0)));
        r.int32(); // correlation id
        if (decodeAs.headerVersion === 1) r.skipTaggedFields();
        done({ kind: 'response', body: API_SPEC_BY_KEY.get(decodeAs.apiKey)!.decodeResponse(r, decodeAs.apiVersion) });
      } catch (err) {
        done({ kind: 'no-response', detail: `undecodable answer: ${(err as Error).message}` });
      }
    });
    s.on('error', () => done({ kind: 'no-response', detail: 'connection to broker closed' }));
    s.on('close', () => done({ kind: 'no-response', detail: 'connection to broker closed' }));
  });
}

const POLL_MS = 250;
const WAIT_LIMIT_MS = 30_000;

/** Runs one scenario against one broker, reconnecting after a step that cost the connection. */
export async function runScenario(
  scenario: Scenario,
  target: 'minnow' | 'kafka',
  host: string,
  port: number,
): Promise<StepRecord[]> {
  const steps: StepRecord[] = [];
  let conn: KafkaConnection | undefined;
  const connection = async () =>
    (conn ??= await KafkaConnection.connect(host, port, { clientId: 'minnow-compat', requestTimeoutMs: 15_000 }));
  const raw = async (apiKey: number, apiVersion: number, body: unknown): Promise<Outcome> => {
    const c = await connection();
    try {
      return { kind: 'response', body: await c.send(apiKey, apiVersion, body) };
    } catch (err) {
      c.close();
      conn = undefined;
      return { kind: 'no-response', detail: (err as Error).message.replace(/127\.0\.0\.1:\d+/g, 'broker') };
    }
  };
  const until = async (what: string, probe: () => Promise<boolean>) => {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`${target}: ${what} did not happen within ${WAIT_LIMIT_MS} ms`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
  const ctx: ScenarioContext = {
    target,
    async send(step, apiKey, apiVersion, body) {
      const outcome = await raw(apiKey, apiVersion, body);
      steps.push({ step, apiKey, apiVersion, outcome });
      return outcome.kind === 'response' ? outcome.body : undefined;
    },
    async quiet(apiKey, apiVersion, body) {
      const o = await raw(apiKey, apiVersion, body);
      if (o.kind !== 'response')
        throw new Error(`${target}: set-up request (API ${apiKey} v${apiVersion}) got no response: ${o.detail}`);
      return o.body;
    },
    async sendRaw(step, frame, decodeAs) {
      steps.push({
        step,
        apiKey: decodeAs.apiKey,
        apiVersion: decodeAs.apiVersion,
        outcome: await rawExchange(host, port, frame, decodeAs),
      });
    },
    async fire(apiKey, apiVersion, body) {
      await (await connection()).send(apiKey, apiVersion, body, false);
    },
    waitForTopic: (topic) =>
      until(`topic ${topic} getting leaders`, async () => {
        const md = await ctx.quiet(ApiKey.Metadata, 9, { topics: [{ name: topic }], allowAutoTopicCreation: false });
        const t = md.topics[0];
        if (!(
          t &&
          t.errorCode === 0 &&
          t.partitions.length > 0 &&
          t.partitions.every((p: any) => p.errorCode === 0 && p.leaderId >= 0)
        ))
          return false;
        // Kafka's Metadata can name the leader a moment before its replica manager serves the
        // partition (NOT_LEADER_OR_FOLLOWER); a ListOffsets that succeeds everywhere means it does.
        const lo = await ctx.quiet(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [
            {
              name: topic,
              partitions: t.partitions.map((p: any) => ({
                partitionIndex: p.partitionIndex,
                currentLeaderEpoch: -1,
                timestamp: -1n,
              })),
            },
          ],
        });
        return lo.topics[0].partitions.every((p: any) => p.errorCode === 0);
      }),
    // FindCoordinator answers as soon as __consumer_offsets exists, but Kafka loads each partition's
    // group state afterwards and answers NOT_COORDINATOR (16) or COORDINATOR_LOAD_IN_PROGRESS (14)
    // until then; DescribeGroups on the group tells when it is really served.
    waitForCoordinator: (groupId) =>
      until(`a coordinator for group ${groupId}`, async () => {
        if ((await ctx.quiet(ApiKey.FindCoordinator, 3, { key: groupId, keyType: 0 })).errorCode !== 0) return false;
        const d = await ctx.quiet(ApiKey.DescribeGroups, 5, { groups: [groupId], includeAuthorizedOperations: false });
        return ![14, 15, 16].includes(d.groups[0].errorCode);
      }),
  };
  try {
    await scenario.run(ctx);
  } finally {
    conn?.close();
  }
  return steps;
}

// ---- inputs ----

export const text = (s: string) => Buffer.from(s, 'utf8');

/** A valid v2 batch of string values with fixed timestamps. */
export function batch(values: string[], extra: Partial<RecordBatchInput> = {}): Buffer {
  return encodeRecordBatch({
    records: values.map((v) => ({ value: text(v) })),
    baseTimestamp: 1_700_000_000_000n,
    ...extra,
  });
}

/** A batch whose CRC no longer matches its contents. */
export function corruptCrc(b: Buffer): Buffer {
  const out = Buffer.from(b);
  out.writeUInt32BE((out.readUInt32BE(CRC) ^ 0xdeadbeef) >>> 0, CRC);
  return out;
}

/** Rewrites the CRC after a deliberate edit, so only the broker's deeper checks can catch it. */
export function withValidCrc(b: Buffer): Buffer {
  b.writeUInt32BE(crc32c(b, ATTRIBUTES), CRC);
  return b;
}

/** Claims more records than the batch holds, with a CRC that matches the lie. */
export function wrongRecordCount(b: Buffer, count: number): Buffer {
  const out = Buffer.from(b);
  out.writeInt32BE(count, RECORDS_COUNT);
  return withValidCrc(out);
}

/** Truncates the last record's bytes and fixes up batchLength and CRC. */
export function truncatedRecords(b: Buffer, cut: number): Buffer {
  const out = Buffer.from(b.subarray(0, b.length - cut));
  out.writeInt32BE(out.length - 12, 8);
  return withValidCrc(out);
}
