// One broker per database file (storage/sqlite/db-lock.ts): a second broker, in another process
// or in the same one, is refused with a message naming the holder, while the first keeps
// serving; `minnow backup` still reads the file; a SIGKILLed holder leaves no lock behind.
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { run, startTestBroker, tempDir } from './helpers';
import { MINNOW, startChildBroker } from './serve-child';

async function topicNames(port: number): Promise<string[]> {
  const conn = await KafkaConnection.connect('127.0.0.1', port);
  try {
    const res = await conn.send(ApiKey.Metadata, 9, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    return (res.topics as { name: string }[]).map((t) => t.name);
  } finally {
    conn.close();
  }
}

describe('one broker per database file', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('refuses a second broker in the same process, naming it, and the first keeps serving', async () => {
    const url = `sqlite://${path.join(tmp.dir, 'same-process.db')}`;
    const first = await startTestBroker(url);
    try {
      await first.context.storage.createTopic('kept', 1, {});
      await expect(startTestBroker(url)).rejects.toThrow(
        new RegExp(
          `database .*same-process\\.db is in use by pid ${process.pid} \\(.*\\), another broker in this same process; stop it or use another STORAGE_ENGINE path`,
        ),
      );
      expect(await topicNames(first.port)).toEqual(['kept']);
    } finally {
      await first.stop();
    }
    const again = await startTestBroker(url); // the lock went with the stop
    expect((await again.context.storage.listTopics()).map((t) => t.name)).toEqual(['kept']);
    await again.stop();
  });

  it('refuses a second `minnow serve` (exit 1, names the pid); backup still works; after a SIGKILL a new one starts', async () => {
    const db = path.join(tmp.dir, 'two-processes.db');
    const first = await startChildBroker(['--storage', `sqlite://${db}`]);
    try {
      const conn = await KafkaConnection.connect('127.0.0.1', first.port);
      await conn.send(ApiKey.Metadata, 9, {
        topics: [{ name: 'seen' }],
        allowAutoTopicCreation: true,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      });
      conn.close();

      const second = await run(
        'node',
        [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${db}`],
        { timeoutMs: 20_000 },
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(
          `database .*two-processes\\.db is in use by pid ${first.pid} \\(.*minnow.* serve.*, started \\d{4}-.*\\); stop it or use another STORAGE_ENGINE path`,
        ),
      );
      expect(await topicNames(first.port)).toEqual(['seen']);

      const backup = await run(
        'node',
        [MINNOW, 'backup', path.join(tmp.dir, 'copy.db'), '--storage', `sqlite://${db}`],
        { timeoutMs: 20_000 },
      );
      expect(backup.stderr).toMatch(/written to/);
      expect(backup.code).toBe(0);
    } finally {
      await first.stop('SIGKILL');
    }
    const next = await startChildBroker(['--storage', `sqlite://${db}`]);
    expect(await topicNames(next.port)).toEqual(['seen']);
    expect(await next.stop('SIGTERM')).toBe(0);
  }, 60_000);
});
