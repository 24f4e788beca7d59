// response-nulls scenarios for the security APIs: ACLs, client quotas, SASL on a plaintext
// listener, SCRAM users.
import { ApiKey } from '../../../src/protocol/api-keys';
import * as m from '../../../src/protocol/messages';
import type { ScenarioTable } from './scenario';
import { ANY_ACL_FILTER } from '../../../src/protocol/acl';

export const SECURITY_SCENARIOS: ScenarioTable = {
  [ApiKey.DescribeAcls]: [
    {
      name: 'any',
      body: () => ({
        ...m.defaultDescribeAclsRequest(),
        ...ANY_ACL_FILTER,
      }),
    },
  ],
  [ApiKey.CreateAcls]: [
    {
      name: 'one',
      body: () => ({
        creations: [
          {
            resourceType: 2,
            resourceName: 't',
            resourcePatternType: 3,
            principal: 'User:alice',
            host: '*',
            operation: 3,
            permissionType: 3,
          },
        ],
      }),
    },
  ],
  [ApiKey.DeleteAcls]: [
    {
      name: 'one',
      body: () => ({
        filters: [
          {
            ...ANY_ACL_FILTER,
          },
        ],
      }),
    },
  ],
  [ApiKey.DescribeClientQuotas]: [
    { name: 'all', body: () => ({ components: [], strict: false }) },
    {
      name: 'default client',
      body: () => ({ components: [{ entityType: 'client-id', matchType: 1, match: null }], strict: true }),
    },
  ],
  [ApiKey.AlterClientQuotas]: [
    {
      name: 'validate only',
      body: () => ({
        entries: [
          {
            entity: [{ entityType: 'client-id', entityName: null }],
            ops: [{ key: 'producer_byte_rate', value: 1e6, remove: false }],
          },
          { entity: [], ops: [] },
        ],
        validateOnly: true,
      }),
    },
  ],
  // On this plaintext listener the SASL APIs answer ILLEGAL_SASL_STATE (sasl.test covers sasl+tcp://).
  [ApiKey.SaslHandshake]: [{ name: 'no sasl', body: () => ({ mechanism: 'PLAIN' }) }],
  [ApiKey.SaslAuthenticate]: [{ name: 'no sasl', body: () => ({ authBytes: Buffer.from('\0a\0b') }) }],
  [ApiKey.DescribeUserScramCredentials]: [
    { name: 'all', body: () => ({ users: null }) },
    { name: 'unknown and twice', body: () => ({ users: [{ name: 'nobody' }, { name: 'x' }, { name: 'x' }] }) },
  ],
  [ApiKey.AlterUserScramCredentials]: [
    {
      name: 'refused',
      body: () => ({
        deletions: [{ name: 'nobody', mechanism: 1 }],
        upsertions: [
          { name: 'u', mechanism: 1, iterations: 1, salt: Buffer.from('s'), saltedPassword: Buffer.alloc(32) },
        ],
      }),
    },
  ],
};
