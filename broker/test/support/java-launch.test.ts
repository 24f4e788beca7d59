// support/java-launch.ts's class-data archive: a run killed while it would write one leaves neither
// an archive (a half-written one crashes the next JVM) nor its lock; the first run to its end writes
// it and prints no more than a plain run (the tests parse what JVMs print); the next run maps it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildDriver, driverClasspath } from '../integration/java-driver';
import { describeWithTools } from './external-tools';
import { runJava, type JavaProgram } from './java-launch';

describeWithTools('java', 'mvn')('the class-data archive of a test JVM', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-cds-test-'));
  const saved = process.env.MINNOW_JAVA_CDS_DIR;
  let driver: JavaProgram;
  beforeAll(async () => {
    process.env.MINNOW_JAVA_CDS_DIR = dir;
    await buildDriver();
    // No arguments: the driver prints its usage on stderr and exits 2, a JVM start and nothing more.
    driver = { classpath: driverClasspath('kafka-4'), main: 'minnow.javaclient.Driver', args: [] };
  }, 300_000);
  afterAll(() => {
    if (saved === undefined) delete process.env.MINNOW_JAVA_CDS_DIR;
    else process.env.MINNOW_JAVA_CDS_DIR = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps nothing from a killed run, writes the archive on a run to its end, and maps it after', async () => {
    // A client that never reaches a broker, killed: no archive, no lock, no temp file left.
    const killed = await runJava({ ...driver, args: ['127.0.0.1:1', 'cds', 'produce'] }, { timeoutMs: 1500 });
    expect({ code: killed.code, left: fs.readdirSync(dir) }).toEqual({ code: null, left: [] });

    const first = await runJava(driver, { timeoutMs: 60_000 });
    expect({ code: first.code, stdout: first.stdout, stderr: first.stderr.trim() }).toEqual({
      code: 2,
      stdout: '',
      stderr: 'usage: Driver BOOTSTRAP PREFIX SCENARIO...',
    });
    const archives = fs.readdirSync(dir);
    expect(archives).toEqual([expect.stringMatching(/^minnow\.javaclient\.Driver-[0-9a-f]{20}\.jsa$/)]);

    // The JVM's CDS log (off in every test JVM) says which archive it mapped.
    const next = await runJava({ ...driver, jvmOptions: ['-Xlog:cds=info'] }, { timeoutMs: 60_000 });
    expect(next.code).toBe(2);
    expect(next.stdout).toContain(`Opened archive ${path.join(dir, archives[0]!)}`);
  }, 120_000);
});
