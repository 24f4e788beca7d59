// The broker's sources compiled once per jest run for the `minnow` processes the tests start
// (child brokers, CLI commands): bin/minnow.js runs the sources through tsx, which loads and
// checks its cache for ~380 modules at every start (about 1.5 s and 0.4 s of CPU more per process
// here, and the suite starts a few hundred). swc (the compiler jest itself uses for these tests)
// writes JavaScript in about a second. The folder sits under broker/ so that the compiled modules
// find the same node_modules; one per jest process, so concurrent runs never share one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { transformFile } from '@swc/core';

/** Set by the global setup: the folder holding the compiled src/ and its `minnow.js` entry. */
export const CHILD_BUILD_ENV = 'MINNOW_TEST_BUILD';

const BROKER_DIR = path.resolve(__dirname, '../..');
const SRC = path.join(BROKER_DIR, 'src');
export const BUILDS = path.join(BROKER_DIR, '.test-build');

/** Compiles src/ into `out` (same layout) and writes `out/minnow.js`, the command's entry. */
export async function buildForChildren(out: string): Promise<void> {
  const files = (fs.readdirSync(SRC, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.d.ts'),
  );
  await Promise.all(
    files.map(async (file) => {
      const { code } = await transformFile(path.join(SRC, file), {
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'commonjs' },
        swcrc: false,
      });
      const target = path.join(out, file.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, code);
    }),
  );
  fs.writeFileSync(path.join(out, 'minnow.js'), "require('./cli/main.js').main(process.argv.slice(2));\n");
}

/** Removes the builds of jest processes that are gone (one killed before its teardown). */
export function removeStaleBuilds(): void {
  for (const name of fs.existsSync(BUILDS) ? fs.readdirSync(BUILDS) : []) {
    const pid = Number(name);
    if (Number.isInteger(pid) && pid !== process.pid && !running(pid))
      fs.rmSync(path.join(BUILDS, name), { recursive: true, force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
