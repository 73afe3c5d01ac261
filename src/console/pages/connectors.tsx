// Connectors: state per connector and task, and the worker of each, colour-coded; a virtual list (only
// the rows in view are in the page), refreshed every few seconds; the common actions on each row.
import { useState } from "preact/hooks";
import { actions, connectors, type Expanded } from "../connect-api.ts";
import { useSeries } from "../metrics-feed.ts";
import { Action, ErrorBox, Loading, Spark, State } from "../components/ui.tsx";
import { VirtualList } from "../components/virtual-list.tsx";
import { useLoad } from "../load.ts";
import { href } from "../router.ts";
import { canWrite } from "../session.ts";

type Row = { name: string } & Expanded[string];

export function ConnectorsPage() {
  const list = useLoad(connectors, [], 5000);
  const series = useSeries();
  const [filter, setFilter] = useState("");
  const [state, setState] = useState("");
  const write = canWrite("connect");
  const rows: Row[] = Object.entries(list.data ?? {})
    .map(([name, v]) => ({ name, ...v }))
    .filter(
      (r) =>
        (!filter || r.name.toLowerCase().includes(filter.toLowerCase())) &&
        (!state || r.status?.connector.state === state || r.status?.tasks.some((t) => t.state === state)),
    )
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const counts = new Map<string, number>();
  for (const r of Object.values(list.data ?? {}))
    counts.set(r.status?.connector.state ?? "UNKNOWN", (counts.get(r.status?.connector.state ?? "UNKNOWN") ?? 0) + 1);
  return (
    <div>
      <h1>
        Connectors{" "}
        {write && (
          <a class="button" href={href(["new-connector"])}>
            New connector
          </a>
        )}
      </h1>
      <div class="toolbar">
        <input
          name="filter"
          placeholder="name contains"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
        <select name="state" value={state} onChange={(e) => setState(e.currentTarget.value)}>
          <option value="">any state</option>
          {["RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED", "RESTARTING"].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <span class="muted" data-total={Object.keys(list.data ?? {}).length}>
          {[...counts].map(([s, n]) => (
            <span key={s} class="count">
              <State state={s} /> {n}
            </span>
          ))}
        </span>
      </div>
      <ErrorBox error={list.error} />
      <Loading when={list.loading && !list.data} />
      <div class="vhead">
        <span class="c-name">Name</span>
        <span class="c-state">State</span>
        <span class="c-tasks">Tasks (worker)</span>
        <span class="c-rate">Records/s</span>
        <span class="c-actions" />
      </div>
      <VirtualList
        items={rows}
        rowHeight={44}
        height={Math.max(300, innerHeight - 260)}
        row={(r) => (
          <div class="crow" data-connector={r.name}>
            <span class="c-name">
              <a href={href(["connectors", r.name])}>{r.name}</a>{" "}
              <span class="muted">{r.status?.type ?? r.info?.type}</span>
            </span>
            <span class="c-state" title={r.status?.connector.worker_id}>
              <State state={r.status?.connector.state} />
            </span>
            <span class="c-tasks">
              {r.status?.tasks.map((t) => (
                <span
                  key={t.id}
                  class={`task state-${t.state.toLowerCase()}`}
                  title={`task ${t.id}: ${t.state} on ${t.worker_id}`}
                >
                  {t.id}
                  <small>{t.worker_id}</small>
                </span>
              ))}
            </span>
            <span class="c-rate">
              <Spark
                values={series.get(r.name)?.rates ?? []}
                unit="/s"
                width={80}
                height={24}
                label={`${r.name} records per second`}
              />
            </span>
            <span class="c-actions">
              {write && <RowActions name={r.name} state={r.status?.connector.state} done={list.reload} />}
            </span>
          </div>
        )}
      />
    </div>
  );
}

export function RowActions({ name, state, done }: { name: string; state?: string; done: () => void }) {
  return (
    <>
      {state === "PAUSED" || state === "STOPPED" ? (
        <Action label="Resume" run={() => actions.resume(name)} done={done} />
      ) : (
        <Action label="Pause" run={() => actions.pause(name)} done={done} />
      )}
      <Action label="Restart" run={() => actions.restart(name, true, false)} done={done} />
    </>
  );
}
