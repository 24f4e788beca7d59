// DescribeUserScramCredentials (key 50): v0. Each user's SCRAM mechanisms and iterations (never a
// key or salt), as Kafka's ScramImage.describe answers: no users = all users; a user named twice
// gets DUPLICATE_RESOURCE, an unknown one RESOURCE_NOT_FOUND.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
  DescribeUserScramCredentialsResponseCredentialInfo,
} from '../../protocol/messages';
import { SCRAM_MECHANISMS } from '../../sasl/scram-crypto';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';

export const describeUserScramCredentialsHandler: ApiHandler<
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse
> = {
  apiKey: ApiKey.DescribeUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const { broker } = ctx;
    // KafkaApis: DESCRIBE on the cluster, else the top level and every named user say so.
    if (!mayOnCluster(ctx, 'DESCRIBE')) {
      const errorMessage = 'Cluster authorization failed: describing SCRAM credentials needs DESCRIBE on the cluster.';
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage,
        results: (req.users ?? []).map(({ name }) => ({
          user: name,
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage,
          credentialInfos: [],
        })),
      };
    }
    const infos = new Map<string, DescribeUserScramCredentialsResponseCredentialInfo[]>();
    for (const c of await broker.storage.scramCredentials()) {
      const list = infos.get(c.user) ?? [];
      list.push({ mechanism: SCRAM_MECHANISMS[c.mechanism].type, iterations: c.iterations });
      infos.set(c.user, list);
    }
    const asked = req.users ?? [];
    // user -> named more than once
    const users = new Map<string, boolean>();
    if (asked.length === 0) for (const u of infos.keys()) users.set(u, false);
    else for (const { name } of asked) users.set(name, users.has(name));
    const results = [...users].map(([user, duplicate]) => {
      if (duplicate)
        return {
          user,
          errorCode: ErrorCode.DUPLICATE_RESOURCE,
          errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`,
          credentialInfos: [],
        };
      const credentialInfos = infos.get(user);
      if (!credentialInfos)
        return {
          user,
          errorCode: ErrorCode.RESOURCE_NOT_FOUND,
          errorMessage: `Attempt to describe a user credential that does not exist: ${user}`,
          credentialInfos: [],
        };
      return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos };
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
};
