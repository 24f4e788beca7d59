// The kit run's one CloudFormation validator: a child of jest's main process (started by
// test/helpers/validation-server-start.ts from the kit project's globalSetup) that holds the
// @aws/cloudformation-validate engine every jest worker's synths use (test/helpers/kit-environment.ts
// sends them here). Building the engine costs ~4-5 s of CPU; one per worker was ~18 CPU-s of a kit
// run with four workers. Validating stays a call of the same package, engine, rules and options.
// Plain CommonJS: node runs it as it is (no transpiler, nothing cached in the temp dir).
//
// Protocol, one JSON object per line on a Unix socket: a request { op: 'validate', engineConfig,
// template: { content | base64, name }, config } or { op: 'listRules' | 'engineName', engineConfig }
// (ValidationRequest in validation-client.ts) is answered by { value } or { error } (the message of
// what the package threw).
const net = require('node:net');
const path = require('node:path');

let real;
/** The package as aws-cdk-lib resolves it, loaded at the first request (a run may synthesize nothing). */
function validateModule() {
  const cdkDir = path.dirname(require.resolve('aws-cdk-lib/package.json'));
  real ??= require(require.resolve('@aws/cloudformation-validate', { paths: [cdkDir] }));
  return real;
}

/** One engine per distinct config (aws-cdk-lib passes the rules for the template's resource types). */
const engines = new Map();

function answer(request) {
  const key = JSON.stringify(request.engineConfig ?? {});
  const module = validateModule();
  let engine = engines.get(key);
  if (!engine) {
    engine = new module.CompositeEngine(request.engineConfig);
    engines.set(key, engine);
  }
  try {
    if (request.op === 'listRules') return engine.listRules();
    if (request.op === 'engineName') return engine.engineName();
    const { content, base64, name } = request.template ?? {};
    const bytes = base64 === undefined ? (content ?? '') : Buffer.from(base64, 'base64');
    return engine.validateTemplate(new module.TemplateContent(bytes, name), request.config);
  } catch (err) {
    // A failure inside the WebAssembly ends that instance (the package says so): the next request
    // builds a new engine rather than use a dead one. Findings are answers, not throws.
    engines.delete(key);
    throw err;
  }
}

function serve(socketPath) {
  const server = net.createServer((socket) => {
    let pending = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy()); // a worker that ended mid-request
    socket.on('data', (chunk) => {
      pending += chunk;
      for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        let reply;
        try {
          reply = { value: answer(JSON.parse(line)) };
        } catch (err) {
          reply = { error: err instanceof Error ? err.message : String(err) };
        }
        socket.write(`${JSON.stringify(reply)}\n`);
      }
    });
  });
  server.listen(socketPath, () => process.send?.('ready'));
  // Gone with the run: jest's teardown stops it, and a jest that ended otherwise closes the channel.
  process.on('disconnect', () => process.exit(0));
}

const socketPath = process.argv[2];
if (!socketPath) throw new Error('usage: validation-server.js <socket path> (started by validation-server-start.ts)');
serve(socketPath);
