// The share-group admin APIs (KIP-932: DescribeShareGroupOffsets, AlterShareGroupOffsets,
// DeleteShareGroupOffsets, DeleteGroups) through the Java Admin client 4.x: the driver's
// ShareAdminScenario (broker/test/java) reports what the client saw. kafka-share-groups.sh 4.1.1 has
// no --reset-offsets yet ("not yet implemented"), so AlterShareGroupOffsets is proven here.
import { describeWithTools } from '../support/external-tools';
import { LINES } from './java-driver';
import { scenarioOnFreshBroker } from './java-scenario-suite';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`share-group admin APIs with the Java Admin client ${line.version}`, () => {
  const suite = scenarioOnFreshBroker({ line, scenario: 'share-admin', prefix: 'k932a', db: 'share-admin.db' });

  it('lists the start offset after every record is accepted, and the altered one after alterShareGroupOffsets', () => {
    expect(suite.result.firstRead).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect({ afterRead: suite.result.afterRead, afterAlter: suite.result.afterAlter }).toEqual({
      afterRead: 6,
      afterAlter: 2,
    });
  });

  it('delivers again from the altered start offset', () => {
    expect(suite.result.readAfterAlter).toEqual(['r2', 'r3', 'r4', 'r5']);
  });

  it('refuses altering and deleting offsets while the group has a member, and an unknown group', () => {
    expect({
      alterWithMember: suite.result.alterWithMember,
      deleteOffsetsWithMember: suite.result.deleteOffsetsWithMember,
      alterUnknownGroup: suite.result.alterUnknownGroup,
    }).toEqual({
      alterWithMember: 'GroupNotEmptyException',
      deleteOffsetsWithMember: 'GroupNotEmptyException',
      alterUnknownGroup: 'GroupIdNotFoundException',
    });
  });

  it('deletes the offsets, then the group', () => {
    expect(suite.result.afterDeleteOffsets).toBeNull();
    expect(suite.result.describeAfterDelete).toBe('GroupIdNotFoundException');
  });
});
