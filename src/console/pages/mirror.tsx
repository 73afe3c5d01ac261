// Mirror flows: the MirrorMaker 2 connectors by source alias → target alias, each flow's connectors with
// their state, its replicated topics with the lag of each (source end offsets less what the target
// acknowledged), and the consumer groups' last checkpoints; from the connectors list and the MM2 tasks'
// gauges of every worker, refreshed every few seconds.
import { api } from "../api.ts";
import { connectors } from "../connect-api.ts";
import { ErrorBox, Loading, Section, State } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { readConnectMetrics } from "../metrics-feed.ts";
import {
  flowLag,
  gaugeSamples,
  MIRROR_GAUGES,
  mirrorFlows,
  type ListedConnector,
  type MirrorFlow,
} from "../mirror-flows.ts";
import { href } from "../router.ts";

/** Every worker's MM2 gauges; an older worker without ?gauges= gives its own /metrics. */
async function mirrorGauges() {
  const answer = await api<unknown>("connect", `/sluice/metrics?gauges=${MIRROR_GAUGES}`).catch(() => undefined);
  return gaugeSamples(answer) ?? (await readConnectMetrics());
}

const ROLE_LABEL = { source: "replication", checkpoint: "checkpoints", heartbeat: "heartbeats" } as const;

export function MirrorPage() {
  const list = useLoad(connectors, [], 3000);
  const metrics = useLoad(mirrorGauges, [], 3000);
  const listed: Record<string, ListedConnector> = Object.fromEntries(
    Object.entries(list.data ?? {}).map(([name, c]) => [
      name,
      { config: c.info?.config, state: c.status?.connector.state, tasks: c.status?.tasks.map((t) => t.state) },
    ]),
  );
  const flows = mirrorFlows(listed, metrics.data ?? []);
  return (
    <div>
      <h1>Mirror flows</h1>
      <ErrorBox error={list.error ?? metrics.error} />
      <Loading when={list.loading && !list.data} />
      {list.data && flows.length === 0 && (
        <p class="muted">
          No MirrorMaker 2 connectors: create a MirrorSourceConnector (with its checkpoint and heartbeat connectors) to
          replicate a cluster.
        </p>
      )}
      {flows.map((f) => (
        <Flow key={`${f.source}->${f.target}`} flow={f} />
      ))}
    </div>
  );
}

function Flow({ flow }: { flow: MirrorFlow }) {
  const unknown = flow.topics.some((t) => t.unknown > 0);
  return (
    <div data-flow={`${flow.source}->${flow.target}`}>
      <Section title={`${flow.source} → ${flow.target}`}>
        <div class="facts">
          {flow.connectors.map((c) => (
            <span key={c.name} data-mirror-connector={c.name}>
              <a href={href(["connectors", c.name])}>{c.name}</a> <span class="muted">{ROLE_LABEL[c.role]}</span>{" "}
              <State state={c.state} />
              {c.tasks.length > 0 && (
                <span class="muted">
                  {" "}
                  {c.tasks.filter((t) => t === "RUNNING").length}/{c.tasks.length} tasks running
                </span>
              )}
            </span>
          ))}
        </div>
        <div class="facts">
          <span>
            {flow.topics.length} topic{flow.topics.length === 1 ? "" : "s"}
          </span>
          <span data-testid="flow-lag">
            lag <b>{flowLag(flow).toLocaleString("en-US")}</b> record{flowLag(flow) === 1 ? "" : "s"}
            {unknown && " (source ends not read yet for some partitions)"}
          </span>
          <span data-testid="last-checkpoint">
            {flow.checkpoints.length > 0 ? (
              <>
                last checkpoint <b>{new Date(flow.checkpoints[0]!.at).toLocaleString()}</b> ({flow.checkpoints.length}{" "}
                group{flow.checkpoints.length === 1 ? "" : "s"})
              </>
            ) : (
              "no checkpoint yet"
            )}
          </span>
        </div>
        {flow.topics.length > 0 && (
          <table class="list">
            <thead>
              <tr>
                <th>Topic on {flow.target}</th>
                <th>From</th>
                <th>Partitions</th>
                <th>Replicated</th>
                <th>Source end</th>
                <th>Lag</th>
              </tr>
            </thead>
            <tbody>
              {flow.topics.map((t) => (
                <tr key={t.topic} data-mirror-topic={t.topic} data-lag={t.unknown > 0 ? "" : t.lag}>
                  <td>{t.topic}</td>
                  <td class="muted">{t.sourceTopic}</td>
                  <td>{t.partitions}</td>
                  <td>{t.replicated.toLocaleString("en-US")}</td>
                  <td>{t.end.toLocaleString("en-US")}</td>
                  <td>
                    <b>{t.lag.toLocaleString("en-US")}</b>
                    {t.unknown > 0 && <span class="muted"> ({t.unknown} not read yet)</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {flow.checkpoints.length > 0 && (
          <table class="list">
            <thead>
              <tr>
                <th>Consumer group</th>
                <th>Last checkpoint</th>
              </tr>
            </thead>
            <tbody>
              {flow.checkpoints.map((c) => (
                <tr key={c.group} data-checkpoint-group={c.group}>
                  <td>{c.group}</td>
                  <td>{new Date(c.at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </div>
  );
}
