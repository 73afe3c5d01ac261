// POST /_bulk (and the few index calls the sink makes before writing: HEAD/PUT /<index>, GET/PUT
// /<index>/_mapping) to one of several servers: a server that cannot be reached is skipped for the next
// one (failover); a busy or failing server (429, 5xx) is reported as retriable so the caller backs off.
// A TLS failure (an untrusted certificate, a refused handshake) is not: when no server could be reached
// and one of them failed so, the TLS error is thrown, naming the setting to fix.
import { ConnectException, RetriableException } from "../../connect/api/connector.ts";
import { bulkItems, type BulkItemResult } from "./bulk-response.ts";
import { tlsProblem, type SearchHttps, type SearchTlsException } from "./https.ts";
import type { SearchSinkConfig } from "./settings.ts";

/** Without `https`, elastic.security.protocol=PLAINTEXT. */
export type BulkClientConfig = Pick<SearchSinkConfig, "urls" | "auth" | "requestTimeoutMs"> & { https?: SearchHttps };

const PLAINTEXT: SearchHttps = { ssl: false, tls: undefined, trustSetting: undefined, clientCertificate: false };

/** A server's answer: which server, its status and body. */
export interface ServerReply {
  url: string;
  status: number;
  text: string;
}

export class BulkClient {
  /** The server that answered last: requests start there. */
  private current = 0;
  private readonly headers: Record<string, string>;
  private readonly https: SearchHttps;

  constructor(private readonly config: BulkClientConfig) {
    this.https = config.https ?? PLAINTEXT;
    this.headers = { accept: "application/json" };
    if (config.auth)
      this.headers.authorization = `Basic ${Buffer.from(`${config.auth.username}:${config.auth.password}`).toString("base64")}`;
  }

  /**
   * Sends the actions (each one's lines, without the trailing newline) as one bulk request and returns
   * one result per action. Throws RetriableException when no server could take the request now, and
   * ConnectException when a server refused it for good (e.g. 401).
   */
  async bulk(actions: readonly string[]): Promise<BulkItemResult[]> {
    const { url, status, text } = await this.send("POST", "/_bulk", actions.join("\n") + "\n", "application/x-ndjson");
    if (status === 429 || status >= 500)
      throw new RetriableException(`bulk request to ${url} failed with ${status}: ${text.slice(0, 500)}`);
    if (status < 200 || status >= 300)
      throw new ConnectException(`bulk request to ${url} failed with ${status}: ${text.slice(0, 500)}`);
    return bulkItems(JSON.parse(text), actions.length);
  }

  /**
   * One request with a JSON body (or none) to the first server that answers; every status is returned
   * for the caller to judge. Throws RetriableException when no server could be reached, and
   * SearchTlsException when TLS failed with one of them.
   */
  async request(method: "HEAD" | "GET" | "PUT", path: string, body?: string): Promise<ServerReply> {
    return this.send(method, path, body, body === undefined ? undefined : "application/json");
  }

  private async send(
    method: string,
    path: string,
    body: string | undefined,
    contentType: string | undefined,
  ): Promise<ServerReply> {
    const { urls } = this.config;
    const headers = contentType === undefined ? this.headers : { ...this.headers, "content-type": contentType };
    const { tls } = this.https;
    let unreachable = "";
    let tlsFailure: SearchTlsException | undefined;
    for (let tried = 0; tried < urls.length; tried++) {
      const at = (this.current + tried) % urls.length;
      const url = urls[at]!;
      let response: Response;
      try {
        response = await fetch(`${url}${path}`, {
          method,
          headers,
          body,
          signal: AbortSignal.timeout(this.config.requestTimeoutMs),
          ...(tls && url.startsWith("https:") ? { tls } : {}),
        });
      } catch (err) {
        const problem = tlsProblem(url, err, this.https);
        if (typeof problem !== "string") tlsFailure ??= problem;
        unreachable += `${url}: ${err instanceof Error ? err.message : String(err)}${typeof problem === "string" ? problem : ""}; `;
        continue;
      }
      this.current = at;
      return { url, status: response.status, text: await response.text() };
    }
    if (tlsFailure) throw tlsFailure;
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
