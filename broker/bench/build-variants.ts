// The builds a path bench compares (consume-path, produce-path): `--variant NAME=BUILD_DIR[,ENV=VALUE...]`
// names a broker build and the environment its broker starts with; without one, the current build.
import * as path from 'node:path';
import { BUILD } from './processes';

export interface Variant {
  name: string;
  /** The build's cli/main.js. */
  main: string;
  env: Record<string, string>;
}

/** One `--variant` value: NAME=BUILD_DIR[,ENV=VALUE...] (an empty BUILD_DIR is the current build). */
export function parseVariant(spec: string): Variant {
  const [name, rest] = spec.split(/=(.*)/s) as [string, string];
  const [dir, ...envs] = rest.split(',');
  return {
    name,
    main: path.join(path.resolve(dir || BUILD), 'cli', 'main.js'),
    env: Object.fromEntries(envs.filter(Boolean).map((e) => e.split(/=(.*)/s).slice(0, 2) as [string, string])),
  };
}

/** The variants asked for, or the current build alone. */
export const variantsOrCurrent = (variants: Variant[]): Variant[] =>
  variants.length > 0 ? variants : [{ name: 'current', main: path.join(BUILD, 'cli', 'main.js'), env: {} }];

/** Runs `fn` with `env` set in process.env (a broker started inside inherits it), then restores it. */
export async function withEnv<T>(env: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const [k, val] of Object.entries(saved)) {
      if (val === undefined) delete process.env[k];
      else process.env[k] = val;
    }
  }
}
