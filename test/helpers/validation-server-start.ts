// Starts and stops the kit run's CloudFormation validator (test/helpers/validation-server.js) from
// the kit project's globalSetup and globalTeardown (run-cache-setup.ts, run-cache-teardown.ts); the
// test workers find its socket in VALIDATION_SOCKET_ENV (test/helpers/kit-environment.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const VALIDATION_SOCKET_ENV = 'MINNOW_KIT_VALIDATION_SOCKET';
const VALIDATION_PID_ENV = 'MINNOW_KIT_VALIDATION_PID';

/** The server, when teardown runs in the module instance setup ran in (jest's main process). */
let started: ChildProcess | undefined;

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
  started = server;
}

/**
 * Stops the server; resolves once it has exited, so that jest's process has reaped it and its CPU
 * counts in the run's (`time npm test`) as the engines of the workers did.
 */
export async function stopValidationServer(): Promise<void> {
  const pid = Number(process.env[VALIDATION_PID_ENV]);
  delete process.env[VALIDATION_SOCKET_ENV];
  delete process.env[VALIDATION_PID_ENV];
  const server = started;
  started = undefined;
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.ref(); // else nothing keeps jest's process alive until the exit is seen
    server.kill('SIGTERM');
    await exited;
    return;
  }
  if (!pid) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
