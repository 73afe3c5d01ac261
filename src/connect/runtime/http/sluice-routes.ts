// /sluice: Sluice's own resources, not Kafka Connect's, for the web console: the cluster's workers and
// what each runs, the task counters it charts, and what the calling user may do (see docs/console.md).
import { Elysia, t } from "elysia";
import { logger } from "../../../platform/log.ts";
import { documented } from "../../../platform/openapi.ts";
import type { ForwardingTls } from "../../../platform/tls.ts";
import type { Herder } from "../herder/herder.ts";
import type { PluginGaugeValue, TaskTotals } from "../metrics.ts";
import type { ConnectUsers } from "../security.ts";

const log = logger("connect-http");

const Work = t.Object({ connector: t.String(), task: t.Integer() });

const WorkersBody = t.Object({
  leader: t.Union([t.String(), t.Null()]),
  workers: t.Array(
    t.Object({
      id: t.String(),
      url: t.String(),
      leader: t.Boolean(),
      connectors: t.Array(t.String()),
      tasks: t.Array(Work),
    }),
  ),
});

const TaskTotalsBody = t.Object({
  connector: t.String(),
  task: t.Integer(),
  worker: t.String(),
  polled: t.Number(),
  written: t.Number(),
  read: t.Number(),
  put: t.Number(),
  errors: t.Number(),
  lag: t.Union([t.Number(), t.Null()]),
});

const GaugeBody = t.Object({
  name: t.String(),
  labels: t.Record(t.String(), t.String()),
  value: t.Union([t.Number(), t.Null()]),
  worker: t.String(),
});

const MetricsBody = t.Object({
  /** When the counters were read (ms since the epoch): rates are differences over time. */
  time: t.Integer(),
  tasks: t.Array(TaskTotalsBody),
  /** With ?gauges=<prefix>: the tasks' own gauges of those names, from every worker. */
  gauges: t.Optional(t.Array(GaugeBody)),
  /** Workers that did not answer: their tasks are missing. */
  unreachable: t.Array(t.String()),
});

const PermissionsBody = t.Object({
  user: t.Union([t.String(), t.Null()]),
  readOnly: t.Boolean(),
  config: t.Union([t.Literal("Read"), t.Literal("Write"), t.Null()]),
});

const IgnoredSetting = t.Object({ name: t.String(), message: t.String() });
const IgnoredSettingsBody = t.Object({ noEffect: t.Array(IgnoredSetting), unknown: t.Array(IgnoredSetting) });

type WorkerTotals = TaskTotals & { worker: string };
type WorkerGauge = PluginGaugeValue & { worker: string };
type MetricsReply = { time: number; tasks: WorkerTotals[]; gauges?: WorkerGauge[]; unreachable: string[] };
type WorkerMetrics = { tasks: WorkerTotals[]; gauges?: WorkerGauge[] };

/** A worker's counters are its own: asking the others is bounded, a slow one is reported unreachable. */
const PEER_TIMEOUT_MS = 5000;

export interface SluiceRouteOptions {
  /** Who the guard admitted the request as; absent without authentication. */
  users?: ConnectUsers;
  forwardTls?: ForwardingTls;
}

export function sluiceRoutes(herder: Herder, options: SluiceRouteOptions) {
  const own = async (gauges: string | undefined): Promise<WorkerMetrics> => {
    const worker = herder.workerId;
    const tasks = (await herder.metrics().taskTotals()).map((totals) => ({ ...totals, worker }));
    if (!gauges) return { tasks };
    return { tasks, gauges: (await herder.metrics().pluginGauges(gauges)).map((g) => ({ ...g, worker })) };
  };

  /** Another worker's own counters, asked with the caller's credentials. */
  const peer = async (url: string, request: Request, gauges: string | undefined): Promise<WorkerMetrics> => {
    const headers = new Headers();
    const authorization = request.headers.get("authorization");
    if (authorization) headers.set("authorization", authorization);
    const query = gauges ? `&gauges=${encodeURIComponent(gauges)}` : "";
    const response = await fetch(`${url}/sluice/metrics?local=true${query}`, {
      headers,
      signal: AbortSignal.timeout(PEER_TIMEOUT_MS),
      ...(options.forwardTls ? { tls: options.forwardTls } : {}),
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const reply = (await response.json()) as MetricsReply;
    return { tasks: reply.tasks, ...(gauges ? { gauges: reply.gauges ?? [] } : {}) };
  };

  return (
    new Elysia()
      // The leader knows every worker's share: another worker forwards there (ForwardRequest).
      .get("/sluice/workers", () => herder.workers(), {
        response: WorkersBody,
        ...documented({ summary: "The workers, the leader and what each runs (Sluice's own)" }),
      })
      .get(
        "/sluice/metrics",
        async ({ query, request }): Promise<MetricsReply> => {
          const time = Date.now();
          // Each worker counts only the tasks it runs: the cluster's figures are every worker's.
          const gauges = query.gauges || undefined;
          if (query.local === "true") return { time, ...(await own(gauges)), unreachable: [] };
          const others = Object.entries(herder.workerUrls())
            .filter(([id]) => id !== herder.workerId)
            .map(([, url]) => ({ url }));
          const unreachable: string[] = [];
          const answers = await Promise.all(
            others.map((w) =>
              peer(w.url, request, gauges).catch((err: unknown): WorkerMetrics => {
                log.debug(
                  { worker: w.url, err: err instanceof Error ? err.message : String(err) },
                  "worker did not answer for its metrics",
                );
                unreachable.push(w.url);
                return { tasks: [] };
              }),
            ),
          );
          const all = [await own(gauges), ...answers];
          const tasks = all
            .flatMap((w) => w.tasks)
            .sort((a, b) => (a.connector < b.connector ? -1 : a.connector > b.connector ? 1 : a.task - b.task));
          const reply: MetricsReply = { time, tasks, unreachable: unreachable.sort() };
          if (gauges) reply.gauges = all.flatMap((w) => w.gauges ?? []);
          return reply;
        },
        {
          query: t.Object({
            local: t.Optional(
              t.String({ description: '"true": this worker\'s own counters only (how workers ask each other)' }),
            ),
            gauges: t.Optional(
              t.String({
                description:
                  "a metric name prefix (e.g. sluice_mirror_): the tasks' own gauges of those names too, as `gauges`",
              }),
            ),
          }),
          response: MetricsBody,
          ...documented({
            summary:
              "Each task's record counters and sink lag, and with gauges= its own gauges, from every worker (Sluice's own)",
          }),
        },
      )
      // The connector's page shows what the worker warned about when it was created or updated.
      .get("/sluice/connectors/:connector/ignored-settings", ({ params }) => herder.ignoredSettings(params.connector), {
        response: IgnoredSettingsBody,
        ...documented({
          summary:
            "A connector's settings that have no effect in Sluice, and those no one declares, with the warning for each (Sluice's own)",
        }),
      })
      // Kafka Connect's Basic authentication has no permissions: a user may do everything unless
      // rest.basic.auth.read.only.users names it. Connect has no global config resource.
      .get(
        "/sluice/permissions",
        ({ request }) => ({
          user: options.users?.userOf(request) ?? null,
          readOnly: options.users?.isReadOnly(request) ?? false,
          config: null,
        }),
        { response: PermissionsBody, ...documented({ summary: "What the calling user may do (Sluice's own)" }) },
      )
  );
}
