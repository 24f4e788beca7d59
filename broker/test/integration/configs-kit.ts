// What the configs tests share (configs.test.ts: topic configs; configs-broker.test.ts: the broker's):
// resource types, config sources and operations as Kafka numbers them, and the three config
// requests over a test's connection.
import type { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';

export const TOPIC = 2;
export const BROKER = 4;
export const BROKER_LOGGER = 8;
export const Source = {
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
};
export const SET = 0;
export const DELETE = 1;
export const APPEND = 2;
export const SUBTRACT = 3;

export interface Entry {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: { name: string; value: string | null; source: number }[];
  configType: number;
  documentation: string | null;
}

/** DescribeConfigs, AlterConfigs and IncrementalAlterConfigs of one resource over `conn()`'s connection. */
export function configRequests(conn: () => KafkaConnection) {
  const describeConfigs = async (
    resourceType: number,
    resourceName: string,
    opts: { keys?: string[] | null; synonyms?: boolean; docs?: boolean } = {},
  ) => {
    const res = await conn().send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType, resourceName, configurationKeys: opts.keys ?? null }],
      includeSynonyms: opts.synonyms ?? false,
      includeDocumentation: opts.docs ?? false,
    });
    return res.results[0] as { errorCode: number; errorMessage: string | null; configs: Entry[] };
  };
  const outcome = (r: { errorCode: number; errorMessage: string | null }) => ({
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
  });
  const alter = async (
    resourceType: number,
    resourceName: string,
    configs: { name: string; value: string | null }[],
    validateOnly = false,
  ) =>
    outcome(
      (
        await conn().send(ApiKey.AlterConfigs, 2, {
          resources: [{ resourceType, resourceName, configs }],
          validateOnly,
        })
      ).responses[0],
    );
  const incremental = async (
    resourceType: number,
    resourceName: string,
    configs: { name: string; configOperation: number; value: string | null }[],
    validateOnly = false,
  ) =>
    outcome(
      (
        await conn().send(ApiKey.IncrementalAlterConfigs, 1, {
          resources: [{ resourceType, resourceName, configs }],
          validateOnly,
        })
      ).responses[0],
    );
  const values = (entries: Entry[]) => Object.fromEntries(entries.map((e) => [e.name, e.value]));

  return { describeConfigs, alter, incremental, values };
}
