// Hands items from several producers to one consumer, one at a time: a producer's put() settles once
// the consumer took its item (true) or the consumer stopped taking (false), so no producer runs ahead
// by more than the item it holds. The snapshot's table readers hand their fetches on through it.

export class Handover<T> {
  private readonly waiting: { item: T; taken: (taken: boolean) => void }[] = [];
  private wake: (() => void) | null = null;
  private state: "open" | "ended" | "closed" = "open";
  private failure: { error: unknown } | null = null;

  /** The consumer stopped taking (close), or the producers failed. */
  get closed(): boolean {
    return this.state === "closed" || this.failure !== null;
  }

  put(item: T): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return new Promise((taken) => {
      this.waiting.push({ item, taken });
      this.wakeConsumer();
    });
  }

  /** The next item, in the order put; null once the producers ended; throws what they failed with. */
  async take(): Promise<T | null> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      const next = this.waiting.shift();
      if (next !== undefined) {
        next.taken(true);
        return next.item;
      }
      if (this.state !== "open") return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Every producer is done: take() answers null once what they put is taken. */
  end(): void {
    if (this.state === "open") this.state = "ended";
    this.wakeConsumer();
  }

  /** A producer failed: take() throws its error; the others' puts answer false. */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.release();
  }

  /** The consumer stops taking: waiting and later puts answer false. */
  close(): void {
    this.state = "closed";
    this.release();
  }

  private release(): void {
    for (const { taken } of this.waiting.splice(0)) taken(false);
    this.wakeConsumer();
  }

  private wakeConsumer(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
