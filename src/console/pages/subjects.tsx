// Subjects: filtered by prefix (the registry's own subjectPrefix), a name fragment, format and deleted
// state, fifty to a page (a registry of 10,000 subjects renders fifty rows).
import { useEffect, useState } from "preact/hooks";
import { api, enc } from "../api.ts";
import { ErrorBox, Loading } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { pageOf } from "../paging.ts";
import { href, navigate, type Route } from "../router.ts";
import { canWrite } from "../session.ts";

const PAGE = 50;

interface Listed {
  subject: string;
  schemaType?: string;
  deleted: boolean;
}

async function listSubjects(prefix: string, deleted: string, format: string): Promise<Listed[]> {
  const q = prefix ? `subjectPrefix=${enc(prefix)}&` : "";
  const [live, withDeleted] = await Promise.all([
    deleted === "only" ? Promise.resolve([] as string[]) : api<string[]>("registry", `/subjects?${q}`),
    deleted === "no" ? Promise.resolve(undefined) : api<string[]>("registry", `/subjects?${q}deleted=true`),
  ]);
  const liveSet = new Set(live);
  let names: Listed[] = (withDeleted ?? live).map((subject) => ({ subject, deleted: !liveSet.has(subject) }));
  if (deleted === "only") names = names.filter((n) => n.deleted);
  if (format) {
    // Formats come with the latest schemas: asked for only when filtering by one.
    const latest = await api<{ subject: string; schemaType?: string }[]>(
      "registry",
      `/schemas?${q}latestOnly=true${deleted === "no" ? "" : "&deleted=true"}`,
    );
    const types = new Map(latest.map((s) => [s.subject, s.schemaType ?? "AVRO"]));
    names = names
      .filter((n) => types.get(n.subject) === format)
      .map((n) => ({ ...n, schemaType: types.get(n.subject) }));
  }
  return names.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
}

type Latest = { version: number; id: number; schemaType?: string };
/** Latest versions seen, kept across pages: only a page's subjects are asked for, each once. */
const latest = new Map<string, Latest | null>();

function useLatest(subjects: string[]): Map<string, Latest | null> {
  const [, setTick] = useState(0);
  const key = subjects.join("\n");
  useEffect(() => {
    const missing = subjects.filter((s) => !latest.has(s));
    if (missing.length === 0) return;
    void Promise.all(
      missing.map((s) =>
        api<Latest>("registry", `/subjects/${enc(s)}/versions/latest?deleted=true`).then(
          (v) => latest.set(s, v),
          () => latest.set(s, null),
        ),
      ),
    ).then(() => setTick((t) => t + 1));
  }, [key]);
  return latest;
}

export function SubjectsPage({ route }: { route: Route }) {
  const q = route.query;
  const prefix = q.get("prefix") ?? "";
  const text = q.get("q") ?? "";
  const format = q.get("format") ?? "";
  const deleted = q.get("deleted") ?? "no";
  const page = Number(q.get("page") ?? 0);
  const list = useLoad(() => listSubjects(prefix, deleted, format), [prefix, deleted, format]);
  const set = (changes: Record<string, string | number | undefined>) =>
    navigate(["subjects"], {
      prefix,
      q: text,
      format,
      deleted: deleted === "no" ? undefined : deleted,
      page: undefined,
      ...changes,
    });
  const matching = (list.data ?? []).filter((s) => !text || s.subject.toLowerCase().includes(text.toLowerCase()));
  const shown = pageOf(matching, page, PAGE);
  const versions = useLatest(shown.items.map((s) => s.subject));
  return (
    <div>
      <h1>
        Subjects{" "}
        {canWrite("registry") && (
          <a class="button" href={href(["draft"])}>
            New subject
          </a>
        )}
      </h1>
      {/* Text filters are uncontrolled: a re-render (rows arriving) must not reset what is being typed. */}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Prefix{" "}
          <input
            name="prefix"
            defaultValue={prefix}
            onChange={(e) => set({ prefix: e.currentTarget.value })}
            placeholder="e.g. orders-"
          />
        </label>
        <label>
          Contains <input name="q" defaultValue={text} onInput={(e) => set({ q: e.currentTarget.value })} />
        </label>
        <label>
          Format{" "}
          <select name="format" value={format} onChange={(e) => set({ format: e.currentTarget.value })}>
            <option value="">any</option>
            <option>AVRO</option>
            <option>JSON</option>
            <option>PROTOBUF</option>
          </select>
        </label>
        <label>
          Deleted{" "}
          <select name="deleted" value={deleted} onChange={(e) => set({ deleted: e.currentTarget.value })}>
            <option value="no">hidden</option>
            <option value="yes">shown</option>
            <option value="only">only</option>
          </select>
        </label>
        <label>
          Schema id{" "}
          <input
            name="id"
            size={8}
            onKeyDown={(e) =>
              e.key === "Enter" && e.currentTarget.value && navigate(["schemas", e.currentTarget.value.trim()])
            }
            placeholder="lookup"
          />
        </label>
      </form>
      <ErrorBox error={list.error} />
      <Loading when={list.loading && !list.data} />
      {list.data && (
        <>
          <p class="muted" data-total={shown.total}>
            {shown.total} subject{shown.total === 1 ? "" : "s"}
          </p>
          <table class="list subjects">
            <tbody>
              {shown.items.map((s) => (
                <tr key={s.subject}>
                  <td>
                    <a href={href(["subjects", s.subject])}>{s.subject}</a>
                    {s.deleted && <span class="badge deleted">deleted</span>}
                  </td>
                  <td class="muted">
                    {s.schemaType ?? versions.get(s.subject)?.schemaType ?? (versions.get(s.subject) ? "AVRO" : "")}
                  </td>
                  <td class="muted">{versions.get(s.subject) && `v${versions.get(s.subject)!.version}`}</td>
                  <td class="muted">{versions.get(s.subject) && `id ${versions.get(s.subject)!.id}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={shown.page} pages={shown.pages} go={(p) => set({ page: p || undefined })} />
        </>
      )}
    </div>
  );
}

export function Pager({ page, pages, go }: { page: number; pages: number; go: (page: number) => void }) {
  if (pages <= 1) return null;
  return (
    <nav class="pager">
      <button type="button" disabled={page === 0} onClick={() => go(0)}>
        «
      </button>
      <button type="button" disabled={page === 0} onClick={() => go(page - 1)}>
        ‹ Previous
      </button>
      <span>
        page {page + 1} of {pages}
      </span>
      <button type="button" disabled={page >= pages - 1} onClick={() => go(page + 1)}>
        Next ›
      </button>
      <button type="button" disabled={page >= pages - 1} onClick={() => go(pages - 1)}>
        »
      </button>
    </nav>
  );
}
