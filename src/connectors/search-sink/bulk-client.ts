// POST /_bulk to one of several servers: a server that cannot be reached is skipped for the next one
// (failover); a busy or failing server (429, 5xx) is reported as retriable so the caller backs off.
import { ConnectException, RetriableException } from "../../connect/plugins/connector.ts";
import { bulkItems, type BulkItemResult } from "./bulk-response.ts";
import type { SearchSinkConfig } from "./settings.ts";

export type BulkClientConfig = Pick<SearchSinkConfig, "urls" | "auth" | "requestTimeoutMs">;

export class BulkClient {
  /** The server that answered last: requests start there. */
  private current = 0;
  private readonly headers: Record<string, string>;

  constructor(private readonly config: BulkClientConfig) {
    this.headers = { "content-type": "application/x-ndjson", accept: "application/json" };
    if (config.auth) this.headers.authorization = `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password}`).toString("base64")}`;
  }

  /**
   * Sends the actions (each one's lines, without the trailing newline) as one bulk request and returns
   * one result per action. Throws RetriableException when no server could take the request now, and
   * ConnectException when a server refused it for good (e.g. 401).
   */
  async bulk(actions: readonly string[]): Promise<BulkItemResult[]> {
    const body = actions.join("\n") + "\n";
    const { urls } = this.config;
    let unreachable = "";
    for (let tried = 0; tried < urls.length; tried++) {
      const at = (this.current + tried) % urls.length;
      const url = urls[at]!;
      let response: Response;
      try {
        response = await fetch(`${url}/_bulk`, { method: "POST", headers: this.headers, body, signal: AbortSignal.timeout(this.config.requestTimeoutMs) });
      } catch (err) {
        unreachable += `${url}: ${err instanceof Error ? err.message : String(err)}; `;
        continue;
      }
      this.current = at;
      const text = await response.text();
      if (response.status === 429 || response.status >= 500) throw new RetriableException(`bulk request to ${url} failed with ${response.status}: ${text.slice(0, 500)}`);
      if (!response.ok) throw new ConnectException(`bulk request to ${url} failed with ${response.status}: ${text.slice(0, 500)}`);
      return bulkItems(JSON.parse(text), actions.length);
    }
    throw new RetriableException(`no server could be reached (${unreachable.slice(0, -2)})`);
  }
}

/**
 * The wait before retry `attempt` (0 for the first): random between the base and base·2^attempt, so
 * that tasks retrying together spread out, capped at a day.
 */
export function retryWaitMs(attempt: number, backoffMs: number): number {
  if (backoffMs <= 0) return 0;
  const max = Math.min(backoffMs * 2 ** attempt, 24 * 60 * 60 * 1000);
  return backoffMs + Math.floor(Math.random() * (max - backoffMs));
}
