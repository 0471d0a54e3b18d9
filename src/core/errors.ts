/**
 * The one error class thrown for misuse of the library (bad options, advancing a
 * closed sandbox, scripting a call that does not exist). Errors of the simulated
 * HTTP API are never thrown at the user: they are JSON responses (see `src/api/errors.ts`).
 *
 * @example
 * try { await sandbox.advance('-1s'); } catch (e) { if (e instanceof SandboxError) console.log(e.message); }
 */
export class SandboxError extends Error {
  override name = 'SandboxError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
