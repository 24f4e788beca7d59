// Kafka's dynamic broker configs that mean nothing to minnow (thread pools, listeners' TLS/SASL
// settings, tiered storage ...): Kafka's tools and clients set them (kafka-configs --entity-type
// brokers --add-config log.cleaner.threads=2, librdkafka's test 0081 with
// sasl.kerberos.min.time.before.relogin) and Kafka accepts them, so minnow accepts, stores and
// describes them too (DYNAMIC_BROKER_CONFIG, Kafka's default as DEFAULT_CONFIG synonym), and says
// in the documentation field that they change nothing here. The list is Kafka's own
// (kafka-broker-config-list.ts, generated from a real broker).
import type { ConfigTypeId } from '../storage/config-def';
import { KAFKA_DYNAMIC_BROKER_CONFIGS } from './kafka-broker-config-list';

/** The fields of broker-configs.ts' BrokerConfigDef an inert config has (no import: no cycle). */
export interface InertBrokerConfigDef {
  type: ConfigTypeId;
  kafkaDefault: string | null;
  dynamic: true;
  validator: null;
  doc: string;
  inert: true;
  sensitive: boolean;
}

/** Why a config is inert, by the first matching name prefix. */
const REASONS: [RegExp, string][] = [
  [
    /^(ssl\.|sasl\.|listener|principal\.builder)/,
    'listeners, TLS and SASL are minnow start-up settings (MINNOW_LISTENERS, MINNOW_TLS_*, MINNOW_SASL_*)',
  ],
  [
    /^(num\.|background\.threads|log\.cleaner\.threads)/,
    'minnow runs on one event loop and has no thread pools to size',
  ],
  [/^(log\.cleaner\.io\.)/, 'the compactor works in bounded steps inside database transactions, not with I/O buffers'],
  [/^remote\./, 'minnow has no tiered storage'],
  [/^(max\.connection|metric\.reporters)/, 'minnow takes its connection limits and metrics listener at start-up'],
  [/^producer\.id\.expiration/, "producer states go when the log start passes their batches, as Kafka's also do"],
  [/^transaction\.partition\.verification/, 'minnow always verifies that a partition was added (KIP-890 part 1)'],
];

function reason(name: string): string {
  return REASONS.find(([re]) => re.test(name))?.[1] ?? 'it has no counterpart in a broker whose log is one database';
}

/** Kafka's dynamic broker configs minnow does not define itself, as inert definitions. */
export function inertBrokerConfigs(known: Readonly<Record<string, unknown>>): Record<string, InertBrokerConfigDef> {
  const out: Record<string, InertBrokerConfigDef> = {};
  for (const [name, k] of Object.entries(KAFKA_DYNAMIC_BROKER_CONFIGS)) {
    if (known[name]) continue;
    out[name] = {
      type: k.type as ConfigTypeId,
      kafkaDefault: k.kafkaDefault,
      dynamic: true,
      validator: null,
      doc: `${k.doc} In minnow it is stored and described only, and changes nothing: ${reason(name)}.`,
      inert: true,
      sensitive: k.sensitive,
    };
  }
  return out;
}
