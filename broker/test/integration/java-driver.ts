// The Java client driver (broker/test/java): one Maven module per kafka-clients release, built once
// and reused while its sources are unchanged, run through support/java-launch.ts. Shared by the
// *-java test files; a lock folder keeps two test files (jest workers) from running Maven in the
// same tree at once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runJava } from '../support/java-launch';
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
  // The jar is written by the same `mvn package` (maven-jar-plugin may leave it when no class changed).
  if (!LINES.every((l) => fs.existsSync(driverJar(l.module)))) return false;
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
    // Maven leaves a classpath.txt whose content did not change as it was: stamp it built now, or
    // isBuilt() stays false after a source change and every test file runs Maven again (~6 CPU-s).
    const now = new Date();
    for (const l of LINES) fs.utimesSync(path.join(JAVA_DIR, l.module, 'target', 'classpath.txt'), now, now);
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/**
 * The class path of one module's driver: its jar (not target/classes: the class-data archive of
 * support/java-launch.ts takes jars only) and the dependencies Maven resolved.
 */
export function driverClasspath(module: (typeof LINES)[number]['module']): string {
  const deps = fs.readFileSync(path.join(JAVA_DIR, module, 'target', 'classpath.txt'), 'utf8').trim();
  return [driverJar(module), deps].join(path.delimiter);
}

/** The jar `mvn package` builds of one module (0.1.0: the version in broker/test/java/pom.xml). */
function driverJar(module: (typeof LINES)[number]['module']): string {
  return path.join(JAVA_DIR, module, 'target', `java-client-driver-${module}-0.1.0.jar`);
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
  const r = await runJava(
    {
      classpath: driverClasspath(line.module),
      main: 'minnow.javaclient.Driver',
      args: [`127.0.0.1:${port}`, prefix, scenario],
    },
    { timeoutMs },
  );
  const found = r.stdout.split('\n').find((l) => l.startsWith('{') && l.includes(`"scenario":"${scenario}"`));
  return { result: found ? JSON.parse(found) : undefined, code: r.code, stderr: r.stderr };
}
