/**
 * How many turns the event loop took while `work` ran: a chain of `setImmediate`s counts them,
 * so work that never lets the loop in shows at most the one turn already due, and work that
 * pauses (core/slices.ts) shows one a pause.
 */
export async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  try {
    return { value: await work(), turns };
  } finally {
    counting = false;
  }
}
