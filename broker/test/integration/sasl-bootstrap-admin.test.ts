// The bootstrap admin (MINNOW_ADMIN_USER + MINNOW_ADMIN_PASSWORD_FILE) in `minnow serve`: created
// on first start with SCRAM-SHA-256 and -512, logged without its password, left alone on the next
// start (its password may have been changed since), and a missing or empty file stops start-up.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { run, tempDir } from './helpers';
import { MINNOW, startChildBroker } from './serve-child';

const login = (port: number, mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512', password: string) =>
  KafkaConnection.connect('127.0.0.1', port, { sasl: { mechanism, username: 'root', password } }).then(
    (c) => (c.close(), 'ok'),
    (e: Error) => e.message,
  );

describe('bootstrap admin user', () => {
  const tmp = tempDir('minnow-admin-');
  afterAll(() => tmp.cleanup());
  const db = path.join(tmp.dir, 'minnow.db');
  const pwFile = path.join(tmp.dir, 'admin-password');
  const env = { MINNOW_ADMIN_USER: 'root', MINNOW_ADMIN_PASSWORD_FILE: pwFile, STORAGE_ENGINE: `sqlite://${db}` };
  const args = ['--listener', 'sasl+tcp://127.0.0.1:0'];

  it('is created once from the file, and its password is never logged', async () => {
    fs.writeFileSync(pwFile, 'Very-Distinct-Pw-31337\n');
    const first = await startChildBroker(args, env);
    try {
      for (const m of ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const)
        expect(await login(first.port, m, 'Very-Distinct-Pw-31337')).toBe('ok');
      expect(first.stderr()).toMatch(
        /"msg":"created the bootstrap admin user from MINNOW_ADMIN_PASSWORD_FILE","user":"root"/,
      );
      expect(first.stderr()).not.toContain('Very-Distinct-Pw-31337');
    } finally {
      await first.stop();
    }

    fs.writeFileSync(pwFile, 'another-password\n');
    const second = await startChildBroker(args, env);
    try {
      expect(second.stderr()).not.toMatch(/created the bootstrap admin user/);
      expect(await login(second.port, 'SCRAM-SHA-512', 'Very-Distinct-Pw-31337')).toBe('ok');
      expect(await login(second.port, 'SCRAM-SHA-512', 'another-password')).toMatch(/Authentication failed/);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('a missing or empty password file stops start-up, naming the setting', async () => {
    fs.writeFileSync(path.join(tmp.dir, 'empty'), '\n');
    for (const file of [path.join(tmp.dir, 'absent'), path.join(tmp.dir, 'empty')]) {
      const r = await run('node', [MINNOW, 'serve', ...args], {
        env: { ...process.env, ...env, MINNOW_ADMIN_PASSWORD_FILE: file, STORAGE_ENGINE: 'memory://' },
        timeoutMs: 30_000,
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/MINNOW_ADMIN_PASSWORD_FILE=.*(cannot be read|is empty)/);
    }
  }, 60_000);
});
