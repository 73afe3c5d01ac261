// The statuses a task reported, in order, with a way to wait for one: tests synchronise on what the
// task says, never on time.
import type { State, Status, StatusListener } from "#src/connect/runtime/status.ts";

export class StatusLog {
  readonly statuses: Status[] = [];
  private readonly waiters: (() => void)[] = [];

  readonly listener: StatusListener = (status) => {
    this.statuses.push(status);
    for (const wake of this.waiters.splice(0)) wake();
  };

  get states(): State[] {
    return this.statuses.map((s) => s.state);
  }

  get last(): Status | undefined {
    return this.statuses[this.statuses.length - 1];
  }

  /** Resolves with the `count`th status in `state` once it was reported (at once if it already was). */
  async reached(state: State, count = 1): Promise<Status> {
    for (;;) {
      const matching = this.statuses.filter((s) => s.state === state);
      if (matching.length >= count) return matching[count - 1]!;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}
