// ApiVersions, Metadata (internal topics, bad names), ACL APIs (both with an authorizer), and the
// request versions Kafka 4 removed (KIP-896).
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeBody, rawFrame, type Scenario } from '../scenario';
import { ANY_ACL_FILTER } from '../../src/protocol/acl';

const DescribeAcls = 29;
const CreateAcls = 30;
const DeleteAcls = 31;

export const miscScenarios: Scenario[] = [
  {
    name: 'api-versions',
    about: 'ApiVersions v3 with and without client software, v0, v4 (feature flags)',
    async run(ctx) {
      await ctx.send('v3 with client software name', ApiKey.ApiVersions, 3, {
        clientSoftwareName: 'minnow-compat',
        clientSoftwareVersion: '1.0',
      });
      await ctx.send('v3 with empty client software name (invalid)', ApiKey.ApiVersions, 3, {
        clientSoftwareName: '',
        clientSoftwareVersion: '',
      });
      await ctx.send('v3 with client software name "bad name!" (invalid)', ApiKey.ApiVersions, 3, {
        clientSoftwareName: 'bad name!',
        clientSoftwareVersion: '1',
      });
      await ctx.send('v0', ApiKey.ApiVersions, 0, {});
      // v4 lists features with a minimum of 0 (transaction.version, which Java 4.x producers read).
      await ctx.send('v4', ApiKey.ApiVersions, 4, {
        clientSoftwareName: 'minnow-compat',
        clientSoftwareVersion: '1.0',
      });
    },
  },
  {
    name: 'metadata',
    about: 'Metadata v12 and v1: unknown and invalid topics, __consumer_offsets, empty list',
    async run(ctx) {
      await ctx.waitForCoordinator('md-g'); // makes Kafka create __consumer_offsets
      const md = (step: string, topics: { name: string }[] | null, v = 12) =>
        ctx.send(step, ApiKey.Metadata, v, {
          topics,
          allowAutoTopicCreation: false,
          includeTopicAuthorizedOperations: false,
        });
      await md('empty topic list', []);
      await md('unknown topic', [{ name: 'md-unknown' }]);
      await md('invalid topic name', [{ name: 'bad name!' }]);
      await md('__consumer_offsets', [{ name: '__consumer_offsets' }]);
      await md('v1 unknown topic', [{ name: 'md-unknown' }], 1);
      await ctx.send('auto-create allowed for an unknown topic', ApiKey.Metadata, 12, {
        topics: [{ name: 'md-auto' }],
        allowAutoTopicCreation: true,
        includeTopicAuthorizedOperations: false,
      });
      await ctx.send('describe cluster', ApiKey.DescribeCluster, 1, {
        includeClusterAuthorizedOperations: false,
        endpointType: 1,
      });
    },
  },
  {
    name: 'acls',
    about: 'ACL APIs (Kafka runs its StandardAuthorizer, open while no ACL names a resource, as minnow by default)',
    async run(ctx) {
      await ctx.send('describe all ACLs', DescribeAcls, 3, {
        ...ANY_ACL_FILTER,
      });
      await ctx.send('create one ACL', CreateAcls, 3, {
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
      });
      await ctx.send('delete ACLs', DeleteAcls, 3, {
        filters: [
          {
            resourceTypeFilter: 2,
            resourceNameFilter: 't',
            patternTypeFilter: 3,
            principalFilter: null,
            hostFilter: null,
            operation: 1,
            permissionType: 1,
          },
        ],
      });
    },
  },
  {
    name: 'removed-versions',
    about: 'Request versions Kafka 4 no longer serves (KIP-896): what each broker does with them',
    async run(ctx) {
      await ctx.send('Produce v2', ApiKey.Produce, 2, { acks: 1, timeoutMs: 1000, topicData: [] });
      await ctx.send('Fetch v3', ApiKey.Fetch, 3, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1024,
        topics: [],
      });
      await ctx.send('ListOffsets v0', ApiKey.ListOffsets, 0, { replicaId: -1, topics: [] });
      await ctx.send('OffsetCommit v1', ApiKey.OffsetCommit, 1, {
        groupId: 'rv-g',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [],
      });
      await ctx.send('OffsetFetch v0', ApiKey.OffsetFetch, 0, { groupId: 'rv-g', topics: [] });
      await ctx.send('CreateTopics v1', ApiKey.CreateTopics, 1, { topics: [], timeoutMs: 1000, validateOnly: false });
      await ctx.send('DeleteTopics v0', ApiKey.DeleteTopics, 0, { topicNames: [], timeoutMs: 1000 });
      await ctx.send('DescribeConfigs v0', ApiKey.DescribeConfigs, 0, { resources: [] });
      await ctx.send(
        'DeleteGroups v0 (KIP-896 planned its removal; Kafka 4.1 still serves it)',
        ApiKey.DeleteGroups,
        0,
        { groupsNames: ['rv-g'] },
      );
      await ctx.send('AlterConfigs v0 (still served)', ApiKey.AlterConfigs, 0, { resources: [], validateOnly: false });
      // v0 reads an empty list as "all topics", so name one this scenario made.
      await ctx.quiet(ApiKey.CreateTopics, 7, {
        topics: [{ name: 'rv-a', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      await ctx.waitForTopic('rv-a');
      await ctx.send('Metadata v0 (still served)', ApiKey.Metadata, 0, { topics: [{ name: 'rv-a' }] });
    },
  },
  {
    name: 'bad-input',
    about: 'Hand-made frames: versions nobody knows, unknown API key, truncated and padded bodies, absurd lengths',
    async run(ctx) {
      const apiVersionsV3 = encodeBody(ApiKey.ApiVersions, 3, {
        clientSoftwareName: 'minnow-compat',
        clientSoftwareVersion: '1.0',
      });
      // KIP-511: an ApiVersions version the broker does not know gets error 35 and the broker's ranges in a v0 body.
      await ctx.sendRaw('ApiVersions v99', rawFrame(ApiKey.ApiVersions, 99, apiVersionsV3, true), {
        apiKey: ApiKey.ApiVersions,
        apiVersion: 0,
        headerVersion: 0,
      });
      await ctx.sendRaw('ApiVersions v5', rawFrame(ApiKey.ApiVersions, 5, apiVersionsV3, true), {
        apiKey: ApiKey.ApiVersions,
        apiVersion: 0,
        headerVersion: 0,
      });
      await ctx.sendRaw('Metadata v99', rawFrame(ApiKey.Metadata, 99, Buffer.alloc(8), true), {
        apiKey: ApiKey.Metadata,
        apiVersion: 12,
        headerVersion: 1,
      });
      await ctx.sendRaw('unknown API key 999', rawFrame(999, 0, Buffer.alloc(0)), {
        apiKey: ApiKey.ApiVersions,
        apiVersion: 0,
        headerVersion: 0,
      });
      const metadata = encodeBody(ApiKey.Metadata, 12, {
        topics: [{ name: 'bi-x' }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const asMetadata = { apiKey: ApiKey.Metadata, apiVersion: 12, headerVersion: 1 } as const;
      await ctx.sendRaw(
        'Metadata v12 with its body cut short',
        rawFrame(ApiKey.Metadata, 12, metadata.subarray(0, metadata.length - 3), true),
        asMetadata,
      );
      await ctx.sendRaw(
        'Metadata v12 with 5 extra bytes after the body',
        rawFrame(ApiKey.Metadata, 12, Buffer.concat([metadata, Buffer.alloc(5, 7)]), true),
        asMetadata,
      );
      // Produce v9 (flexible): nullable transactional id, acks, timeout, then a compact array whose length is absurd.
      const produceHead = encodeBody(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 1000,
        topicData: [],
      });
      const absurd = Buffer.concat([
        produceHead.subarray(0, produceHead.length - 2),
        Buffer.from([0xff, 0xff, 0xff, 0xff, 0x07]),
        Buffer.from([0]),
      ]);
      await ctx.sendRaw('Produce v9 whose topic array claims 2^31 entries', rawFrame(ApiKey.Produce, 9, absurd, true), {
        apiKey: ApiKey.Produce,
        apiVersion: 9,
        headerVersion: 1,
      });
      await ctx.sendRaw('empty frame (size 0)', Buffer.alloc(4), {
        apiKey: ApiKey.ApiVersions,
        apiVersion: 0,
        headerVersion: 0,
      });
    },
  },
];
