// The services as pictures: the registry's instances with its leader, connect's workers with what each
// runs, and records per second and sink lag per connector, live.
import { api, ApiError, has } from "../api.ts";
import { ErrorBox, Section, Spark } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { useSeries } from "../metrics-feed.ts";
import { href } from "../router.ts";

interface RegistryCluster {
  leader: string | null;
  instances: { url: string; leader: boolean; eligible: boolean }[];
}

interface Workers {
  leader: string | null;
  workers: { url: string; leader: boolean; connectors: string[]; tasks: { connector: string; task: number }[] }[];
}

/** Absent on servers older than the console's endpoints: said plainly, not as an error. */
const optional = <T,>(p: Promise<T>) =>
  p.catch((err) => (err instanceof ApiError && err.status === 404 ? null : Promise.reject(err)));

export function ClusterPage() {
  const registry = useLoad(
    () => (has("registry") ? optional(api<RegistryCluster>("registry", "/v1/sluice/cluster")) : Promise.resolve(null)),
    [],
    5000,
  );
  const workers = useLoad(
    () => (has("connect") ? optional(api<Workers>("connect", "/sluice/workers")) : Promise.resolve(null)),
    [],
    5000,
  );
  const series = useSeries();
  const connectorsSeries = [...series.values()]
    .filter((s) => !s.key.includes("/"))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  return (
    <div>
      <h1>Cluster</h1>
      {has("registry") && (
        <Section title="Schema registry instances">
          <ErrorBox error={registry.error} />
          {registry.data === null && (
            <p class="muted">This registry does not describe its cluster (no /v1/sluice/cluster).</p>
          )}
          <div class="nodes">
            {registry.data?.instances.map((i) => (
              <div key={i.url} class={`node${i.leader ? " leader" : ""}`} data-instance={i.url}>
                <svg width="28" height="28" viewBox="0 0 28 28" aria-hidden="true">
                  <circle cx="14" cy="14" r="11" />
                  {i.leader && <path d="M8 12 L11 16 L14 9 L17 16 L20 12 L19 19 L9 19 Z" class="crown" />}
                </svg>
                <div>
                  <b>{i.url}</b>
                  <div class="muted">
                    {i.leader ? "leader" : i.eligible ? "follower (eligible)" : "follower (not eligible)"}
                  </div>
                </div>
              </div>
            ))}
          </div>
        </Section>
      )}
      {has("connect") && (
        <>
          <Section title="Connect workers">
            <ErrorBox error={workers.error} />
            {workers.data === null && (
              <p class="muted">This worker does not describe its cluster (no /sluice/workers).</p>
            )}
            <div class="nodes">
              {workers.data?.workers.map((w) => (
                <div key={w.url} class={`node worker${w.leader ? " leader" : ""}`} data-worker={w.url}>
                  <div>
                    <b>{w.url}</b> {w.leader && <span class="badge">leader</span>}
                    <div class="muted">
                      {w.connectors.length} connector{w.connectors.length === 1 ? "" : "s"}, {w.tasks.length} task
                      {w.tasks.length === 1 ? "" : "s"}
                    </div>
                    <div class="runs">
                      {w.connectors.map((c) => (
                        <a key={c} class="chip" href={href(["connectors", c])}>
                          {c}
                        </a>
                      ))}
                      {w.tasks.map((t) => (
                        <a
                          key={`${t.connector}/${t.task}`}
                          class="chip task-chip"
                          href={href(["connectors", t.connector])}
                        >
                          {t.connector}/{t.task}
                        </a>
                      ))}
                    </div>
                  </div>
                </div>
              ))}
            </div>
          </Section>
          <Section title="Throughput">
            {connectorsSeries.length === 0 && <p class="muted">Waiting for samples…</p>}
            <div class="charts">
              {connectorsSeries.map((s) => (
                <figure key={s.key} data-chart={s.key}>
                  <Spark
                    values={s.rates}
                    unit="records/s"
                    width={220}
                    height={50}
                    label={`${s.key} records per second`}
                  />
                  {s.lags.some((l) => l > 0) && (
                    <Spark values={s.lags} unit="lag" width={220} height={30} label={`${s.key} lag`} />
                  )}
                  <figcaption>
                    <a href={href(["connectors", s.key])}>{s.key}</a>
                  </figcaption>
                </figure>
              ))}
            </div>
          </Section>
        </>
      )}
    </div>
  );
}
