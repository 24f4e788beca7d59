// How the tests start a JVM: the Java driver (broker/test/java), Kafka's own CLI tools and the
// group-crash members all go through spawnJava/runJava, so every short-lived test JVM starts the
// same cheap way. Such a JVM lives seconds, and left as `java` starts it, it spends most of its CPU
// loading classes and compiling hot code with C2, not running the scenario. Measured on the 2-core
// machine (2026-12-06, the driver's `produce` scenario, user+sys): 3.5 s plain, 2.25 s with a
// class-data archive, 1.4 s with the archive and C1 only; a kafka-topics --list 2.1 s -> 0.75 s.
//
// The class-data archive (AppCDS, JDK 17's dynamic archive: https://docs.oracle.com/en/java/javase/17/vm/class-data-sharing.html):
// the first run of a main class on a class path writes the classes it loaded to a file
// (-XX:ArchiveClassesAtExit) and later runs map that file instead of parsing and verifying the jars
// again (-XX:SharedArchiveFile). The file is named by a hash of the JDK, the flags, the main class and
// every class path jar's path, size and mtime, so a rebuilt jar or another JDK gets a new archive,
// never a stale one. One run at a time writes it (a lock folder); runs meanwhile start without one.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Flags of every test JVM:
 * - C1 only (-XX:TieredStopAtLevel=1): C2's compiler threads cost more CPU in a run of seconds
 *   than the faster code saves (driver runs: 2.25 -> 1.4 CPU-s). A long CPU-bound JVM (a Kafka broker,
 *   a benchmark) would want C2: none runs through here.
 * - No CDS log (-Xlog:cds*=off): the JVM prints its warnings on stdout, which the tests parse, and
 *   writing an archive warns about classes it skips ("Pre JDK 6 class not supported by CDS"), using
 *   an archive another JDK wrote says it is unusable; either way the run is the same, only slower.
 * Measured and left out, no CPU saved within the noise: -XX:+UseSerialGC (a driver run does ~7 young
 * collections), -XX:-UsePerfData, -Xss512k, a smaller heap.
 */
const TEST_JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-Xlog:cds*=off'];

/** Where the archives live (a few tens of MB each), shared by every checkout on the machine. */
function archiveDir(): string {
  return process.env.MINNOW_JAVA_CDS_DIR ?? path.join(os.homedir(), '.cache', 'minnow-java-cds');
}
/** A lock older than this was left by a killed run: the longest test JVM lives 4 minutes. */
const STALE_LOCK_MS = 600_000;
/** Archives no run used for this long are removed when a new one is written. */
const UNUSED_ARCHIVE_MS = 7 * 24 * 3600_000;

export interface JavaProgram {
  /** java's -cp: entries joined with path.delimiter; an entry may be `dir/*` (its jars). */
  classpath: string;
  main: string;
  args: string[];
  /** Flags this program needs before the main class (-D properties, a heap). */
  jvmOptions?: string[];
  /** The java binary. Default $KAFKA_ORACLE_JAVA or `java` on PATH. */
  java?: string;
}

function javaBinary(p: JavaProgram): string {
  return p.java ?? process.env.KAFKA_ORACLE_JAVA ?? 'java';
}

/** The java binary's real path and mtime, or undefined when it is not found (then no archive). */
function jdkIdentity(java: string): string | undefined {
  const dirs = java.includes(path.sep) ? [''] : (process.env.PATH ?? '').split(path.delimiter);
  for (const dir of dirs) {
    const file = path.resolve(dir, java);
    const real = fs.existsSync(file) ? fs.realpathSync(file) : undefined;
    if (real) return `${real}@${fs.statSync(real).mtimeMs}`;
  }
  return undefined;
}

/** Each jar of the class path with its size and mtime; undefined if an entry is a folder of classes (CDS takes jars only). */
function classpathIdentity(classpath: string): string[] | undefined {
  const jars: string[] = [];
  for (const entry of classpath.split(path.delimiter).filter(Boolean)) {
    const files = entry.endsWith(`${path.sep}*`)
      ? fs
          .readdirSync(entry.slice(0, -2))
          .filter((f) => f.endsWith('.jar'))
          .sort()
          .map((f) => path.join(entry.slice(0, -2), f))
      : [entry];
    for (const file of files) {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st) continue; // java skips a missing entry too
      if (st.isDirectory()) return undefined;
      jars.push(`${path.resolve(file)}:${st.size}:${st.mtimeMs}`);
    }
  }
  return jars;
}

