// Letting the rest of the event loop in from a long stretch of work.

/**
 * Resolves after a turn of the event loop: I/O callbacks (answers from sockets, REST requests) and
 * timers run before the caller goes on. Awaiting a resolved promise would not let them: microtasks run
 * before any of them.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
