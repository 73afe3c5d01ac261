// Schema exporters: each exporter's state, the _schemas offset it has exported up to, where it exports
// to and what, and its last error; pause, resume and reset (from the start of _schemas) for users with
// the registry's Config: permission. Refreshed every few seconds.
import { Action, ErrorBox, Loading, State } from "../components/ui.tsx";
import { exporterActions, exporters, type Exporter } from "../exporters-api.ts";
import { useLoad } from "../load.ts";
import { canConfigure } from "../session.ts";

export function ExportersPage() {
  const list = useLoad(exporters, [], 3000);
  const write = canConfigure("registry");
  return (
    <div>
      <h1>Schema exporters</h1>
      <ErrorBox error={list.error} />
      <Loading when={list.loading && !list.data} />
      {list.data?.length === 0 && (
        <p class="muted">No exporters: create one with POST /exporters to keep another registry in step.</p>
      )}
      {list.data && list.data.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Offset</th>
              <th>Destination</th>
              <th>Subjects</th>
              <th>Context</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.data.map((x) => (
              <ExporterRow key={x.info.name} exporter={x} write={write} done={list.reload} />
            ))}
          </tbody>
        </table>
      )}
      {list.data
        ?.filter((x) => x.status.trace)
        .map((x) => (
          <details key={x.info.name} open data-exporter-trace={x.info.name}>
            <summary>
              {x.info.name} failed: {x.status.trace!.split("\n")[0]}
            </summary>
            <pre class="trace">{x.status.trace}</pre>
          </details>
        ))}
    </div>
  );
}

function ExporterRow({ exporter, write, done }: { exporter: Exporter; write: boolean; done: () => void }) {
  const { info, status } = exporter;
  const name = info.name;
  const paused = status.state === "PAUSED";
  return (
    <tr data-exporter={name} data-state={status.state}>
      <td>{name}</td>
      <td title={status.ts ? `since ${new Date(status.ts).toLocaleString()}` : undefined}>
        <State state={status.state} />
      </td>
      <td data-testid="exporter-offset">{status.offset.toLocaleString("en-US")}</td>
      <td>
        <code>{info.config["schema.registry.url"] ?? ""}</code>
      </td>
      <td>
        {info.subjects.map((s) => (
          <span key={s} class="chip">
            {s}
          </span>
        ))}
        {info.subjectRenameFormat && <span class="muted"> as {info.subjectRenameFormat}</span>}
      </td>
      <td>
        {info.contextType}
        {info.context && <span class="muted"> {info.context}</span>}
      </td>
      <td>
        {write && (
          <>
            {paused || status.state === "ERROR" ? (
              <Action label="Resume" run={() => exporterActions.resume(name)} done={done} />
            ) : (
              <Action label="Pause" run={() => exporterActions.pause(name)} done={done} />
            )}
            {paused && (
              <Action
                label="Reset"
                danger
                confirm={`Export ${name} again from the start of the schemas topic?`}
                run={() => exporterActions.reset(name)}
                done={done}
              />
            )}
          </>
        )}
      </td>
    </tr>
  );
}
