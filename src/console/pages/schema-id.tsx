// A schema by its id (lookup by id, and the target of "referenced by"): the schema and the subject
// versions that hold it.
import { api } from "../api.ts";
import { Code } from "../components/code.tsx";
import { ErrorBox, Loading } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { href, type Route } from "../router.ts";
import { formatSchema } from "../schema-text.ts";

export function SchemaIdPage({ route }: { route: Route }) {
  const id = route.path[1]!;
  const schema = useLoad(
    () => api<{ schema: string; schemaType?: string }>("registry", `/schemas/ids/${encodeURIComponent(id)}`),
    [id],
  );
  const uses = useLoad(
    () =>
      api<{ subject: string; version: number }[]>("registry", `/schemas/ids/${encodeURIComponent(id)}/versions`).catch(
        () => [],
      ),
    [id],
  );
  return (
    <div>
      <h1>Schema {id}</h1>
      <ErrorBox error={schema.error} />
      <Loading when={schema.loading} />
      {(uses.data?.length ?? 0) > 0 && (
        <p>
          Used by:{" "}
          {uses.data!.map((u) => (
            <a key={`${u.subject}/${u.version}`} class="chip" href={href(["subjects", u.subject], { v: u.version })}>
              {u.subject} v{u.version}
            </a>
          ))}
        </p>
      )}
      {schema.data && (
        <Code text={formatSchema(schema.data.schema, schema.data.schemaType)} format={schema.data.schemaType} />
      )}
    </div>
  );
}
