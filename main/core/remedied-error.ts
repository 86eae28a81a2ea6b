/**
 * A failure at start-up that the user can act on (an audit log that cannot be opened, a state
 * folder another Warden holds): what went wrong and what to do, shown as such rather than as an
 * internal error with a stack.
 */
export class RemediedError extends Error {
  constructor(
    message: string,
    readonly remedy: string,
  ) {
    super(message);
    this.name = 'RemediedError';
  }
}

/**
 * The remedy `error` carries, if any. By shape rather than by class: the CLI's entries are built
 * as separate bundles, each of which may hold its own copy of the class.
 */
export function remedyOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const remedy = (error as { remedy?: unknown }).remedy;
  return typeof remedy === 'string' && remedy !== '' ? remedy : undefined;
}
