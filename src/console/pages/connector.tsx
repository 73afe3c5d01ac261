// One connector: its state and its tasks' (worker, trace when failed), the actions, live charts of
// records per second and sink lag, a CDC connector's slot lag and snapshot progress, its offsets (edited
// or reset while it is stopped) and its config.
import { useState } from "preact/hooks";
import { api, enc } from "../api.ts";
import { CDC_CLASSES, cdcFigures, formatBytes, formatDuration, serverOf } from "../cdc-figures.ts";
import { actions, ignoredSettings, type ConnectorInfo, type ConnectorStatus } from "../connect-api.ts";
import { Action, ErrorBox, Loading, Section, Spark, State } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { readConnectMetrics, useSeries } from "../metrics-feed.ts";
import { href, navigate, type Route } from "../router.ts";
import { canWrite } from "../session.ts";

export function ConnectorPage({ route }: { route: Route }) {
  const name = route.path[1]!;
  const status = useLoad(() => api<ConnectorStatus>("connect", `/connectors/${enc(name)}/status`), [name], 3000);
  const info = useLoad(() => api<ConnectorInfo>("connect", `/connectors/${enc(name)}`), [name]);
  const ignored = useLoad(() => ignoredSettings(name), [name]);
  const series = useSeries();
  const [includeTasks, setIncludeTasks] = useState(true);
  const [onlyFailed, setOnlyFailed] = useState(false);
  const write = canWrite("connect");
  const st = status.data;
  const state = st?.connector.state;
  const done = () => {
    status.reload();
    info.reload();
  };
  const sink = (st?.type ?? info.data?.type) === "sink";
  return (
    <div>
      <h1>
        <a href={href(["connectors"])}>Connectors</a> / {name} <State state={state} />{" "}
        {write && (
          <a class="button" href={href(["connectors", name, "edit"])}>
            Edit config
          </a>
        )}
      </h1>
      <ErrorBox error={status.error} />
      <Loading when={status.loading && !st} />
      {st && (
        <div class="facts">
          <span>{st.type}</span>
          <span>worker {st.connector.worker_id}</span>
          <span>{info.data?.config["connector.class"]}</span>
        </div>
      )}
      {write && st && (
        <div class="toolbar" data-testid="actions">
          {state === "PAUSED" || state === "STOPPED" ? (
            <Action label="Resume" run={() => actions.resume(name)} done={done} />
          ) : (
            <Action label="Pause" run={() => actions.pause(name)} done={done} />
          )}
          {state !== "STOPPED" && <Action label="Stop" run={() => actions.stop(name)} done={done} />}
          <span class="restart">
            <Action label="Restart" run={() => actions.restart(name, includeTasks, onlyFailed)} done={done} />
            <label>
              <input
                type="checkbox"
                checked={includeTasks}
                onChange={(e) => setIncludeTasks(e.currentTarget.checked)}
              />{" "}
              includeTasks
            </label>
            <label>
              <input type="checkbox" checked={onlyFailed} onChange={(e) => setOnlyFailed(e.currentTarget.checked)} />{" "}
              onlyFailed
            </label>
          </span>
          <Action
            label="Delete"
            danger
            confirm={`Delete connector ${name}?`}
            run={() => actions.remove(name)}
            done={() => navigate(["connectors"])}
          />
        </div>
      )}
      {st?.connector.trace && <pre class="trace">{st.connector.trace}</pre>}
      <Section title="Throughput">
        <div class="charts">
          <figure>
            <Spark
              values={series.get(name)?.rates ?? []}
              unit="records/s"
              width={320}
              height={70}
              label={`${name} records per second`}
            />
            <figcaption>{name}</figcaption>
          </figure>
          {sink && (
            <figure>
              <Spark
                values={series.get(name)?.lags ?? []}
                unit="behind"
                width={320}
                height={70}
                label={`${name} lag`}
              />
              <figcaption>sink lag</figcaption>
            </figure>
          )}
        </div>
      </Section>
      <Section title="Tasks">
        <table class="list">
          <thead>
            <tr>
              <th>Task</th>
              <th>State</th>
              <th>Worker</th>
              <th>Records/s</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {st?.tasks.map((t) => (
              <tr key={t.id}>
                <td>{t.id}</td>
                <td>
                  <State state={t.state} />
                </td>
                <td>{t.worker_id}</td>
                <td>
                  <Spark values={series.get(`${name}/${t.id}`)?.rates ?? []} unit="/s" width={100} height={24} />
                </td>
                <td>
                  {write && <Action label="Restart task" run={() => actions.restartTask(name, t.id)} done={done} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {st?.tasks
          .filter((t) => t.trace)
          .map((t) => (
            <details key={t.id} open>
              <summary>
                Task {t.id} failed: {t.trace!.split("\n")[0]}
              </summary>
              <pre class="trace">{t.trace}</pre>
            </details>
          ))}
      </Section>
      {info.data && CDC_CLASSES.has(info.data.config["connector.class"] ?? "") && (
        <ChangeDataCapture server={serverOf(info.data.config)} />
      )}
      <Offsets name={name} stopped={state === "STOPPED"} write={write} />
      <Section title="Config">
        <IgnoredSettingsNotice ignored={ignored.data} />
        <table class="list config">
          <tbody>
            {Object.entries(info.data?.config ?? {}).map(([k, v]) => (
              <tr key={k}>
                <td>{k}</td>
                <td>
                  <code>{v}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </div>
  );
}

function Offsets({ name, stopped, write }: { name: string; stopped: boolean; write: boolean }) {
  const offsets = useLoad(
    () => api<{ offsets: unknown[] }>("connect", `/connectors/${enc(name)}/offsets`),
    [name, stopped],
  );
  const [draft, setDraft] = useState<string>();
  const text = draft ?? JSON.stringify(offsets.data ?? { offsets: [] }, null, 2);
  return (
    <Section title="Offsets">
      <ErrorBox error={offsets.error} />
      {stopped && write ? (
        <>
          <textarea
            name="offsets"
            class="editor"
            rows={Math.min(20, text.split("\n").length + 1)}
            value={text}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <div class="toolbar">
            <Action
              label="Save offsets"
              run={() =>
                api("connect", `/connectors/${enc(name)}/offsets`, { method: "PATCH", body: JSON.parse(text) })
              }
              done={() => (setDraft(undefined), offsets.reload())}
            />
            <Action
              label="Reset offsets"
              danger
              confirm="Forget all offsets of this connector?"
              run={() => api("connect", `/connectors/${enc(name)}/offsets`, { method: "DELETE" })}
              done={() => (setDraft(undefined), offsets.reload())}
            />
          </div>
        </>
      ) : (
        <>
          <pre class="code small">{text}</pre>
          {write && <p class="muted">Stop the connector to edit or reset its offsets.</p>}
        </>
      )}
    </Section>
  );
}

/** The settings of the config that do nothing in Sluice (the worker warned about them when it was saved). */
function IgnoredSettingsNotice({
  ignored,
}: {
  ignored: { noEffect: { name: string; message: string }[]; unknown: { name: string; message: string }[] } | undefined;
}) {
  const all = [...(ignored?.unknown ?? []), ...(ignored?.noEffect ?? [])];
  if (all.length === 0) return null;
  return (
    <div class="warning" data-testid="ignored-settings">
      <strong>Settings Sluice ignores:</strong>
      <ul>
        {all.map((s) => (
          <li key={s.name}>{s.message}</li>
        ))}
      </ul>
    </div>
  );
}

/** The slot's WAL retained and the snapshot's progress, from connect's /metrics every 3 s. */
function ChangeDataCapture({ server }: { server: string | undefined }) {
  const metrics = useLoad(readConnectMetrics, [server], 3000);
  if (server === undefined) return null;
  const figures = metrics.data ? cdcFigures(metrics.data, server) : undefined;
  const snapshot = figures?.snapshot?.running || figures?.snapshot?.completed ? figures.snapshot : null;
  return (
    <Section title="Change data capture">
      <ErrorBox error={metrics.error} />
      <div class="facts" data-testid="slot-lag">
        {figures?.slot ? (
          <>
            <span>
              slot <b>{figures.slot.slot}</b>
            </span>
            <span>
              WAL retained <b>{formatBytes(figures.slot.retainedBytes)}</b>
            </span>
            <span>
              not yet confirmed <b>{formatBytes(figures.slot.confirmedFlushLagBytes)}</b>
            </span>
          </>
        ) : (
          <span>no slot reading yet (the task reads it every slot.lag.interval.ms while it runs)</span>
        )}
      </div>
      {snapshot && (
        <div data-testid="snapshot-progress">
          <div class="facts">
            <span>
              snapshot <b>{snapshot.running ? "running" : "completed"}</b>
            </span>
            <span>
              <b>{snapshot.rows.toLocaleString("en-US")}</b>
              {snapshot.estimate !== null && ` of ~${snapshot.estimate.toLocaleString("en-US")}`} rows
            </span>
            {snapshot.percent !== null && (
              <span>
                <b>{snapshot.running ? snapshot.percent : 100}%</b>
              </span>
            )}
            {snapshot.timeLeftMs !== null && (
              <span>
                about <b>{formatDuration(snapshot.timeLeftMs)}</b> left
              </span>
            )}
          </div>
          {snapshot.percent !== null && <progress max={100} value={snapshot.running ? snapshot.percent : 100} />}
          {snapshot.estimatedFromSize.length > 0 && (
            <p class="warning" data-testid="estimate-hint">
              No statistics for {snapshot.estimatedFromSize.join(", ")} (never analysed): the estimate comes from the
              table size and may be far off. Run <code>ANALYZE {snapshot.estimatedFromSize.join(", ")}</code> for a
              close one.
            </p>
          )}
        </div>
      )}
    </Section>
  );
}
