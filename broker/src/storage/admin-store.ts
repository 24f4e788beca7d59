// The cluster administration part of the Storage interface (storage.ts composes it): dynamic
// broker configs, client quotas, SCRAM users and ACLs, which Kafka keeps in its metadata log.
import type { AclBinding } from '../protocol/acl';
import type { ScramCredential, ScramMechanismName } from '../sasl/scram-crypto';

/**
 * A client quota entity (KIP-546): entity type ("user", "client-id", "ip") to its name, null for
 * the type's default entity (`--entity-default`). Storage keeps what it is given; the quota module
 * (server/quotas) validates entities and keys as Kafka does.
 */
export type ClientQuotaEntity = Readonly<Record<string, string | null>>;

export interface ClientQuotaEntry {
  entity: ClientQuotaEntity;
  /** Quota key (producer_byte_rate ...) to its value. Never empty: an entity with none is gone. */
  values: Record<string, number>;
}

/** One entity's change in an AlterClientQuotas: keys to set and keys to remove. */
export interface ClientQuotaChange {
  entity: ClientQuotaEntity;
  set: Record<string, number>;
  remove: readonly string[];
}

/** A user's SCRAM credential for one mechanism (salt, iterations, StoredKey, ServerKey; never a password). */
export interface UserScramCredential extends ScramCredential {
  user: string;
  mechanism: ScramMechanismName;
}

/** What DescribeUserScramCredentials and `minnow user list` show: no keys, no salt. */
export interface UserScramCredentialInfo {
  user: string;
  mechanism: ScramMechanismName;
  iterations: number;
}

/** Dynamic broker configs (KIP-226): `resource` is a node id, or '' for the cluster-wide default. */
export interface BrokerConfigStore {
  /** The configs set on `resource` (a copy; empty when none). */
  brokerConfigs(resource: string): Record<string, string>;
  /** Sets and removes dynamic broker configs of `resource`, in one transaction. */
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): void;
}

/** Client quotas (KIP-546: DescribeClientQuotas / AlterClientQuotas). */
export interface ClientQuotaStore {
  /** Every entity with at least one quota, in no particular order. */
  clientQuotas(): ClientQuotaEntry[];
  /** Applies all changes in one transaction (all or none). */
  alterClientQuotas(changes: readonly ClientQuotaChange[]): void;
}

/** SASL/SCRAM users (Kafka keeps them in its metadata log; here they live in the database). */
export interface ScramStore {
  /** The stored credential of `user` for `mechanism`, if any. */
  scramCredential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined;
  /** Every stored credential's user, mechanism and iterations, sorted by user then mechanism. */
  scramCredentials(): UserScramCredentialInfo[];
  /** Upserts and deletes credentials in one transaction (callers validate first, as Kafka's controller does). */
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void;
}

/** ACLs (Kafka's AclBinding, protocol/acl.ts). The authorizer caches them; all changes go through these calls. */
export interface AclStore {
  /** Every stored binding, in no particular order. */
  listAcls(): AclBinding[];
  /** Stores the bindings not stored yet, in one transaction (an existing one is no error, as in Kafka). */
  createAcls(bindings: readonly AclBinding[]): void;
  /** Deletes these exact bindings in one transaction; returns how many were stored. */
  deleteAcls(bindings: readonly AclBinding[]): number;
}
