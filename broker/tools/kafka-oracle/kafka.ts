// A real single-node Apache Kafka (KRaft, broker+controller in one JVM) started from jars that
// Maven resolves, for comparing minnow against Kafka (npm run compat) and benchmarking beside it.
// Needs `java` (17+) and `mvn` on PATH; the jars are copied once into a cache dir.
import { ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';

/** Kafka 4.1 runs on Java 17 (the default JDK here) and speaks every API version minnow's codec knows. */
export const DEFAULT_KAFKA_VERSION = '4.1.1';
const POM = path.join(__dirname, 'pom.xml');

export interface KafkaOracleOptions {
  /** JVM heap, e.g. '512m' or '128m' (sets -Xms and -Xmx alike). Default '512m'. */
  heap?: string;
  /** More JVM flags after the heap (e.g. kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS). Default: none. */
  jvmOptions?: string[];
  /** How often to poll for the first Metadata answer while starting. Default 500 ms. */
  pollMs?: number;
  kafkaVersion?: string;
  /** Where the jars are cached. Default $KAFKA_ORACLE_CACHE or ~/.cache/minnow-kafka-oracle. */
  cacheDir?: string;
  /** Extra server.properties lines (key -> value), applied after the defaults. */
  serverProperties?: Record<string, string>;
  /** Progress lines (resolving jars, formatting, starting). Default: none. */
  log?: (line: string) => void;
  /** How long to wait for the broker to answer ApiVersions. Default 120 s (a shared CPU is slow). */
  startTimeoutMs?: number;
  /** Keep the data dir and Kafka's log after stop (post-mortems). Default: $KAFKA_ORACLE_KEEP=1. */
  keepDataDir?: boolean;
  /** `java` to run. Default $KAFKA_ORACLE_JAVA or `java` on PATH. */
  java?: string;
}

export interface RunningKafka {
  host: string;
  port: number;
  /** Kafka's own log (log4j), useful when a scenario surprises. */
  logFile: string;
  dataDir: string;
  pid: number;
  clusterId: string;
  /** From spawning the JVM to its first Metadata answer naming a broker (to within pollMs). */
  startupMs: number;
  /** The java command line that started the broker (after `java`). */
  jvmArgs: string[];
  stop(): Promise<void>;
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; log?: (l: string) => void } = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (opts.log) for (const line of d.toString().split('\n')) if (line.trim()) opts.log(line.trimEnd());
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (err) => reject(new Error(`could not run ${cmd}: ${err.message}; is it installed and on PATH?`)));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Copies Kafka's runtime jars into the cache (once per version) and returns the classpath dir. */
export async function resolveKafkaJars(
  opts: Pick<KafkaOracleOptions, 'kafkaVersion' | 'cacheDir' | 'log'> = {},
): Promise<string> {
  const version = opts.kafkaVersion ?? DEFAULT_KAFKA_VERSION;
  const cache =
    opts.cacheDir ?? process.env.KAFKA_ORACLE_CACHE ?? path.join(os.homedir(), '.cache', 'minnow-kafka-oracle');
  const dir = path.join(cache, `kafka-${version}`);
  const marker = path.join(dir, '.complete');
  // The marker holds the pom's hash: a cache resolved from an older pom (one dependency fewer) is
  // resolved again instead of lacking a jar.
  const pomHash = createHash('sha256').update(fs.readFileSync(POM)).digest('hex').slice(0, 16);
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').startsWith(`pom ${pomHash}`)) return dir;
  const log = opts.log ?? (() => {});
  log(`resolving Apache Kafka ${version} jars with Maven into ${dir} (first run only; ~60 MB)`);
  fs.rmSync(dir, { recursive: true, force: true });
  // Maven's own progress (downloads) is shown; -B keeps it to plain lines.
  const res = await run(
    'mvn',
    [
      '-B',
      '-f',
      POM,
      `-Dkafka.version=${version}`,
      'dependency:copy-dependencies',
      `-DoutputDirectory=${dir}`,
      '-DincludeScope=runtime',
    ],
    {
      log: (l) => {
        if (/Download(ed|ing)|ERROR|BUILD/.test(l)) log(`  mvn: ${l}`);
      },
    },
  );
  if (res.code !== 0)
    throw new Error(
      `mvn could not resolve Kafka ${version} (exit ${res.code}); last output:\n${res.out.split('\n').slice(-30).join('\n')}`,
    );
  if (!fs.readdirSync(dir).some((f) => f.startsWith(`kafka_2.13-${version}`)))
    throw new Error(`mvn finished but ${dir} has no kafka_2.13-${version}.jar`);
  fs.writeFileSync(marker, `pom ${pomHash} resolved ${new Date().toISOString()}\n`);
  log(`resolved ${fs.readdirSync(dir).length - 1} jars`);
  return dir;
}

/** A port that was free a moment ago on 127.0.0.1 (Kafka binds it itself, so there is a small race). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Kafka's reserved ids (Uuid.RESERVED): the all-zero id and the metadata topic's. */
const RESERVED_UUIDS = new Set(['AAAAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAAAAAAAAAAAQ']);

/**
 * Kafka's Uuid.randomUuid().toString(): 16 random bytes, URL-safe base64 without padding (what
 * `kafka-storage random-uuid` prints). Like Kafka, never a reserved id and never one that starts
 * with '-': `kafka-storage format --cluster-id -Vf...` reads it as a flag and exits (1 start in 64).
 */
