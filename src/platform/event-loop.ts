// Letting the rest of the event loop in from a long stretch of work.

/**
 * Resolves after a turn of the event loop: I/O callbacks (answers from sockets, REST requests) and
 * timers run before the caller goes on. Awaiting a resolved promise would not let them: microtasks run
 * before any of them.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A long synchronous stretch of work cut into slices of `ms`: `due` tells when one is over (cheap enough
 * to ask per item, and no await unless it is), `pause()` gives the event loop its turn and starts the next.
 */
export class Slices {
  private start = performance.now();

  constructor(private readonly ms: number) {}

  get due(): boolean {
    return performance.now() - this.start >= this.ms;
  }

  async pause(): Promise<void> {
    await nextTurn();
    this.start = performance.now();
  }
}
