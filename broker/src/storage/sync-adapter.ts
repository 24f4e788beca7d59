// Hands a synchronous engine (sqlite://, memory://) to code written against AsyncStorage. Each call
// runs at once, synchronously, as before: the promise is settled when returned, so nothing else
// runs between the engine's call and its answer and the append queue's group commit is unchanged.
// A throw becomes a rejected promise, as a network engine's failure would be.
import type { AsyncStorage, SyncStorage } from './storage';

const SYNC = Symbol('minnow.syncStorage');

export function promised(engine: SyncStorage): AsyncStorage {
  const out: Record<string | symbol, unknown> = { url: engine.url, [SYNC]: engine };
  let proto: object | null = engine;
  const seen = new Set<string>();
  // Every method of the engine's class chain (own fields like `url` are copied above).
  while (proto && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || seen.has(name)) continue;
      const desc = Object.getOwnPropertyDescriptor(proto, name);
      if (!desc || typeof desc.value !== 'function') continue;
      seen.add(name);
      // Looked up at each call, so a test that replaces an engine's method is heard.
      const methods = engine as unknown as Record<string, (...args: unknown[]) => unknown>;
      out[name] = (...args: unknown[]) => {
        try {
          return Promise.resolve(methods[name]!(...args));
        } catch (err) {
          return Promise.reject(err);
        }
      };
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return out as unknown as AsyncStorage;
}

/** The synchronous engine behind `promised()` (tools that need the engine itself: backup, checkpoints). */
export function syncEngine(storage: AsyncStorage): SyncStorage | undefined {
  return (storage as unknown as Record<symbol, SyncStorage | undefined>)[SYNC];
}