/** The archive for this JDK, flags, main class and class path; undefined when none can be kept. */
function archiveFor(p: JavaProgram): string | undefined {
  const jdk = jdkIdentity(javaBinary(p));
  const jars = classpathIdentity(p.classpath);
  if (!jdk || !jars) return undefined;
  // Not the program's own jvmOptions: a -D property naming a temp file would make a new archive
  // every run, and the JVM itself refuses (silently, see TEST_JVM_FLAGS) an archive it cannot map.
  const key = JSON.stringify([jdk, TEST_JVM_FLAGS, p.main, jars]);
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 20);
  return path.join(archiveDir(), `${p.main}-${hash}.jsa`);
}

/** Takes the archive's write lock, or returns false when another run holds it. */
function tryLock(lock: string): boolean {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  try {
    fs.mkdirSync(lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const st = fs.statSync(lock, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/** Archives no run touched for a week (their jars were rebuilt or their checkout removed). */
function pruneUnusedArchives(dir: string): void {
  for (const f of fs.readdirSync(dir)) {
    const file = path.join(dir, f);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st?.isFile() && Date.now() - st.mtimeMs > UNUSED_ARCHIVE_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * Keeps the archive a run wrote, once the JVM exited by itself (a killed one may have left half a
 * file) and the archive maps (`-Xshare:on` refuses one that does not): a broken archive must never
 * reach a test run, where the JVM would crash on it (SIGBUS seen with a truncated file). The check
 * is a child process, not spawnSync: the jest worker runs in-process brokers that must not stall.
 */
async function keepWrittenArchive(p: JavaProgram, written: string, archive: string): Promise<void> {
  if (!fs.existsSync(written)) return;
  const args = [...TEST_JVM_FLAGS, `-XX:SharedArchiveFile=${written}`, '-Xshare:on', '-cp', p.classpath, '-version'];
  const status = await new Promise<number | null>((resolve) => {
    const check = spawn(javaBinary(p), args, { stdio: 'ignore', timeout: 60_000 });
    check.once('error', () => resolve(null));
    check.once('exit', resolve);
  });
  if (status !== 0) return;
  fs.renameSync(written, archive);
  pruneUnusedArchives(path.dirname(archive));
}

interface JavaCommand {
  args: string[];
  /** Called once the JVM ended (`code` null: killed, or never started); keeps an archive it wrote. */
  ended: (code: number | null) => Promise<void>;
}

const plain = (args: string[]): JavaCommand => ({ args, ended: async () => {} });

/** The java command line of `p`: with the archive, or writing it, or (the lock taken) without one. */
function javaCommand(p: JavaProgram): JavaCommand {
  const tail = ['-cp', p.classpath, p.main, ...p.args];
  const base = [...TEST_JVM_FLAGS, ...(p.jvmOptions ?? [])];
  let archive: string | undefined;
  let locked = false;
  try {
    archive = archiveFor(p);
    if (archive && fs.existsSync(archive)) {
      const now = new Date();
      fs.utimesSync(archive, now, now); // in use: not pruned
      return plain([...base, `-XX:SharedArchiveFile=${archive}`, ...tail]);
    }
    locked = archive !== undefined && tryLock(`${archive}.lock`);
  } catch {
    // The archive is a saving only: a folder that cannot be written means runs without one.
  }
  if (!archive || !locked) return plain([...base, ...tail]);
  const lock = `${archive}.lock`;
  const written = `${archive}.${process.pid}.tmp`;
  let done: Promise<void> | undefined;
  return {
    args: [...base, `-XX:ArchiveClassesAtExit=${written}`, ...tail],
    ended: (code) =>
      (done ??= (code === null ? Promise.resolve() : keepWrittenArchive(p, written, archive))
        .catch(() => {})
        .finally(() => {
          fs.rmSync(written, { force: true });
          fs.rmSync(lock, { recursive: true, force: true });
        })),
  };
}

/** Starts `p` with stdin, stdout and stderr piped; `archived` settles once the JVM ended and an archive it wrote was kept. */
function startJava(p: JavaProgram): { child: ChildProcess; archived: Promise<void> } {
  const { args, ended } = javaCommand(p);
  const child = spawn(javaBinary(p), args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const archived = new Promise<void>((resolve) => {
    child.once('exit', (code) => void ended(code).finally(resolve));
    child.once('error', () => void ended(null).finally(resolve));
  });
  return { child, archived };
}

/** Starts `p` with stdin, stdout and stderr piped. */
export function spawnJava(p: JavaProgram): ChildProcess {
  return startJava(p).child;
}

export interface JavaRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `p` to its end with `input` on stdin; SIGKILLs it after `timeoutMs`. */
export function runJava(p: JavaProgram, opts: { input?: string; timeoutMs: number }): Promise<JavaRun> {
  return new Promise((resolve, reject) => {
    const { child, archived } = startJava(p);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      void archived.then(() => resolve({ code, stdout, stderr }));
    });
    child.stdin!.on('error', () => {});
    child.stdin!.end(opts.input ?? '');
  });
}
