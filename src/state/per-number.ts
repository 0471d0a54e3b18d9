/**
 * Behaviours a test scripted per destination number: a standing one, and one-shot ones
 * queued for the next uses, which come first. Shared by the carrier (calls) and the
 * messaging network; each checks its behaviours before handing them over, so a queue with
 * a bad entry adds nothing.
 */
export class PerNumber<B> {
  private readonly standing = new Map<string, B>();
  private readonly queued = new Map<string, B[]>();

  set(number: string, behavior: B): void {
    this.standing.set(number, behavior);
  }

  queue(number: string, behaviors: readonly B[]): void {
    if (behaviors.length > 0) this.queued.set(number, [...(this.queued.get(number) ?? []), ...behaviors]);
  }

  /** Forgets `number`'s behaviours, or every number's. */
  clear(number?: string): void {
    if (number === undefined) {
      this.standing.clear();
      this.queued.clear();
    } else {
      this.standing.delete(number);
      this.queued.delete(number);
    }
  }

  /** What the next use of `number` would get, without using up a queued behaviour. */
  peek(number: string): B | undefined {
    return this.queued.get(number)?.[0] ?? this.standing.get(number);
  }

  /** What this use of `number` gets; uses up one queued behaviour. */
  take(number: string): B | undefined {
    const queue = this.queued.get(number);
    const next = queue?.shift();
    if (queue?.length === 0) this.queued.delete(number);
    return next ?? this.standing.get(number);
  }
}
