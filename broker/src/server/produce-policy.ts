// The limits a produce's records are checked against (produce-validation.ts), read from the
// partition's topic configs: its overrides, else the broker-level defaults, else Kafka's.
import { isCompacted, topicConfig } from '../storage/topic-config';
import { INFLATE_ON_LOOP_MAX_BYTES } from './produce-inflation';

/** Java's Long.MAX_VALUE: the "no limit" default of the timestamp limits. */
const LONG_MAX = 9223372036854775807n;
/** What validation needs to know about the partition's topic and the request. */
export interface ProducePolicy {
  maxMessageBytes: number;
  produceVersion: number;
  /** message.timestamp.type=LogAppendTime: the broker stamps the time, producers' timestamps are not checked. */
  logAppendTime: boolean;
  /** With CreateTime, how far a record's timestamp may be before / after now (ms, KIP-937). */
  timestampBeforeMaxMs: bigint;
  timestampAfterMaxMs: bigint;
  /** cleanup.policy holds compact: every record needs a key (LogValidator.validateKey). */
  compacted: boolean;
  nowMs: number;
  maxDecompressedBytes?: number;
  /** Batches whose inflation limit is above this are left to inflate off the loop (`inflate`); unset: none. */
  inflateOnLoopMaxBytes?: number;
}

/**
 * Reads the policy from a topic's configs: its overrides, else the broker-level defaults (dynamic
 * broker configs, broker-configs.ts), else Kafka's defaults (topic-config.ts).
 */
export function producePolicy(
  topicOverrides: Record<string, string>,
  produceVersion: number,
  nowMs: number,
  brokerDefaults: Readonly<Record<string, string>> = {},
): ProducePolicy {
  // Every produce reads its topics' limits. Parsing them (a merge, regular expressions, BigInts,
  // megamorphic config lookups) showed as 4.4 µs per request in the seed load's on-CPU profile.
  // A topic without overrides under a broker without dynamic defaults (the usual case) has Kafka's
  // defaults, which never change: parsed once. (Storage hands out a copy of a topic's configs per
  // call, so there is no object to key a cache of other topics' limits on.)
  const parsed =
    isEmpty(topicOverrides) && isEmpty(brokerDefaults)
      ? (kafkaDefaults ??= parsePolicy({}, {}))
      : parsePolicy(topicOverrides, brokerDefaults);
  return {
    maxMessageBytes: parsed.maxMessageBytes,
    produceVersion,
    logAppendTime: parsed.logAppendTime,
    timestampBeforeMaxMs: parsed.timestampBeforeMaxMs,
    timestampAfterMaxMs: parsed.timestampAfterMaxMs,
    compacted: parsed.compacted,
    nowMs,
    inflateOnLoopMaxBytes: INFLATE_ON_LOOP_MAX_BYTES,
  };
}

type ParsedPolicy = Omit<ProducePolicy, 'produceVersion' | 'nowMs'>;
/** The limits of a topic without overrides under a broker without dynamic defaults. */
let kafkaDefaults: ParsedPolicy | undefined;

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

function parsePolicy(
  topicOverrides: Record<string, string>,
  brokerDefaults: Readonly<Record<string, string>>,
): ParsedPolicy {
  const configs = { ...brokerDefaults, ...topicOverrides };
  // A limit the topic does not set falls back to the deprecated message.timestamp.difference.max.ms
  // when that one is set (Kafka 3.6-3.9's LogConfig; 4.0 dropped the key), else to its default.
  // A key this build does not know reads as '': no limit rather than BigInt('') = 0n.
  const read = (key: string) => {
    const v = topicConfig(configs, key);
    return /^\d+$/.test(v) ? BigInt(v) : LONG_MAX;
  };
  const difference = 'message.timestamp.difference.max.ms';
  const limit = (key: string) => read(key in configs || !(difference in configs) ? key : difference);
  return {
    maxMessageBytes: Number(topicConfig(configs, 'max.message.bytes')),
    logAppendTime: topicConfig(configs, 'message.timestamp.type') === 'LogAppendTime',
    timestampBeforeMaxMs: limit('message.timestamp.before.max.ms'),
    timestampAfterMaxMs: limit('message.timestamp.after.max.ms'),
    compacted: isCompacted(configs),
  };
}
