// moto's server mode on 127.0.0.1, for the ops CLI's emulator tests: started from a cached venv
// (broker/test/integration/python-venv.ts, pinned in requirements.txt), one server per test file,
// killed in afterAll. Its state is in memory only.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { venvPython } from '../../../broker/test/integration/python-venv';
import { createClients, type OpsClients } from '../../../lib/ops/clients';

export const REQUIREMENTS = path.join(__dirname, 'requirements.txt');
/** moto's default account and the region the tests use. */
export const REGION = 'us-east-1';
const START_TIMEOUT_MS = 60_000;

export interface MotoServer {
  readonly endpoint: string;
  /** The ops CLI's clients, pointed at this server. */
  readonly clients: () => OpsClients;
  stop(): Promise<void>;
}

/** Whether moto answers its own API (GET /moto-api/ is its dashboard). */
async function answers(endpoint: string): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export async function startMotoServer(): Promise<MotoServer> {
  const python = await venvPython(REQUIREMENTS);
  // Port 0: the kernel picks a free one and werkzeug prints it ("Running on http://127.0.0.1:N"),
  // so no other process can take it between a choice and the bind. `-m moto.server`, not the venv's
  // moto_server script: the venv was built under another name and renamed, so its scripts' #!
  // lines name a python that no longer exists.
  const child: ChildProcess = spawn(python, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let endpoint: string | undefined;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    endpoint ??= /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
  });
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const stop = async () => {
    if (exited === undefined) child.kill('SIGTERM');
    await exit;
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (endpoint === undefined || !(await answers(endpoint))) {
    if (exited !== undefined || Date.now() >= deadline) {
      await stop();
      throw new Error(
        `moto_server (${python} -m moto.server) did not answer within ${START_TIMEOUT_MS / 1000}s ` +
          `(${exited !== undefined ? `it exited ${exited}` : `still starting, at ${endpoint ?? 'no address yet'}`}); ` +
          `its stderr:\n${stderr}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const url = endpoint;
  return { endpoint: url, clients: () => createClients(REGION, { endpoint: url }), stop };
}

/**
 * Fake credentials for the SDK's default chain (moto accepts any); set once per test file (jest
 * gives each test file its own process.env).
 */
export function useFakeCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = 'testing';
  process.env.AWS_SECRET_ACCESS_KEY = 'testing';
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}
