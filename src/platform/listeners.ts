// The REST listeners of both services. Plain and server-only TLS listeners are Bun.serve. Listeners
// that ask for client certificates are not: Bun.serve checks a client certificate but does not tell
// the handler whose it is, and neither does node:https under Bun; node:tls does. So they are node:tls
// servers handing their sockets to node:http, and each request reaches the app as a fetch Request
// whose client-certificate principal (the subject's CN) can be asked for (principalOf).
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import type { TLSOptions } from "bun";
import { logger } from "./log.ts";

const log = logger("https");
const principals = new WeakMap<Request, string>();

/** The CN of the verified client certificate the request came with, if any. */
export function principalOf(request: Request): string | undefined {
  return principals.get(request);
}

export interface Listening {
  hostname: string;
  port: number;
  protocol: string;
  stop(closeActiveConnections?: boolean): Promise<void>;
}

export interface ClientCertificateServerOptions {
  hostname: string;
  port: number;
  tls: TLSOptions;
  /** Bodies above this are refused before they are read whole (as Bun.serve's maxRequestBodySize). */
  maxRequestBodySize: number;
  fetch(request: Request): Response | Promise<Response>;
}

function serveWithClientCertificates(options: ClientCertificateServerOptions): Promise<Listening> {
  const http = createHttpServer((req, res) => void handle(req, res, options));
  const tls = createTlsServer(
    {
      key: options.tls.key as string,
      cert: options.tls.cert as string,
      ca: options.tls.ca as string | string[] | undefined,
      requestCert: options.tls.requestCert ?? true,
      rejectUnauthorized: options.tls.rejectUnauthorized ?? true,
    },
    (socket) => http.emit("connection", socket),
  );
  tls.on("tlsClientError", (err) => log.debug({ err: err.message }, "TLS handshake refused"));
  const sockets = new Set<TLSSocket>();
  tls.on("secureConnection", (socket: TLSSocket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    tls.once("error", reject);
    tls.listen(options.port, options.hostname, () => {
      const address = tls.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      resolve({
        hostname: options.hostname,
        port,
        protocol: "https",
        stop: (closeActiveConnections) =>
          new Promise<void>((done) => {
            if (closeActiveConnections) for (const s of sockets) s.destroy();
            tls.close(() => done());
          }),
      });
    });
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: ClientCertificateServerOptions,
): Promise<void> {
  try {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > options.maxRequestBodySize) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > options.maxRequestBodySize) {
        res.writeHead(413).end();
        req.destroy();
        return;
      }
      chunks.push(chunk);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const method = req.method ?? "GET";
    const request = new Request(
      `https://${req.headers.host ?? `${options.hostname}:${options.port}`}${req.url ?? "/"}`,
      {
        method,
        headers,
        body: method === "GET" || method === "HEAD" || chunks.length === 0 ? undefined : Buffer.concat(chunks),
      },
    );
    const socket = req.socket as TLSSocket;
    const subject = socket.authorized ? socket.getPeerCertificate()?.subject : undefined;
    const cn = subject?.CN;
    if (cn) principals.set(request, Array.isArray(cn) ? cn[0]! : cn);
    const response = await options.fetch(request);
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      out[name] = name === "set-cookie" ? [...((out[name] as string[] | undefined) ?? []), value] : value;
    });
    res.writeHead(response.status, out);
    res.end(Buffer.from(await response.arrayBuffer()));
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, "request failed");
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
}

/** Listens on `url` (http or https) with the app's fetch handler. */
export async function listen(
  url: URL,
  options: {
    tls?: TLSOptions;
    defaultPort: number;
    maxRequestBodySize: number;
    fetch(request: Request): Response | Promise<Response>;
  },
): Promise<Listening> {
  const port = Number(url.port || options.defaultPort);
  const tls = url.protocol === "https:" ? options.tls : undefined;
  if (tls?.requestCert)
    return serveWithClientCertificates({
      hostname: url.hostname,
      port,
      tls,
      maxRequestBodySize: options.maxRequestBodySize,
      fetch: options.fetch,
    });
  const server = Bun.serve({
    hostname: url.hostname,
    port,
    maxRequestBodySize: options.maxRequestBodySize,
    ...(tls ? { tls } : {}),
    fetch: options.fetch,
  });
  return {
    hostname: server.hostname ?? url.hostname,
    port: server.port ?? port,
    protocol: tls ? "https" : "http",
    stop: (force) => server.stop(force),
  };
}

/** Whether a host (or a URL's host) is this machine's loopback: only this machine reaches it. */
export function isLoopback(hostOrUrl: string): boolean {
  const host = URL.canParse(hostOrUrl) ? new URL(hostOrUrl).hostname : hostOrUrl;
  return host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
