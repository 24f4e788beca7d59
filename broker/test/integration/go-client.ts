// The sarama test client (broker/test/go) built once per content and kept under
// broker/test/.go-build/<modfile>-<hash> (gitignored), as python-venv.ts keeps its virtualenvs:
// `go build` reuses Go's build cache for the compile but links the binary again each time (1-1.5 s
// of CPU per client and test run).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from './helpers';

const GO_DIR = path.join(__dirname, '..', 'go');
const BUILD_ROOT = path.join(__dirname, '..', '.go-build');

/** The path of the client built with `modfile`, building it if this content was never built. */
export async function goClient(modfile: string, timeoutMs: number): Promise<string> {
  // Every file of the Go module (main.go, the go.mod/go.sum variants) and the toolchain name it.
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(GO_DIR).sort()) hash.update(name).update(fs.readFileSync(path.join(GO_DIR, name)));
  const version = await run('go', ['env', 'GOVERSION'], { timeoutMs: 30_000 });
  hash.update(modfile).update(version.stdout);
  const bin = path.join(BUILD_ROOT, `${modfile}-${hash.digest('hex').slice(0, 12)}`, 'sarama-client');
  if (fs.existsSync(bin)) return bin;

  // Built under a name of this process's own, then renamed into place: two jest workers may build
  // the same client at once, and a half-written binary must never be found by the other.
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  const building = `${bin}.build-${process.pid}`;
  // Go's build cache makes this a link only after the first run (which compiles sarama, and
  // downloads it from the module proxy if .ci/run has not).
  const built = await run(
    'go',
    ['build', '-C', GO_DIR, '-buildvcs=false', `-modfile=${modfile}`, '-o', building, '.'],
    {
      timeoutMs,
    },
  );
  if (built.code !== 0) {
    fs.rmSync(building, { force: true });
    throw new Error(`go build -modfile=${modfile} failed (exit ${built.code}): ${built.stderr}`);
  }
  fs.renameSync(building, bin);
  return bin;
}
