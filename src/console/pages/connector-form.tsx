// A connector's config as a form built from its plugin's config definitions, checked by the plugin's
// validate endpoint (errors under each field), or as raw JSON; saved with PUT /connectors/{name}/config.
import { useEffect, useState } from "preact/hooks";
import { api, enc } from "../api.ts";
import { pluginConfig, validate, type ConfigKey, type PluginInfo, type Validation } from "../connect-api.ts";
import { ErrorBox } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { href, navigate, type Route } from "../router.ts";

export function ConnectorFormPage({ route }: { route: Route }) {
  const editing = route.path[0] === "connectors" ? route.path[1] : undefined;
  const [config, setConfig] = useState<Record<string, string>>({ "connector.class": route.query.get("plugin") ?? "" });
  const [name, setName] = useState(editing ?? "");
  const [raw, setRaw] = useState<string>();
  const [checked, setChecked] = useState<Validation>();
  const [error, setError] = useState<unknown>();
  const plugins = useLoad(() => api<PluginInfo[]>("connect", "/connector-plugins"), []);
  useEffect(() => {
    if (editing) api<Record<string, string>>("connect", `/connectors/${enc(editing)}/config`).then(setConfig, setError);
  }, [editing]);
  const plugin = config["connector.class"] ?? "";
  const keys = useLoad(() => (plugin ? pluginConfig(plugin) : Promise.resolve([] as ConfigKey[])), [plugin]);
  const current = (): Record<string, string> => {
    const base = raw === undefined ? config : (JSON.parse(raw) as Record<string, string>);
    return Object.fromEntries(Object.entries({ ...base, name }).filter(([, v]) => v !== "" && v !== undefined));
  };
  const errorsOf = (key: string) => checked?.configs.find((c) => c.value.name === key)?.value.errors ?? [];
  const check = async (): Promise<Validation | undefined> => {
    setError(undefined);
    try {
      const answer = await validate(plugin, current());
      setChecked(answer);
      return answer;
    } catch (err) {
      setError(err);
      return undefined;
    }
  };
  const save = async () => {
    const answer = await check();
    if (!answer || answer.error_count > 0) return;
    try {
      const { name: _n, ...body } = current();
      await api("connect", `/connectors/${enc(name)}/config`, { method: "PUT", body });
      navigate(["connectors", name]);
    } catch (err) {
      setError(err);
    }
  };
  const groups = new Map<string, ConfigKey[]>();
  for (const k of keys.data ?? []) {
    if (k.name === "name") continue;
    const g = k.group ?? plugin.replace(/^.*\./, "");
    groups.set(g, [...(groups.get(g) ?? []), k]);
  }
  const otherErrors = (checked?.configs ?? []).filter(
    (c) => c.value.errors.length > 0 && !(keys.data ?? []).some((k) => k.name === c.value.name && k.name !== "name"),
  );
  return (
    <div>
      <h1>
        <a href={href(["connectors"])}>Connectors</a> / {editing ? `${editing}: config` : "New connector"}
      </h1>
      <div class="toolbar">
        <label>
          Name <input name="name" value={name} disabled={!!editing} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Plugin{" "}
          <select
            name="connector.class"
            value={plugin}
            onChange={(e) => setConfig({ ...config, "connector.class": e.currentTarget.value })}
            disabled={raw !== undefined}
          >
            <option value="">choose…</option>
            {plugins.data?.map((p) => (
              <option key={p.class} value={p.class}>
                {p.class.replace(/^.*\./, "")} ({p.type})
              </option>
            ))}
            {plugin && !plugins.data?.some((p) => p.class === plugin) && <option value={plugin}>{plugin}</option>}
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            name="raw"
            checked={raw !== undefined}
            onChange={(e) =>
              setRaw(
                e.currentTarget.checked ? JSON.stringify(config, null, 2) : (setConfig(JSON.parse(raw!)), undefined),
              )
            }
          />{" "}
          Raw JSON
        </label>
      </div>
      <ErrorBox error={error ?? keys.error ?? plugins.error} />
      {raw !== undefined ? (
        <textarea
          name="raw-config"
          class="editor"
          rows={Math.max(12, raw.split("\n").length + 1)}
          value={raw}
          onInput={(e) => setRaw(e.currentTarget.value)}
        />
      ) : (
        // The plugin's own settings and the common ones open; the rest folded unless something in them is wrong.
        [...groups].map(([group, ks], i) => (
          <details
            key={group}
            class="group"
            open={i === 0 || group === "Common" || ks.some((k) => errorsOf(k.name).length > 0 || config[k.name])}
          >
            <summary>{group}</summary>
            {ks.map((k) => (
              <Field
                key={k.name}
                def={k}
                value={config[k.name] ?? ""}
                errors={errorsOf(k.name)}
                set={(v) => setConfig({ ...config, [k.name]: v })}
              />
            ))}
          </details>
        ))
      )}
      {otherErrors.map((c) => (
        <div key={c.value.name} class="field-error">
          {c.value.name}: {c.value.errors.join("; ")}
        </div>
      ))}
      <div class="toolbar">
        <button type="button" disabled={!plugin} onClick={check}>
          Validate
        </button>
        <button type="button" class="primary" disabled={!plugin || !name} onClick={save}>
          {editing ? "Save" : "Create"}
        </button>
        {checked && (
          <span class={checked.error_count ? "bad" : "ok"} role="status">
            {checked.error_count ? `${checked.error_count} error${checked.error_count === 1 ? "" : "s"}` : "Valid"}
          </span>
        )}
      </div>
    </div>
  );
}

function Field({
  def,
  value,
  errors,
  set,
}: {
  def: ConfigKey;
  value: string;
  errors: string[];
  set: (v: string) => void;
}) {
  const id = `f-${def.name}`;
  const input =
    def.type === "BOOLEAN" ? (
      <select id={id} name={def.name} value={value} onChange={(e) => set(e.currentTarget.value)}>
        <option value="">default ({def.default_value ?? "none"})</option>
        <option>true</option>
        <option>false</option>
      </select>
    ) : def.type === "PASSWORD" ? (
      <input id={id} name={def.name} type="password" value={value} onInput={(e) => set(e.currentTarget.value)} />
    ) : (
      <input
        id={id}
        name={def.name}
        value={value}
        placeholder={def.default_value ?? ""}
        onInput={(e) => set(e.currentTarget.value)}
      />
    );
  return (
    <div class={`field${errors.length ? " invalid" : ""}${def.required ? " required" : ""}`} data-field={def.name}>
      <label for={id}>
        {def.display_name || def.name}{" "}
        <small class="muted">
          {def.name !== def.display_name ? def.name : ""} {def.type}
        </small>
      </label>
      {input}
      {errors.map((e, i) => (
        <div key={i} class="field-error">
          {e}
        </div>
      ))}
      {def.documentation && <div class="doc">{def.documentation}</div>}
    </div>
  );
}
