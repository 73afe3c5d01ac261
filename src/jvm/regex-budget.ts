// Matches of user-supplied regexes (RegexRouter, TopicNameMatches, Filter conditions' =~,
// topics.regex), run on threads of their own under a time budget, regex.match.timeout.ms.
//
// Why threads: Java's regex and JS RegExp both backtrack, so `(a+)+` on "aaaa…a-" runs for hours in
// Java. JavaScriptCore gives up after its own match limit (about 10^8 backtracking steps, a second or
// so) and answers "no match" as if the regex did not match, silently; meanwhile a JS RegExp cannot be
// interrupted: on the main thread each such match stalls both REST APIs and every task. A
// linear-time engine (RE2) would avoid the blow-up but not match Java: no backreferences, no
// lookaround, which Kafka users' patterns may hold. So the match runs, with the same RegExp as
// before, on a thread that is terminated when the budget runs out; the caller awaits it and the
// record fails through errors.tolerance, before JavaScriptCore's limit could pass off a wrong "no
// match" (a null that took the whole budget counts as over it, should the timer fire late). (Blocking
// on the thread with Atomics.wait would stall the
// event loop for the whole budget.) Threads are pooled and leave after a while idle; callers memoise
// per input (PerInput), so a thread is only asked about a topic name not seen before. When a task's
// whole pipeline moves to a thread of its own, its stuck match will no longer stall others, but the
// budget is still what fails the record instead of hanging the task.

export const REGEX_TIMEOUT_SETTING = "regex.match.timeout.ms";

/** What RegExp.exec found: the groups by number (0 is the whole match) and by name. */
export interface RegexMatch {
  index: number;
  groups: (string | undefined)[];
  named: Record<string, string | undefined> | undefined;
}

export class RegexTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegexTimeoutException";
  }
}

interface Request {
  source: string;
  flags: string;
  input: string;
  resolve: (match: RegexMatch | null) => void;
  reject: (error: Error) => void;
  /** Who asked, for the timeout message (e.g. "RegexRouter regex '(a+)+'"). */
  what: string;
}

/** The thread's whole program, run from its own source text (the compiled binary has no files to load). */
function threadMain(): void {
  const thread = globalThis as unknown as {
    onmessage: (event: MessageEvent<{ source: string; flags: string; input: string }>) => void;
    postMessage(message: unknown): void;
  };
  const compiled = new Map<string, RegExp>();
  thread.onmessage = (event) => {
    const { source, flags, input } = event.data;
    const key = `${flags}/${source}`;
    let regex = compiled.get(key);
    if (regex === undefined) {
      regex = new RegExp(source, flags);
      compiled.set(key, regex);
    }
    const started = performance.now();
    const m = regex.exec(input);
    const ms = performance.now() - started;
    thread.postMessage({
      ms,
      match:
        m === null
          ? null
          : { index: m.index, groups: [...m], named: m.groups === undefined ? undefined : { ...m.groups } },
    });
  };
}

const THREAD_URL = URL.createObjectURL(new Blob([`(${threadMain.toString()})()`], { type: "application/javascript" }));
/** Threads matching at once; beyond that, requests wait their turn. */
const MAX_THREADS = 8;
/** An idle thread leaves after this long (a thread is a few MB; matches are rare once memoised). */
const IDLE_MS = 30_000;

class Thread {
  readonly worker = new Worker(THREAD_URL);
  private readonly opened: Promise<void>;
  private idleTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly onIdleExit: (thread: Thread) => void) {
    this.worker.unref();
    this.opened = new Promise((resolve) => this.worker.addEventListener("open", () => resolve(), { once: true }));
  }

  /** Runs one match; the budget counts from when the thread is up, not while it starts. "gone": it was terminated. */
  async run(request: Request, timeoutMs: number): Promise<"reusable" | "gone"> {
    clearTimeout(this.idleTimer);
    await this.opened;
    return new Promise((resolve) => {
      const overBudget = () =>
        new RegexTimeoutError(
          `${request.what} did not finish matching ${quote(request.input)} within ${REGEX_TIMEOUT_SETTING}=${timeoutMs}`,
        );
      const timer = setTimeout(() => {
        this.worker.onmessage = null;
        this.worker.terminate();
        request.reject(overBudget());
        resolve("gone");
      }, timeoutMs);
      this.worker.onmessage = (event: MessageEvent<{ ms: number; match: RegexMatch | null }>) => {
        clearTimeout(timer);
        this.worker.onmessage = null;
        const { ms, match } = event.data;
        if (match === null && ms >= timeoutMs) request.reject(overBudget());
        else request.resolve(match);
        resolve("reusable");
      };
      this.worker.onerror = (event) => {
        clearTimeout(timer);
        this.worker.terminate();
        request.reject(new Error(event.message));
        resolve("gone");
      };
      this.worker.postMessage({ source: request.source, flags: request.flags, input: request.input });
    });
  }

  idle(): void {
    this.idleTimer = setTimeout(() => {
      this.worker.terminate();
      this.onIdleExit(this);
    }, IDLE_MS);
    this.idleTimer.unref();
  }
}

function quote(input: string): string {
  const shown = input.length > 100 ? `${input.slice(0, 100)}…` : input;
  return `'${shown}' (${input.length} characters)`;
}

class RegexThreads {
  /** regex.match.timeout.ms of this process's worker. */
  timeoutMs = 250;
  private readonly idle: Thread[] = [];
  /** Every thread not yet terminated: an unref()'d worker that nothing else holds may be collected mid-match. */
  private readonly live = new Set<Thread>();
  private running = 0;
  private readonly waiting: Request[] = [];

  exec(what: string, source: string, flags: string, input: string): Promise<RegexMatch | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ what, source, flags, input, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.waiting.length === 0 || this.running >= MAX_THREADS) return;
    const request = this.waiting.shift()!;
    const thread = this.idle.pop() ?? this.spawn();
    this.running++;
    void thread.run(request, this.timeoutMs).then((outcome) => {
      this.running--;
      if (outcome === "reusable") {
        this.idle.push(thread);
        thread.idle();
      } else this.live.delete(thread);
      this.next();
    });
  }

  private spawn(): Thread {
    const thread = new Thread((gone) => {
      this.live.delete(gone);
      const at = this.idle.indexOf(gone);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.live.add(thread);
    return thread;
  }
}

/** The process's regex threads: one budget, set from the worker's settings. */
export const regexThreads = new RegexThreads();

/** Outcomes per input (a topic name), so each is matched on a thread once (a failure too: the same input fails the same way). */
export class PerInput<T> {
  private static readonly MAX = 10_000;
  private readonly known = new Map<string, { ok: true; value: T } | { ok: false; error: unknown }>();

  get(input: string, compute: () => Promise<T>): T | Promise<T> {
    const known = this.known.get(input);
    if (known?.ok) return known.value;
    if (known) throw known.error;
    return compute().then(
      (value) => {
        this.remember(input, { ok: true, value });
        return value;
      },
      (error: unknown) => {
        this.remember(input, { ok: false, error });
        throw error;
      },
    );
  }

  private remember(input: string, outcome: { ok: true; value: T } | { ok: false; error: unknown }): void {
    // Bounded for ever new inputs (topic names, field values); forgetting only costs a thread round trip.
    if (this.known.size >= PerInput.MAX) this.known.clear();
    this.known.set(input, outcome);
  }
}