export function randomClusterId(bytes: () => Buffer = () => randomBytes(16)): string {
  for (;;) {
    const id = bytes().toString('base64url');
    if (!RESERVED_UUIDS.has(id) && !id.startsWith('-')) return id;
  }
}

export function serverProperties(p: {
  dataDir: string;
  port: number;
  controllerPort: number;
  extra?: Record<string, string>;
}): string {
  const props: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    listeners: `PLAINTEXT://127.0.0.1:${p.port},CONTROLLER://127.0.0.1:${p.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${p.port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    // KIP-853 dynamic quorum: `format --standalone` makes this node the only voter.
    'controller.quorum.bootstrap.servers': `127.0.0.1:${p.controllerPort}`,
    'log.dirs': path.join(p.dataDir, 'logs'),
    'num.partitions': '1',
    // One node: internal topics cannot have three replicas.
    'offsets.topic.replication.factor': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    ...p.extra,
  };
  return (
    Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n'
  );
}

function log4jProperties(logFile: string): string {
  return [
    'status = warn',
    'appender.file.type = File',
    'appender.file.name = file',
    `appender.file.fileName = ${logFile}`,
    'appender.file.layout.type = PatternLayout',
    'appender.file.layout.pattern = [%d] %p %m (%c)%n',
    'rootLogger.level = INFO',
    'rootLogger.appenderRef.file.ref = file',
    '',
  ].join('\n');
}

function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * One probe: null when the broker at `port` answers Metadata naming a broker, else why not. A
 * broker answers ApiVersions before its metadata is loaded; Metadata naming a broker means it serves.
 */
export async function probeMetadata(port: number): Promise<string | null> {
  try {
    const c = await KafkaConnection.connect('127.0.0.1', port, { connectTimeoutMs: 2000, requestTimeoutMs: 5000 });
    try {
      const md = await c.send(3, 12, { topics: [], allowAutoTopicCreation: false });
      return md.brokers.length > 0 ? null : 'Metadata lists no brokers yet';
    } finally {
      c.close();
    }
  } catch (err) {
    return (err as Error).message;
  }
}

/** Polls Metadata until the broker serves (it refuses connections, then answers ApiVersions early). */
async function waitForApiVersions(
  port: number,
  child: ChildProcess,
  deadline: number,
  logFile: string,
  pollMs: number,
): Promise<void> {
  let lastError = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`Kafka exited with code ${child.exitCode} while starting; its log ends:\n${tail(logFile)}`);
    const why = await probeMetadata(port);
    if (why === null) return;
    lastError = why;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(
    `Kafka did not answer on 127.0.0.1:${port} in time (last: ${lastError}); its log ends:\n${tail(logFile)}`,
  );
}

/** Formats a fresh data dir, starts kafka.Kafka, waits until it serves; stop() ends it and removes the dir. */
export async function startKafka(opts: KafkaOracleOptions = {}): Promise<RunningKafka> {
  const log = opts.log ?? (() => {});
  const heap = opts.heap ?? '512m';
  const java = opts.java ?? process.env.KAFKA_ORACLE_JAVA ?? 'java';
  const jars = await resolveKafkaJars(opts);
  const classpath = path.join(jars, '*');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-oracle-'));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const clusterId = randomClusterId();
  const propsFile = path.join(dataDir, 'server.properties');
  const logFile = path.join(dataDir, 'kafka.log');
  const log4jFile = path.join(dataDir, 'log4j2.properties');
  fs.writeFileSync(propsFile, serverProperties({ dataDir, port, controllerPort, extra: opts.serverProperties }));
  fs.writeFileSync(log4jFile, log4jProperties(logFile));
  const jvmLog = [`-Dlog4j2.configurationFile=${log4jFile}`];

  log(`formatting KRaft storage (cluster id ${clusterId}) in ${dataDir}`);
  const fmt = await run(java, [
    ...jvmLog,
    '-Xmx256m',
    '-cp',
    classpath,
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId,
    '-c',
    propsFile,
    '--standalone',
  ]);
  if (fmt.code !== 0) throw new Error(`kafka-storage format failed (exit ${fmt.code}):\n${fmt.out}`);

  log(`starting Kafka (heap ${heap}) on 127.0.0.1:${port}`);
  const jvmArgs = [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    ...(opts.jvmOptions ?? []),
    ...jvmLog,
    '-cp',
    classpath,
    'kafka.Kafka',
    propsFile,
  ];
  const started = Date.now();
  const child = spawn(java, jvmArgs, {
    stdio: [
      'ignore',
      fs.openSync(path.join(dataDir, 'stdout.log'), 'w'),
      fs.openSync(path.join(dataDir, 'stderr.log'), 'w'),
    ],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM'); // kafka.Kafka shuts down cleanly on SIGTERM
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    if (!(opts.keepDataDir ?? process.env.KAFKA_ORACLE_KEEP === '1'))
      fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForApiVersions(port, child, Date.now() + (opts.startTimeoutMs ?? 120_000), logFile, opts.pollMs ?? 500);
  } catch (err) {
    await stop();
    throw err;
  }
  const startupMs = Date.now() - started;
  log(`Kafka is up after ${(startupMs / 1000).toFixed(1)} s (pid ${child.pid}, log ${logFile})`);
  return { host: '127.0.0.1', port, logFile, dataDir, pid: child.pid!, clusterId, startupMs, jvmArgs, stop };
}
