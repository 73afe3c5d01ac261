// The draft editor: a schema checked against its subject (the compatibility endpoint, verbose, so the
// reasons come back and are shown on the lines they concern) and registered.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, enc } from "../api.ts";
import { Code } from "../components/code.tsx";
import { ErrorBox } from "../components/ui.tsx";
import { href, type Route } from "../router.ts";
import { suggestedFixes } from "../compat-fixes.ts";
import { formatSchema, placeReasons } from "../schema-text.ts";
import { canWrite } from "../session.ts";
import type { SchemaVersion } from "./subject.tsx";

type Checked = {
  compatible: boolean;
  notes: Map<number, string[]>;
  context: string[];
  text: string;
  fixes: string[];
  fresh?: boolean;
};

export function DraftPage({ route }: { route: Route }) {
  const [subject, setSubject] = useState(route.query.get("subject") ?? "");
  const [format, setFormat] = useState("AVRO");
  const [text, setText] = useState("");
  const [checked, setChecked] = useState<Checked>();
  const [registered, setRegistered] = useState<number>();
  const [error, setError] = useState<unknown>();
  // Starts from the subject's latest version, when it has one.
  useEffect(() => {
    const from = route.query.get("subject");
    if (!from) return;
    api<SchemaVersion>("registry", `/subjects/${enc(from)}/versions/latest`).then(
      (v) => {
        setFormat(v.schemaType ?? "AVRO");
        setText(formatSchema(v.schema, v.schemaType));
      },
      () => undefined,
    );
  }, []);
  const body = () => ({ schema: text, ...(format === "AVRO" ? {} : { schemaType: format }) });
  const check = async () => {
    setError(undefined);
    setRegistered(undefined);
    try {
      const answer = await api<{ is_compatible: boolean; messages?: string[] }>(
        "registry",
        `/compatibility/subjects/${enc(subject)}/versions/latest?verbose=true`,
        { method: "POST", body: body() },
      );
      const { lines, context } = placeReasons(answer.messages ?? [], text);
      const fixes = answer.is_compatible ? [] : suggestedFixes(answer.messages ?? []);
      setChecked({ compatible: answer.is_compatible, notes: lines, context, text, fixes });
    } catch (err) {
      // No version yet: nothing to be compatible with.
      if (err instanceof ApiError && (err.code === 40401 || err.code === 40402))
        setChecked({ compatible: true, notes: new Map(), context: [], text, fixes: [], fresh: true });
      else setError(err);
    }
  };
  const register = async () => {
    setError(undefined);
    try {
      setRegistered(
        (await api<{ id: number }>("registry", `/subjects/${enc(subject)}/versions`, { method: "POST", body: body() }))
          .id,
      );
    } catch (err) {
      setError(err);
    }
  };
  const unplaced = checked?.notes.get(0) ?? [];
  return (
    <div>
      <h1>Draft schema</h1>
      <div class="toolbar">
        <label>
          Subject <input name="subject" value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
        </label>
        <label>
          Format{" "}
          <select name="format" value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
            <option>AVRO</option>
            <option>JSON</option>
            <option>PROTOBUF</option>
          </select>
        </label>
      </div>
      <textarea
        name="schema"
        class="editor"
        spellcheck={false}
        rows={Math.max(12, text.split("\n").length + 1)}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <div class="toolbar">
        <button type="button" disabled={!subject || !text} onClick={check}>
          Check compatibility
        </button>
        {canWrite("registry") && (
          <button type="button" class="primary" disabled={!subject || !text} onClick={register}>
            Register
          </button>
        )}
        {registered !== undefined && (
          <span class="ok" role="status">
            Registered as schema <a href={href(["schemas", String(registered)])}>{registered}</a> in{" "}
            <a href={href(["subjects", subject])}>{subject}</a>
          </span>
        )}
      </div>
      <ErrorBox error={error} />
      {checked && (
        <div class="checked">
          {checked.compatible ? (
            <p class="ok" role="status">
              {checked.fresh
                ? "The subject has no version yet: nothing to be compatible with."
                : "Compatible with the subject."}
            </p>
          ) : (
            <p class="bad" role="status">
              Incompatible:
            </p>
          )}
          {unplaced.map((m, i) => (
            <div key={i} class="note" role="note">
              {m}
            </div>
          ))}
          {checked.fixes.length > 0 && (
            <ul class="fixes" data-testid="fixes">
              {checked.fixes.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          )}
          {!checked.compatible && <Code text={checked.text} format={format} notes={checked.notes} />}
          {checked.context.length > 0 && (
            <details>
              <summary class="muted">Compared with</summary>
              {checked.context.map((c, i) => (
                <pre key={i} class="code small">
                  {c}
                </pre>
              ))}
            </details>
          )}
        </div>
      )}
    </div>
  );
}
