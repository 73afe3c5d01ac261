// Each service's OpenAPI document (/openapi.json) rendered: paths, parameters, bodies and responses.
import { api, ApiError, baseOf, type Service } from "../api.ts";
import { ErrorBox, Loading } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import type { Route } from "../router.ts";

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents of any shape, read field by field.
type Json = Record<string, any>;

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"];

/** A schema in a line: its $ref's name, its type, or the JSON. */
function schemaText(schema: Json | undefined): string {
  if (!schema) return "";
  if (schema.$ref) return String(schema.$ref).replace(/^.*\//, "");
  if (schema.type === "array") return `${schemaText(schema.items)}[]`;
  if (schema.type && !schema.properties) return Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
  return JSON.stringify(schema, null, 2);
}

/** The distinct schemas of a body's media types: a name or type inline, a structure folded. */
function Schemas({ content, open }: { content?: Json; open?: boolean }) {
  const texts = [...new Set(Object.values(content ?? {}).map((c) => schemaText((c as Json).schema)))].filter(Boolean);
  return (
    <>
      {texts.map((text) =>
        text.includes("\n") ? (
          <details key={text} open={open}>
            <summary class="muted">schema</summary>
            <pre class="code small">{text}</pre>
          </details>
        ) : (
          <code key={text}>{text}</code>
        ),
      )}
    </>
  );
}

export function ApiReferencePage({ route }: { route: Route }) {
  const service = (route.path[1] === "connect" ? "connect" : "registry") as Service;
  const doc = useLoad(
    () =>
      api<Json>(service, "/openapi.json").catch((err) =>
        err instanceof ApiError && err.status === 404 ? null : Promise.reject(err),
      ),
    [service],
  );
  const d = doc.data;
  return (
    <div>
      <h1>
        API reference: {service}{" "}
        <a class="button" href={`${baseOf(service)}/openapi.json`} target="_blank" rel="noopener">
          openapi.json
        </a>
      </h1>
      <ErrorBox error={doc.error} />
      <Loading when={doc.loading} />
      {d === null && <p class="muted">This server publishes no OpenAPI document yet.</p>}
      {d && (
        <>
          <p class="muted">
            {d.info?.title} {d.info?.version}
          </p>
          {Object.entries((d.paths ?? {}) as Json).map(([path, item]) =>
            METHODS.filter((m) => item[m]).map((m) => {
              const op = item[m] as Json;
              const params = [...(item.parameters ?? []), ...(op.parameters ?? [])] as Json[];
              const body = op.requestBody?.content as Json | undefined;
              return (
                <details key={`${m} ${path}`} class="operation">
                  <summary>
                    <span class={`method m-${m}`}>{m.toUpperCase()}</span> <code>{path}</code>{" "}
                    <span class="muted">{op.summary ?? op.description ?? ""}</span>
                  </summary>
                  {params.length > 0 && (
                    <table class="list">
                      <tbody>
                        {params.map((p) => (
                          <tr key={`${p.in}:${p.name}`}>
                            <td>
                              <code>{p.name}</code>
                            </td>
                            <td>{p.in}</td>
                            <td>{p.required ? "required" : ""}</td>
                            <td>{schemaText(p.schema)}</td>
                            <td>{p.description}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                  {body && (
                    <div>
                      Body ({Object.keys(body).join(", ")}) <Schemas content={body} open />
                    </div>
                  )}
                  <ul>
                    {Object.entries((op.responses ?? {}) as Json).map(([code, r]) => (
                      <li key={code}>
                        <b>{code}</b> {(r as Json).description} <Schemas content={(r as Json).content} />
                      </li>
                    ))}
                  </ul>
                </details>
              );
            }),
          )}
        </>
      )}
    </div>
  );
}
