// The programs outside Node that some tests drive (real Kafka clients, linters, a JDK, Go, ...).
// On a machine with only Node and npm those tests are skipped, and skipped-tools-reporter.js
// prints one line at the end naming each missing tool and how to install it. With
// MINNOW_REQUIRE_TOOLS=1 (.ci/run sets it) a missing tool fails its test file instead, so CI never
// skips silently. Used by both jest projects (kit and broker).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface ExternalTool {
  /** How to get it on Debian (what .ci/run does). */
  install: string;
  /** Whether it is usable here; default: an executable of the tool's name on PATH. */
  probe?: () => boolean;
  /**
   * A property of the machine that no install gives (mount rights): still skipped, and named in
   * the summary line, under MINNOW_REQUIRE_TOOLS=1. The tests that need it have a fallback that
   * runs everywhere (disk full simulated with SQLite's max_page_count).
   */
  machine?: true;
}

/** Debian's python3: its Debian-packaged clients are what python-clients.test.ts drives. */
export const DEBIAN_PYTHON = '/usr/bin/python3';

const pythonImports = (modules: string) => () =>
  spawnSync(DEBIAN_PYTHON, ['-c', `import ${modules}`], { stdio: 'ignore' }).status === 0;

/**
 * Whether a tmpfs can be mounted here: tried for real on a new empty folder, then unmounted. Root
 * alone is not enough: a container without CAP_SYS_ADMIN (docker's default) refuses mounts.
 */
function canMountTmpfs(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-mount-probe-'));
  const mounted =
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore', timeout: 10_000 }).status ===
    0;
  if (mounted) spawnSync('umount', [dir], { stdio: 'ignore', timeout: 10_000 });
  try {
    fs.rmdirSync(dir);
  } catch {
    // still mounted (umount failed): leave the empty folder rather than fail the probe
  }
  return mounted;
}

/**
 * The folder holding PostgreSQL's initdb, pg_ctl and postgres: `pg_config --bindir`, else the
 * newest /usr/lib/postgresql/N/bin (Debian keeps them off PATH).
 */
export function postgresBinDir(): string | undefined {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => fs.existsSync(path.join(dir, b)));
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromConfig.status === 0 && has(fromConfig.stdout.trim())) return fromConfig.stdout.trim();
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)) : [];
  const dirs = versions.sort((a, b) => Number(b) - Number(a)).map((v) => path.join(base, v, 'bin'));
  return dirs.find(has);
}

/** Every tool a test may ask for; the name is what the summary line shows. */
export const EXTERNAL_TOOLS = {
  kcat: { install: 'apt-get install -y kcat' },
  shellcheck: { install: 'apt-get install -y shellcheck' },
  'systemd-analyze': { install: 'apt-get install -y systemd' },
  'python3-kafka': {
    install: 'apt-get install -y python3-kafka python3-confluent-kafka',
    probe: pythonImports('kafka, confluent_kafka'),
  },
  // kafka-python's zstd codec (compaction-clients.test.ts produces with it).
  'python3-zstandard': { install: 'apt-get install -y python3-zstandard', probe: pythonImports('zstandard') },
  // Debian's python3 without python3-venv has the venv module but not ensurepip, so `-m venv` fails.
  'python3-venv': { install: 'apt-get install -y python3-venv', probe: pythonImports('venv, ensurepip') },
  java: { install: 'apt-get install -y openjdk-17-jdk-headless' },
  mvn: { install: 'apt-get install -y maven' },
  go: { install: 'Go >= 1.26 from https://go.dev/dl, on PATH' },
  lz4: { install: 'apt-get install -y lz4' },
  zstd: { install: 'apt-get install -y zstd' },
  zip: { install: 'apt-get install -y zip' },
  unzip: { install: 'apt-get install -y unzip' },
  // Makes the test certificates of the TLS tests (test/support/tls-certs.ts).
  openssl: { install: 'apt-get install -y openssl' },
  // The postgres:// engine's tests (test/support/postgres-server.ts): a server of our own, or the
  // one MINNOW_TEST_PG_URL names.
  postgresql: {
    install: 'apt-get install -y postgresql',
    probe: () => !!process.env.MINNOW_TEST_PG_URL || postgresBinDir() !== undefined,
  },
  // Not a program: a small tmpfs is a disk that really fills up, or really is read-only.
  'tmpfs mount': {
    install: 'run as root on Linux where mount is allowed, not in an unprivileged container',
    probe: canMountTmpfs,
    machine: true,
  },
} satisfies Record<string, ExternalTool>;

