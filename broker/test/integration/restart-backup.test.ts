// SQLite durability: data, offsets and topic ids survive a restart; `minnow backup` taken while the
// broker serves produces a file another broker serves identically.
import * as path from 'node:path';
import { backupCommand } from '../../src/cli/backup';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kcat, startTestBroker, tempDir } from './helpers';

describeWithTools('kcat')('restart and backup (sqlite)', () => {
  const tmp = tempDir();
  const url = `sqlite://${path.join(tmp.dir, 'minnow.db')}`;
  let broker: RunningBroker | undefined;
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('serves the same data, topic ids and identity after a restart, and from a backup', async () => {
    broker = await startTestBroker(url);
    const lines = Array.from({ length: 300 }, (_, i) => `durable-${i}`);
    expect((await kcat(broker, ['-P', '-t', 'durable', '-z', 'lz4'], { input: lines.join('\n') + '\n' })).code).toBe(0);
    const before = JSON.parse((await kcat(broker, ['-L', '-J', '-t', 'durable'])).stdout);
    const identity = broker.context.identity;
    const topicId = (await broker.context.storage.topic('durable'))!.topicId;

    // Backup while the broker is up and another producer is writing.
    const dest = path.join(tmp.dir, 'backup.db');
    const writing = kcat(broker, ['-P', '-t', 'other'], {
      input: Array.from({ length: 1000 }, (_, i) => `o${i}`).join('\n') + '\n',
    });
    const logs: string[] = [];
    expect(await backupCommand(['--storage', url, dest], (l) => logs.push(l))).toBe(0);
    expect(logs.join('\n')).toMatch(/backup of .* written to/);
    await writing;
    await broker.stop();

    broker = await startTestBroker(url);
    expect(broker.context.identity).toEqual(identity);
    expect((await broker.context.storage.topic('durable'))!.topicId).toBe(topicId);
    const after = JSON.parse((await kcat(broker, ['-L', '-J', '-t', 'durable'])).stdout);
    expect(after.topics).toEqual(before.topics);
    const c = await kcat(broker, ['-C', '-t', 'durable', '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(c.stdout.trimEnd().split('\n')).toEqual(lines);
    expect((await kcat(broker, ['-P', '-t', 'durable'], { input: 'after-restart\n' })).code).toBe(0);
    expect((await broker.context.storage.offsets('durable', 0))!.highWatermark).toBe(301);
    await broker.stop();

    broker = await startTestBroker(`sqlite://${dest}`);
    expect(broker.context.identity).toEqual(identity);
    const fromBackup = await kcat(broker, ['-C', '-t', 'durable', '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(fromBackup.stdout.trimEnd().split('\n')).toEqual(lines);
  });
});
