/**
 * The guard layers as the argument rules see them at call time: the global part as stored now,
 * and the managed file read again at most every few seconds (a call never waits for the disk
 * once it has been read). An unreadable managed file is an error, and rules that need the layers
 * then refuse (fail closed), as a launch would.
 */
import type { GuardLayers } from '../../app/policy/managed-rules';
import type { Guards } from '../../app/policy/guards';
import { type Result, err, ok } from '../../app/result';
import { loadGuardLayers } from '../config/guard-layers';

/** The layers now: at once once read, a promise only before the first read. */
export type LayersNow = () => Result<GuardLayers, string> | Promise<Result<GuardLayers, string>>;

/** A reader of the layers over `global` (read on each call) and the managed file. */
export function callLayers(
  global: () => Guards | undefined,
  options: { env?: Readonly<Record<string, string | undefined>>; refreshMs?: number } = {},
): LayersNow {
  const refreshMs = options.refreshMs ?? 5000;
  let managed: Result<Guards | undefined, string> | undefined;
  let readAt = 0;
  let reading: Promise<void> | undefined;
  let last:
    { global: Guards | undefined; managed: Guards | undefined; layers: GuardLayers } | undefined;

  const read = () =>
    (reading ??= loadGuardLayers({
      global: undefined,
      ...(options.env ? { env: options.env } : {}),
    })
      .then((r) => {
        managed = r.ok ? ok(r.value.managed) : err(`${r.error.message} (${r.error.remedy})`);
      })
      .catch((e: unknown) => {
        managed = err((e as Error).message);
      })
      .finally(() => {
        readAt = Date.now();
        reading = undefined;
      }));

  // The same object while nothing changed, so that what is compiled from it stays cached.
  const now = (): Result<GuardLayers, string> => {
    if (!managed!.ok) return managed as Result<never, string>;
    const g = global();
    if (!last || last.global !== g || last.managed !== managed!.value)
      last = { global: g, managed: managed!.value, layers: { global: g, managed: managed!.value } };
    return ok(last.layers);
  };

  return () => {
    if (!managed) return read().then(now);
    if (Date.now() - readAt > refreshMs) void read();
    return now();
  };
}
