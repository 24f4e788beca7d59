// The Java client driver (broker/test/java): one Maven module per kafka-clients release, built once
// and reused while its sources are unchanged. Shared by java-client.test.ts and the TLS test; a
// lock folder keeps two test files (jest workers) from running Maven in the same tree at once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from './helpers';

export const JAVA_DIR = path.join(__dirname, '..', 'java');
export const LINES = [
  { module: 'kafka-4', version: '4.4.0', prefix: 'j4' },
  { module: 'kafka-3', version: '3.9.1', prefix: 'j3' },
] as const;
/** A build lock older than this was left by a killed run. */
const STALE_LOCK_MS = 300_000;

function newestMtime(p: string): number {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...fs.readdirSync(p).map((e) => newestMtime(path.join(p, e))));
}

function isBuilt(): boolean {
  const inputs = ['pom.xml', 'src', ...LINES.map((l) => path.join(l.module, 'pom.xml'))].map((p) =>
    newestMtime(path.join(JAVA_DIR, p)),
  );
  const built = LINES.map((l) => path.join(JAVA_DIR, l.module, 'target', 'classpath.txt'));
  return built.every((f) => fs.existsSync(f) && fs.statSync(f).mtimeMs > Math.max(...inputs));
}

/** Takes the build lock, waiting (bounded) while another test file holds it. */
async function lock(dir: string): Promise<void> {
  for (let waited = 0; ; waited += 500) {
    try {
      fs.mkdirSync(dir);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - fs.statSync(dir, { throwIfNoEntry: false })!.mtimeMs;
      if (age > STALE_LOCK_MS) fs.rmSync(dir, { recursive: true, force: true });
      else if (waited > STALE_LOCK_MS) throw new Error(`${dir} held for ${waited} ms: remove it if no build runs`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Builds both driver modules unless each classpath.txt is newer than every source and pom. */
export async function buildDriver(): Promise<void> {
  if (isBuilt()) return;
  const lockDir = path.join(JAVA_DIR, '.build-lock');
  await lock(lockDir);
  try {
    if (isBuilt()) return; // built by the test file that held the lock
    const pom = path.join(JAVA_DIR, 'pom.xml');
    // Offline first: once .ci/run (or an earlier run) resolved everything, no network is needed.
    let r = await run('mvn', ['-q', '-B', '-o', '-f', pom, 'package'], { timeoutMs: 240_000 });
    if (r.code !== 0) r = await run('mvn', ['-q', '-B', '-f', pom, 'package'], { timeoutMs: 240_000 });
    if (r.code !== 0) throw new Error(`mvn package of ${JAVA_DIR} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** The class path of one module's driver (its classes and the dependencies Maven resolved). */
export function driverClasspath(module: (typeof LINES)[number]['module']): string {
  const target = path.join(JAVA_DIR, module, 'target');
  return [path.join(target, 'classes'), fs.readFileSync(path.join(target, 'classpath.txt'), 'utf8').trim()].join(
    path.delimiter,
  );
}

/** What one driver scenario reported: its JSON line (undefined if it printed none) and how the JVM ended. */
export interface DriverRun {
  result: Record<string, any> | undefined;
  code: number | null;
  stderr: string;
}

/** Runs the driver's `scenario` with `line`'s client against 127.0.0.1:`port`, its names prefixed `prefix`. */
export async function runDriverScenario(
  line: (typeof LINES)[number],
  port: number,
  prefix: string,
  scenario: string,
  timeoutMs: number,
): Promise<DriverRun> {
  const r = await run(
    'java',
    ['-cp', driverClasspath(line.module), 'minnow.javaclient.Driver', `127.0.0.1:${port}`, prefix, scenario],
    { timeoutMs },
  );
  const found = r.stdout.split('\n').find((l) => l.startsWith('{') && l.includes(`"scenario":"${scenario}"`));
  return { result: found ? JSON.parse(found) : undefined, code: r.code, stderr: r.stderr };
}
