/**
 * `promise`, or a failure naming `what` once `ms` of real time have passed: how a test waits
 * for real I/O (a socket's answer, a server closing it, a webhook to a loopback receiver), so
 * that it fails instead of hanging. It bounds a wait; it never lets time pass on purpose.
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
