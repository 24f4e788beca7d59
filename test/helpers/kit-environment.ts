// The kit project's jest test environment (test/jest.config.js): Node's, plus the run's one
// CloudFormation validator instead of one per test file.
//
// Every synth runs aws-cdk-lib's built-in template validation (cdk.json sets
// @aws-cdk/core:validateAgainstDefaultRules: an error fails the synth). Its engine
// (@aws/cloudformation-validate, 9 MB of WebAssembly) takes ~4-6 s of CPU to compile and build, and
// jest gives each test file a fresh module registry, so every synthesizing file paid that again:
// about half the kit's CPU. This file is loaded by Node's own require once per worker, so what it
// loads lives as long as the worker; test/helpers/cloudformation-validate.ts (where jest's
// moduleNameMapper sends aws-cdk-lib's require of the package) hands test files the module below.
// Every template is still validated, by the same engine, rules and options. Under the kit project's
// globalSetup the engine lives in one process for the whole run (validation-server.js: one engine
// per worker was ~18 CPU-s of a four-worker run) and the module below forwards to it; without that
// server (another jest config), each worker builds its own.
import * as path from 'node:path';
import NodeEnvironment from 'jest-environment-node';
import { askValidationServer } from './validation-client';
import { VALIDATION_SOCKET_ENV } from './validation-server-start';

/** The global under which a test file finds the shared module (cloudformation-validate.ts reads it). */
const SHARED_VALIDATE = '__minnowSharedCloudFormationValidate';

interface Engine {
  validateTemplate(template: unknown, config?: unknown): unknown;
  listRules(): unknown;
  engineName(): unknown;
  free(): void;
}
type ValidateModule = Record<string, unknown> & { CompositeEngine: new (config?: unknown) => Engine };

let shared: ValidateModule | undefined;

/**
 * The package as aws-cdk-lib resolves it, with CompositeEngine built once per distinct config
 * (aws-cdk-lib's plugin passes the rules for the template's resource types) and never freed: the
 * plugin frees its engine when it builds another or is disposed, and the next file would find a
 * freed one. Arguments are copied into this realm first: the package accepts only plain objects
 * whose prototype is this realm's Object.prototype, and a test file's objects come from its own
 * vm context.
 */
function sharedValidate(): ValidateModule {
  if (shared) return shared;
  const cdkDir = path.dirname(require.resolve('aws-cdk-lib/package.json'));
  const real = require(require.resolve('@aws/cloudformation-validate', { paths: [cdkDir] })) as ValidateModule;
  const engines = new Map<string, Engine>();
  const copy = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  class SharedCompositeEngine {
    private readonly engine: Engine;
    private readonly key: string;
    constructor(config?: unknown) {
      this.key = JSON.stringify(config ?? {});
      let engine = engines.get(this.key);
      if (!engine) {
        engine = new real.CompositeEngine(copy(config));
        engines.set(this.key, engine);
      }
      this.engine = engine;
    }
    validateTemplate(template: unknown, config?: unknown): unknown {
      try {
        return this.engine.validateTemplate(template, copy(config));
      } catch (err) {
        // A failure inside the WebAssembly ends that instance (the package says so): the next file
        // builds a new engine rather than inheriting a dead one. Findings are answers, not throws.
        engines.delete(this.key);
        throw err;
      }
    }
    listRules(): unknown {
      return this.engine.listRules();
    }
    engineName(): unknown {
      return this.engine.engineName();
    }
    free(): void {
      // Shared by every test file of this worker; gone with the worker.
    }
  }
  const socketPath = process.env[VALIDATION_SOCKET_ENV];
  const module: ValidateModule = {
    ...real,
    CompositeEngine: socketPath ? remoteEngineClass(socketPath) : SharedCompositeEngine,
  };
  shared = module;
  return module;
}

/**
 * CompositeEngine as the run's validation server holds it: the same constructor and methods, each
 * call answered there. The template travels as its text (aws-cdk-lib reads it as UTF-8) or bytes.
 */
function remoteEngineClass(socketPath: string): ValidateModule['CompositeEngine'] {
  return class RemoteCompositeEngine {
    private readonly engineConfig: unknown;
    constructor(config?: unknown) {
      this.engineConfig = config ?? {};
    }
    validateTemplate(template: unknown, config?: unknown): unknown {
      const { content, name } = template as { content: unknown; name?: string };
      const sent =
        typeof content === 'string'
          ? { content, name }
          : { base64: Buffer.from(content as Uint8Array).toString('base64'), name };
      return askValidationServer(socketPath, {
        op: 'validate',
        engineConfig: this.engineConfig,
        template: sent,
        config,
      });
    }
    listRules(): unknown {
      return askValidationServer(socketPath, { op: 'listRules', engineConfig: this.engineConfig });
    }
    engineName(): unknown {
      return askValidationServer(socketPath, { op: 'engineName', engineConfig: this.engineConfig });
    }
    free(): void {
      // The server's engine serves the whole run.
    }
  };
}

export default class KitEnvironment extends NodeEnvironment {
  constructor(...args: ConstructorParameters<typeof NodeEnvironment>) {
    super(...args);
    // A getter: a file that never synthesizes never loads the WebAssembly.
    Object.defineProperty(this.global, SHARED_VALIDATE, { get: sharedValidate });
  }
}
