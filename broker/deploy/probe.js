#!/usr/bin/env node
// Does a Kafka broker answer on HOST:PORT? `node probe.js HOST PORT TIMEOUT_S` sends ApiVersions v0
// (the one request every broker answers before authentication, even to a loopback ANONYMOUS on a
// secured box) until it gets a response with error code 0, and exits 0; after TIMEOUT_S it prints
// the last failure and exits 1. Plain Node.js, no dependencies: it runs from the release as is.
'use strict';
const net = require('node:net');

const [host = '127.0.0.1', portText = '9092', timeoutText = '120'] = process.argv.slice(2);
const port = Number(portText);
const timeoutMs = Number(timeoutText) * 1000;
const ATTEMPT_MS = 5000;
const RETRY_MS = 250;
const API_VERSIONS = 18;
const CORRELATION_ID = 0x6d6e6f77;

function request() {
  const clientId = Buffer.from('minnow-probe');
  const body = Buffer.alloc(10 + clientId.length);
  let at = body.writeInt16BE(API_VERSIONS, 0);
  at = body.writeInt16BE(0, at); // version 0: no tagged fields, every broker speaks it
  at = body.writeInt32BE(CORRELATION_ID, at);
  at = body.writeInt16BE(clientId.length, at);
  clientId.copy(body, at);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** One connection: resolves undefined when answered, else what went wrong. */
function attempt() {
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    const socket = net.connect({ host, port });
    const done = (problem) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(ATTEMPT_MS, () => done(`no response within ${ATTEMPT_MS} ms`));
    socket.once('error', (err) => done(err.message));
    socket.once('close', () => done('connection closed before a response'));
    socket.once('connect', () => socket.write(request()));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 4 || received.length < 4 + received.readInt32BE(0)) return;
      if (received.length < 10) return done(`a ${received.length}-byte response is too short`);
      const correlationId = received.readInt32BE(4);
      const errorCode = received.readInt16BE(8);
      if (correlationId !== CORRELATION_ID) return done(`response for correlation id ${correlationId}`);
      done(errorCode === 0 ? undefined : `ApiVersions error code ${errorCode}`);
    });
  });
}

async function main() {
  const deadline = Date.now() + timeoutMs;
  let problem = 'not tried';
  do {
    problem = await attempt();
    if (problem === undefined) return 0;
    await new Promise((r) => setTimeout(r, Math.min(RETRY_MS, Math.max(0, deadline - Date.now()))));
  } while (Date.now() < deadline);
  console.error(`probe: no ApiVersions answer from ${host}:${port} within ${timeoutText}s (last: ${problem})`);
  return 1;
}

main().then((code) => process.exit(code));
