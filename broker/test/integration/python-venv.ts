// A virtualenv with the packages of a requirements file, made once and kept under
// broker/test/.venv/<hash of the file> (gitignored), so repeat test runs cost nothing. It is built
// from Debian's /usr/bin/python3 (needs python3-venv, which .ci/run installs) with wheels only:
// the point is the librdkafka the wheel bundles, never one compiled here.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from './helpers';

const BASE_PYTHON = '/usr/bin/python3';
const VENV_ROOT = path.join(__dirname, '..', '.venv');
const READY_MARKER = '.minnow-ready';

/** Returns the venv's python, creating the venv and installing `requirementsFile` if needed. */
export async function venvPython(requirementsFile: string): Promise<string> {
  const requirements = fs.readFileSync(requirementsFile);
  const key = createHash('sha256').update(requirements).digest('hex').slice(0, 12);
  const dir = path.join(VENV_ROOT, `${path.basename(requirementsFile, '.txt')}-${key}`);
  const python = path.join(dir, 'bin', 'python');
  if (fs.existsSync(path.join(dir, READY_MARKER))) return python;

  // Built under a name of this process's own, then renamed into place: jest runs test files in
  // two worker processes, and two of them may want the same venv at once (one deleting the
  // other's half-made one failed CI). The rename is atomic; whoever comes second uses the first's.
  // A venv may move: its bin/python finds pyvenv.cfg next to where it is run from.
  const build = `${dir}.build-${process.pid}`;
  fs.rmSync(build, { recursive: true, force: true });
  fs.mkdirSync(VENV_ROOT, { recursive: true });
  const buildPython = path.join(build, 'bin', 'python');
  try {
    await step(BASE_PYTHON, ['-m', 'venv', build], 60_000, `is python3-venv installed? (apt-get install python3-venv)`);
    await step(
      buildPython,
      [
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--no-input',
        '--only-binary=:all:',
        '-r',
        requirementsFile,
      ],
      300_000,
      'PyPI must be reachable for the first run',
    );
    fs.writeFileSync(path.join(build, READY_MARKER), requirements);
    // A venv left without its marker by an older run (killed mid-install) is rebuilt.
    if (fs.existsSync(dir) && !fs.existsSync(path.join(dir, READY_MARKER)))
      fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(build, dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !fs.existsSync(path.join(dir, READY_MARKER))) throw err;
    }
  } finally {
    fs.rmSync(build, { recursive: true, force: true });
  }
  return python;
}

async function step(cmd: string, args: string[], timeoutMs: number, hint: string): Promise<void> {
  const r = await run(cmd, args, { timeoutMs });
  if (r.code !== 0) {
    throw new Error(
      `creating the test virtualenv: \`${cmd} ${args.join(' ')}\` exited ${r.code} (${hint}):\n${r.stderr.slice(-2000)}`,
    );
  }
}
