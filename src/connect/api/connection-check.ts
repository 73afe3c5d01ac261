// A connector's connection attempt while its config is validated: validation answers a REST call
// (PUT .../config/validate, POST /connectors), so the attempt is bounded and never retried.

/** The longest a validation waits for a connection (Debezium waits up to 60 s; REST clients give up sooner). */
const CONNECTION_CHECK_TIMEOUT_MS = 10_000;

/**
 * Why `attempt` failed, worded by `failed` from its error message, or Debezium's message when it
 * took longer than `timeoutMs`; undefined when it succeeded. The attempt closes what it opened itself,
 * also when it finishes after the timeout.
 */
export async function connectionProblem(
  attempt: () => Promise<unknown>,
  failed: (cause: string) => string,
  timeoutMs = CONNECTION_CHECK_TIMEOUT_MS,
): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`Connection validation timed out after ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([
      attempt().then(
        () => undefined,
        (err: unknown) => failed(err instanceof Error ? err.message : String(err)),
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
