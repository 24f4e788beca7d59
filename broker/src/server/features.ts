// The feature flags (KIP-584) ApiVersions reports: what this broker supports and the level the
// cluster runs at. Kafka's clients read them: a Java 4.x producer uses transaction version 2
// (KIP-890 part 2: no AddPartitionsToTxn, an epoch bump per transaction) only when the finalized
// `transaction.version` is 2 or more (TransactionManager.maybeUpdateTransactionV2Enabled), and
// `kafka-features describe` (Admin.describeFeatures) prints both lists.
//
// Only transaction.version is reported: the other features of a Kafka 4 cluster (metadata.version,
// kraft.version, group.version, ...) describe a KRaft quorum and protocols minnow does not run.
import type { ApiVersionsResponse } from '../protocol/messages';

export const TRANSACTION_VERSION_FEATURE = 'transaction.version';
/** TransactionVersion.TV_0 .. TV_2 (KIP-1022): 1 changes only Kafka's own log format, 2 is KIP-890 part 2. */
export const MAX_TRANSACTION_VERSION = 2;

export interface FeatureLevels {
  /** The finalized transaction.version (TRANSACTION_VERSION: 0, 1 or 2). */
  transactionVersion: number;
  /**
   * FinalizedFeaturesEpoch: Kafka's is the offset of the metadata record that set the levels; a
   * client re-reads the levels only when it grows, so a restart with another level must answer a
   * larger one. The broker's start time does.
   */
  epoch: number;
}

type FeatureFields = Pick<ApiVersionsResponse, 'supportedFeatures' | 'finalizedFeaturesEpoch' | 'finalizedFeatures'>;

/**
 * The three feature fields of an ApiVersions response (tagged, v3+). As Kafka: v3 omits supported
 * features whose minimum is 0 (KAFKA-17011: older clients fail on them), and a feature finalized
 * at level 0 is not listed (it is "not enabled").
 */
export function featureFields(levels: FeatureLevels, apiVersion: number): FeatureFields {
  if (apiVersion < 3) return {};
  const supported = [{ name: TRANSACTION_VERSION_FEATURE, minVersion: 0, maxVersion: MAX_TRANSACTION_VERSION }];
  const level = levels.transactionVersion;
  return {
    supportedFeatures: apiVersion >= 4 ? supported : supported.filter((f) => f.minVersion > 0),
    finalizedFeaturesEpoch: BigInt(levels.epoch),
    finalizedFeatures:
      level > 0 ? [{ name: TRANSACTION_VERSION_FEATURE, maxVersionLevel: level, minVersionLevel: level }] : [],
  };
}
