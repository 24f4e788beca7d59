// A jest worker's synchronous line to the run's CloudFormation validator (validation-server.js).
// aws-cdk-lib validates inside its synchronous synth, so a call must block: a worker thread holds
// the socket, and the caller waits on a shared flag (Atomics.wait) until the thread has the answer
// (receiveMessageOnPort reads it without the event loop). Loaded by test/helpers/kit-environment.ts.
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/** What validation-server.js answers: a template to validate, or the engine's rules or name. */
export interface ValidationRequest {
  op: 'validate' | 'listRules' | 'engineName';
  engineConfig?: unknown;
  template?: { content?: string; base64?: string; name?: string };
  config?: unknown;
}

/** How long one answer may take before the call fails (a first request builds the engine: ~5 s). */
const ANSWER_BOUND_MS = 300_000;

const THREAD = `
const { workerData } = require('node:worker_threads');
const net = require('node:net');
const { port, flag, socketPath } = workerData;
const deliver = (line) => {
  port.postMessage(line);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
const socket = net.connect(socketPath);
let pending = '';
socket.setEncoding('utf8');
socket.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\\n'); end >= 0; end = pending.indexOf('\\n')) {
    deliver(pending.slice(0, end));
    pending = pending.slice(end + 1);
  }
});
socket.on('error', (err) => deliver(JSON.stringify({ error: 'the validation server at ' + socketPath + ': ' + err.message })));
port.on('message', (line) => socket.write(line + '\\n'));
`;

interface Line {
  port: MessagePort;
  flag: Int32Array;
}
const lines = new Map<string, Line>();

function open(socketPath: string): Line {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const thread = new Worker(THREAD, {
    eval: true,
    workerData: { port: port2, flag, socketPath },
    transferList: [port2],
  });
  thread.unref(); // the jest worker ends when its work does
  return { port: port1, flag };
}

/** Sends one request to the server at `socketPath` and returns its value, or throws its error. */
export function askValidationServer(socketPath: string, request: ValidationRequest): unknown {
  let line = lines.get(socketPath);
  if (!line) {
    line = open(socketPath);
    lines.set(socketPath, line);
  }
  Atomics.store(line.flag, 0, 0);
  line.port.postMessage(JSON.stringify(request));
  if (Atomics.wait(line.flag, 0, 0, ANSWER_BOUND_MS) === 'timed-out') {
    lines.delete(socketPath);
    throw new Error(`the validation server at ${socketPath} did not answer ${request.op} within ${ANSWER_BOUND_MS} ms`);
  }
  const received = receiveMessageOnPort(line.port);
  if (!received) throw new Error(`the validation server at ${socketPath} signalled an answer that is not there`);
  const reply = JSON.parse(received.message as string) as { value: unknown } | { error: string };
  if ('error' in reply) throw new Error(reply.error);
  return reply.value;
}
