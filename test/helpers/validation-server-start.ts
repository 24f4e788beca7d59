// Starts and stops the kit run's CloudFormation validator (test/helpers/validation-server.js) from
// the kit project's globalSetup and globalTeardown (run-cache-setup.ts, run-cache-teardown.ts); the
// test workers find its socket in VALIDATION_SOCKET_ENV (test/helpers/kit-environment.ts).
import { spawn } from 'node:child_process';
import * as path from 'node:path';

export const VALIDATION_SOCKET_ENV = 'MINNOW_KIT_VALIDATION_SOCKET';
const VALIDATION_PID_ENV = 'MINNOW_KIT_VALIDATION_PID';

/** Starts the server on a socket in `dir` and resolves once it listens. */
export async function startValidationServer(dir: string): Promise<void> {
  const socketPath = path.join(dir, 'validation.sock');
  const server = spawn(process.execPath, [path.join(__dirname, 'validation-server.js'), socketPath], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    server.once('message', () => resolve());
    server.once('error', (err) => reject(new Error(`the validation server did not start: ${err.message}`)));
    server.once('exit', (code, signal) =>
      reject(new Error(`the validation server exited before listening (code ${code}, signal ${signal})`)),
    );
  });
  server.removeAllListeners('exit');
  // Neither the child nor its channel keeps jest's main process alive; teardown stops the child.
  server.unref();
  server.channel?.unref();
  process.env[VALIDATION_SOCKET_ENV] = socketPath;
  process.env[VALIDATION_PID_ENV] = String(server.pid);
}

export function stopValidationServer(): void {
  const pid = Number(process.env[VALIDATION_PID_ENV]);
  delete process.env[VALIDATION_SOCKET_ENV];
  delete process.env[VALIDATION_PID_ENV];
  if (!pid) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
