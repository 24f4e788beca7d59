// The share-group admin APIs (KIP-932: DescribeShareGroupOffsets, AlterShareGroupOffsets,
// DeleteShareGroupOffsets, DeleteGroups) through the Java Admin client 4.x: the driver's
// ShareAdminScenario (broker/test/java) reports what the client saw. kafka-share-groups.sh 4.1.1 has
// no --reset-offsets yet ("not yet implemented"), so AlterShareGroupOffsets is proven here.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`share-group admin APIs with the Java Admin client ${line.version}`, () => {
  let broker: RunningBroker;
  const tmp = tempDir();
  let result: Record<string, any> = {};
  let failure = '';

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'share-admin.db')}`);
    await buildDriver();
    const r = await runDriverScenario(line, broker.port, 'k932a', 'share-admin', 240_000);
    result = r.result ?? {};
    failure = `exit ${r.code}; ${result.error ?? ''}\nstderr:\n${r.stderr.slice(-3000)}`;
  }, 300_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('runs the scenario to the end', () => {
    expect({ ok: result.ok, failure: result.ok ? '' : failure }).toEqual({ ok: true, failure: '' });
  });

  it('lists the start offset after every record is accepted, and the altered one after alterShareGroupOffsets', () => {
    expect(result.firstRead).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
    expect({ afterRead: result.afterRead, afterAlter: result.afterAlter }).toEqual({ afterRead: 6, afterAlter: 2 });
  });

  it('delivers again from the altered start offset', () => {
    expect(result.readAfterAlter).toEqual(['r2', 'r3', 'r4', 'r5']);
  });

  it('refuses altering and deleting offsets while the group has a member, and an unknown group', () => {
    expect({
      alterWithMember: result.alterWithMember,
      deleteOffsetsWithMember: result.deleteOffsetsWithMember,
      alterUnknownGroup: result.alterUnknownGroup,
    }).toEqual({
      alterWithMember: 'GroupNotEmptyException',
      deleteOffsetsWithMember: 'GroupNotEmptyException',
      alterUnknownGroup: 'GroupIdNotFoundException',
    });
  });

  it('deletes the offsets, then the group', () => {
    expect(result.afterDeleteOffsets).toBeNull();
    expect(result.describeAfterDelete).toBe('GroupIdNotFoundException');
  });
});
