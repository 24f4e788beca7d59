// The cleaner's logic is written once for engines that answer synchronously (memory, SQLite) and
// ones that answer with Promises (PostgreSQL, issue 18). Code that must also run synchronously
// (Storage.cleanerState of the in-process engines) is a generator that yields each engine call's
// answer and is driven by runSync (plain values) or runAsync (awaits each).

export type MaybePromise<T> = T | Promise<T>;

/** A computation that yields engine answers (values or Promises) and gets back their values. */
export type Steps<R> = Generator<unknown, R, unknown>;

export function runSync<R>(steps: Steps<R>): R {
  let next = steps.next();
  while (!next.done) {
    if (next.value instanceof Promise) throw new Error('an asynchronous engine answer in a synchronous call');
    next = steps.next(next.value);
  }
  return next.value;
}

export async function runAsync<R>(steps: Steps<R>): Promise<R> {
  let next = steps.next();
  while (!next.done) next = steps.next(await next.value);
  return next.value;
}
