// Option parsing for `minnow perf produce|consume|e2e`, one module per subcommand
// (produce-options.ts, consume-options.ts, e2e-options.ts) over the shared argv handling
// (tool-args.ts) and value parsers (option-values.ts). Pure: throws UsageError.
export * from './option-values';
export { expandMultiValue, joinNegativeValues } from './tool-args';
export * from './produce-options';
export * from './consume-options';
export * from './e2e-options';
