// The configuration startBroker runs with: the environment's (loadConfig), then the caller's
// overrides on top (tests, `minnow serve`'s whole loadConfig result), checked again as a whole.
import { parseStorageUrl, StorageUrl } from '../storage/storage-url';
import { BrokerConfig, checkConfig, loadConfig } from './config';

/** Settings given to startBroker; the storage URL parsed or as text. */
export type ConfigOverrides = Partial<Omit<BrokerConfig, 'storageUrl'>> & { storageUrl?: StorageUrl | string };

/** Throws ConfigError for a bad env value or overrides that do not fit together. */
export function startConfig(env: NodeJS.ProcessEnv, overrides: ConfigOverrides | undefined): BrokerConfig {
  const base = loadConfig(env);
  // A whole loadConfig() result (minnow serve) brings its own list; else each override counts as given.
  const explicit = overrides?.explicit ?? new Set([...(base.explicit ?? []), ...Object.keys(overrides ?? {})]);
  const storageUrl =
    typeof overrides?.storageUrl === 'string'
      ? parseStorageUrl(overrides.storageUrl)
      : (overrides?.storageUrl ?? base.storageUrl);
  const config: BrokerConfig = { ...base, ...overrides, storageUrl, explicit };
  // Listeners given without advertised addresses advertise themselves, whatever the env said.
  if (overrides?.listeners && !overrides.advertisedListeners) config.advertisedListeners = undefined;
  checkConfig(config);
  return config;
}