export type ToolName = keyof typeof EXTERNAL_TOOLS;

/** Set to 1 to make a missing tool fail its tests instead of skipping them. */
export const REQUIRE_TOOLS_ENV = 'MINNOW_REQUIRE_TOOLS';
/** The folder skipped-tools-reporter.js gives the test workers for their skip records. */
export const SKIP_DIR_ENV = 'MINNOW_SKIPPED_TOOLS_DIR';

/** Whether an executable file `name` is in one of the PATH folders. */
export function onPath(name: string, pathVar = process.env.PATH ?? ''): boolean {
  return pathVar.split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return fs.statSync(path.join(dir, name)).isFile();
    } catch {
      return false;
    }
  });
}

/** Probe results by tool and PATH: a test file asks once, however many tests need the tool. */
const probed = new Map<string, boolean>();

/** Whether `name` is usable here. */
export function hasTool(name: ToolName): boolean {
  const key = `${name}\0${process.env.PATH ?? ''}`;
  let ok = probed.get(key);
  if (ok === undefined) {
    const tool: ExternalTool = EXTERNAL_TOOLS[name];
    ok = tool.probe ? tool.probe() : onPath(name);
    probed.set(key, ok);
  }
  return ok;
}

/** One skip record: written by a test worker, read by the reporter. */
export interface SkipRecord {
  tool: string;
  install: string;
  testPath: string;
}

/** The test file being loaded: jest sets it in expect's state before it requires the file. */
function currentTestPath(): string {
  const state = (globalThis as { expect?: { getState?: () => { testPath?: string } } }).expect?.getState?.();
  return state?.testPath ?? '(unknown test file)';
}

function recordSkip(record: SkipRecord): void {
  const dir = process.env[SKIP_DIR_ENV];
  if (!dir) {
    // Run without the reporter (another jest config): say it here, once per tool and file.
    console.warn(`skipped: ${path.basename(record.testPath)} needs ${record.tool} (${record.install})`);
    return;
  }
  // One line per record; appends of a short line from several workers do not interleave.
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, 'skips.jsonl'), `${JSON.stringify(record)}\n`);
}

/**
 * Whether the tests that need every tool in `names` should run. When one is missing: with
 * MINNOW_REQUIRE_TOOLS=1 throws (the test file fails, saying what to install); otherwise records
 * the skip for the summary line and returns false, for `(ok ? describe : describe.skip)`.
 */
export function requireTools(...names: ToolName[]): boolean {
  const missing = names.filter((n) => !hasTool(n));
  if (missing.length === 0) return true;
  const testPath = currentTestPath();
  const installable = missing.filter((n) => !(EXTERNAL_TOOLS[n] as ExternalTool).machine);
  if (process.env[REQUIRE_TOOLS_ENV] === '1' && installable.length > 0) {
    const hints = installable.map((n) => `${n} (${EXTERNAL_TOOLS[n].install})`);
    throw new Error(
      `${path.basename(testPath)} needs ${hints.join(', ')}, which ${installable.length === 1 ? 'is' : 'are'} not available here; ${REQUIRE_TOOLS_ENV}=1 makes that a failure instead of a skip`,
    );
  }
  for (const n of missing) recordSkip({ tool: n, install: EXTERNAL_TOOLS[n].install, testPath });
  return false;
}

/** `describe` when every tool is there, else `describe.skip` (see requireTools). */
export function describeWithTools(...names: ToolName[]): jest.Describe {
  return requireTools(...names) ? describe : describe.skip;
}

/** `it` when every tool is there, else `it.skip` (see requireTools). */
export function itWithTools(...names: ToolName[]): jest.It {
  return requireTools(...names) ? it : it.skip;
}
