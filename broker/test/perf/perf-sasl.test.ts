// `minnow perf` logs in as every other client command does (--user/--password-file, or
// MINNOW_USER/MINNOW_PASSWORD_FILE): a deployed broker's listeners are sasl+ by default, and a
// benchmark that cannot log in cannot measure it. Against a sasl+tcp:// listener only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perfCommand } from '../../src/cli/perf';
import { captureIo } from './capture-io';
import { addUser, SaslBroker, startSaslBroker } from '../integration/sasl-support';

describe('minnow perf on a sasl+tcp:// listener', () => {
  let b: SaslBroker;
  let bootstrap: string;
  const dir = mkdtempSync(join(tmpdir(), 'minnow-perf-sasl-'));
  const passwordFile = join(dir, 'password');

  beforeAll(async () => {
    // The real clock: the broker checks record timestamps against it.
    b = await startSaslBroker({}, { realClock: true });
    await addUser(b.broker.context.storage, 'bench', 'bench-secret');
    writeFileSync(passwordFile, 'bench-secret\n', { mode: 0o600 });
    bootstrap = `127.0.0.1:${b.saslPort}`;
  });
  afterAll(async () => {
    await b.broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('produce, consume and e2e log in with --user/--password-file and the environment', async () => {
    const auth = ['--user', 'bench', '--password-file', passwordFile];
    const json = join(dir, 'produce.json');
    const produce = ['produce', '-b', bootstrap, '--topic', 'sasl-perf', '--num-records', '500', '--record-size', '50'];
    expect(await perfCommand([...produce, ...auth, '--json', json], captureIo())).toBe(0);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({ records: 500, errors: 0 });
    expect(await b.broker.context.storage.offsets('sasl-perf', 0)).toEqual({ logStartOffset: 0, highWatermark: 500 });

    const cjson = join(dir, 'consume.json');
    const env = { ...process.env, MINNOW_USER: 'bench', MINNOW_PASSWORD_FILE: passwordFile };
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      expect(
        await perfCommand(['consume', '-b', bootstrap, '--topic', 'sasl-perf', '--json', cjson], captureIo()),
      ).toBe(0);
    } finally {
      process.env = saved;
    }
    expect(JSON.parse(readFileSync(cjson, 'utf8'))).toMatchObject({ records: 500, bytes: 25_000 });

    const ejson = join(dir, 'e2e.json');
    await perfCommand(
      ['e2e', '-b', bootstrap, '--topic', 'sasl-e2e', '--num-records', '20', ...auth, '--json', ejson],
      captureIo(),
    );
    expect(JSON.parse(readFileSync(ejson, 'utf8'))).toMatchObject({ records: 20 });
  });

  it("a wrong password fails with the broker's answer, not a hang", async () => {
    const wrong = join(dir, 'wrong');
    writeFileSync(wrong, 'nope\n', { mode: 0o600 });
    await expect(
      perfCommand(
        [
          'produce',
          '-b',
          bootstrap,
          '--topic',
          'x',
          '--num-records',
          '1',
          '--record-size',
          '1',
          '--user',
          'bench',
          '--password-file',
          wrong,
        ],
        captureIo(),
      ),
    ).rejects.toThrow(/SASL_AUTHENTICATION_FAILED|[Aa]uthentication/);
  });
});
