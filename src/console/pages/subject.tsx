// One subject: its versions, compatibility level and mode (set here), a version's schema with its
// references and what references it, a side-by-side diff of any two versions, and deletion.
import { useState } from "preact/hooks";
import { api, ApiError, enc } from "../api.ts";
import { Code, Diff } from "../components/code.tsx";
import { Action, ErrorBox, Loading, Section } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { href, navigate, type Route } from "../router.ts";
import { formatSchema } from "../schema-text.ts";
import { canWrite } from "../session.ts";

export interface SchemaVersion {
  subject: string;
  version: number;
  id: number;
  schemaType?: string;
  schema: string;
  references?: { name: string; subject: string; version: number }[];
  deleted?: boolean;
}

const LEVELS = ["BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE"];
const MODES = ["READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"];

const s = (subject: string) => `/subjects/${enc(subject)}`;

async function settingOf<T>(path: string, field: string): Promise<T | undefined> {
  try {
    return (await api<Record<string, T>>("registry", path))[field];
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

export function SubjectPage({ route }: { route: Route }) {
  const subject = route.path[1]!;
  const versions = useLoad(() => api<number[]>("registry", `${s(subject)}/versions?deleted=true`), [subject]);
  const live = useLoad(
    () => api<number[]>("registry", `${s(subject)}/versions`).catch(() => [] as number[]),
    [subject],
  );
  const level = useLoad(
    () => settingOf<string>(`/config/${enc(subject)}?defaultToGlobal=true`, "compatibilityLevel"),
    [subject],
  );
  const mode = useLoad(() => settingOf<string>(`/mode/${enc(subject)}?defaultToGlobal=true`, "mode"), [subject]);
  const all = versions.data ?? [];
  const chosen = Number(route.query.get("v") ?? all.at(-1) ?? 0);
  const reloadAll = () => {
    versions.reload();
    live.reload();
  };
  const write = canWrite("registry");
  const liveSet = new Set(live.data ?? []);
  return (
    <div>
      <h1>
        <a href={href(["subjects"])}>Subjects</a> / {subject}{" "}
        {write && (
          <a class="button" href={href(["draft"], { subject })}>
            New version…
          </a>
        )}
      </h1>
      <ErrorBox error={versions.error} />
      <Loading when={versions.loading && !versions.data} />
      <div class="facts">
        <span>
          Compatibility: <b data-testid="level">{level.data ?? "–"}</b>
        </span>
        <span>
          Mode: <b data-testid="mode">{mode.data ?? "–"}</b>
        </span>
        <span>Versions: {all.length}</span>
      </div>
      {write && (
        <div class="toolbar">
          <Setter
            label="Compatibility"
            options={LEVELS}
            current={level.data}
            save={(v) => api("registry", `/config/${enc(subject)}`, { method: "PUT", body: { compatibility: v } })}
            done={level.reload}
          />
          <Setter
            label="Mode"
            options={MODES}
            current={mode.data}
            save={(v) => api("registry", `/mode/${enc(subject)}`, { method: "PUT", body: { mode: v } })}
            done={mode.reload}
          />
          {liveSet.size > 0 ? (
            <Action
              label="Delete subject"
              danger
              confirm={`Soft-delete all versions of ${subject}?`}
              run={() => api("registry", s(subject), { method: "DELETE" })}
              done={reloadAll}
            />
          ) : (
            all.length > 0 && (
              <Action
                label="Delete permanently"
                danger
                confirm={`Permanently delete ${subject}? This cannot be undone.`}
                run={() => api("registry", `${s(subject)}?permanent=true`, { method: "DELETE" })}
                done={() => navigate(["subjects"])}
              />
            )
          )}
        </div>
      )}
      <nav class="versions">
        {all.map((v) => (
          <a
            key={v}
            href={href(["subjects", subject], { v })}
            class={v === chosen ? "current" : liveSet.has(v) ? "" : "deleted"}
          >
            v{v}
          </a>
        ))}
      </nav>
      {chosen > 0 && (
        <VersionView
          subject={subject}
          version={chosen}
          deleted={!liveSet.has(chosen)}
          write={write}
          changed={reloadAll}
        />
      )}
      {all.length > 1 && <DiffPicker subject={subject} versions={all} route={route} />}
    </div>
  );
}

function Setter({
  label,
  options,
  current,
  save,
  done,
}: {
  label: string;
  options: string[];
  current?: string;
  save: (v: string) => Promise<unknown>;
  done: () => void;
}) {
  const [picked, setPicked] = useState<string>();
  const value = picked ?? current ?? options[0]!;
  return (
    <span class="setter">
      <select aria-label={label} value={value} onChange={(e) => setPicked(e.currentTarget.value)}>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
      <Action label={`Set ${label.toLowerCase()}`} run={() => save(value)} done={done} />
    </span>
  );
}

function VersionView({
  subject,
  version,
  deleted,
  write,
  changed,
}: {
  subject: string;
  version: number;
  deleted: boolean;
  write: boolean;
  changed: () => void;
}) {
  const schema = useLoad(
    () => api<SchemaVersion>("registry", `${s(subject)}/versions/${version}?deleted=true`),
    [subject, version],
  );
  const referencedBy = useLoad(
    () => api<number[]>("registry", `${s(subject)}/versions/${version}/referencedby`).catch(() => [] as number[]),
    [subject, version],
  );
  const v = schema.data;
  return (
    <Section
      title={`Version ${version}${deleted ? " (deleted)" : ""}`}
      actions={
        write && (
          <Action
            label={deleted ? "Delete version permanently" : "Delete version"}
            danger
            confirm={deleted ? `Permanently delete version ${version}?` : `Soft-delete version ${version}?`}
            run={() =>
              api("registry", `${s(subject)}/versions/${version}${deleted ? "?permanent=true" : ""}`, {
                method: "DELETE",
              })
            }
            done={changed}
          />
        )
      }
    >
      <ErrorBox error={schema.error} />
      {v && (
        <>
          <div class="facts">
            <span>
              id <a href={href(["schemas", String(v.id)])}>{v.id}</a>
            </span>
            <span>{v.schemaType ?? "AVRO"}</span>
          </div>
          {(v.references?.length ?? 0) > 0 && (
            <p>
              References:{" "}
              {v.references!.map((r) => (
                <a key={r.name} class="chip" href={href(["subjects", r.subject], { v: r.version })}>
                  {r.name} → {r.subject} v{r.version}
                </a>
              ))}
            </p>
          )}
          {(referencedBy.data?.length ?? 0) > 0 && (
            <p>
              Referenced by:{" "}
              {referencedBy.data!.map((id) => (
                <a key={id} class="chip" href={href(["schemas", String(id)])}>
                  schema {id}
                </a>
              ))}
            </p>
          )}
          <Code text={formatSchema(v.schema, v.schemaType)} format={v.schemaType} />
        </>
      )}
    </Section>
  );
}

function DiffPicker({ subject, versions, route }: { subject: string; versions: number[]; route: Route }) {
  const [a, b] = (route.query.get("diff") ?? "").split("..").map(Number);
  const from = a && versions.includes(a) ? a : versions.at(-2)!;
  const to = b && versions.includes(b) ? b : versions.at(-1)!;
  const pick = (x: number, y: number) =>
    navigate(["subjects", subject], { v: route.query.get("v") ?? undefined, diff: `${x}..${y}` });
  const left = useLoad(
    () => api<SchemaVersion>("registry", `${s(subject)}/versions/${from}?deleted=true`),
    [subject, from],
  );
  const right = useLoad(
    () => api<SchemaVersion>("registry", `${s(subject)}/versions/${to}?deleted=true`),
    [subject, to],
  );
  return (
    <Section title="Compare versions">
      <div class="toolbar">
        <select aria-label="From version" value={from} onChange={(e) => pick(Number(e.currentTarget.value), to)}>
          {versions.map((v) => (
            <option key={v} value={v}>
              v{v}
            </option>
          ))}
        </select>
        →
        <select aria-label="To version" value={to} onChange={(e) => pick(from, Number(e.currentTarget.value))}>
          {versions.map((v) => (
            <option key={v} value={v}>
              v{v}
            </option>
          ))}
        </select>
      </div>
      <ErrorBox error={left.error ?? right.error} />
      {left.data && right.data && (
        <Diff
          left={formatSchema(left.data.schema, left.data.schemaType)}
          right={formatSchema(right.data.schema, right.data.schemaType)}
          format={right.data.schemaType}
        />
      )}
    </Section>
  );
}
