// Installed plugins, and a plugin's settings as its config definitions document them.
import { api } from "../api.ts";
import { pluginConfig, type PluginInfo } from "../connect-api.ts";
import { ErrorBox, Loading } from "../components/ui.tsx";
import { useLoad } from "../load.ts";
import { href, type Route } from "../router.ts";
import { canWrite } from "../session.ts";

export function PluginsPage({ route }: { route: Route }) {
  const chosen = route.path[1];
  const plugins = useLoad(() => api<PluginInfo[]>("connect", "/connector-plugins?connectorsOnly=false"), []);
  return (
    <div>
      <h1>
        {chosen ? (
          <>
            <a href={href(["plugins"])}>Plugins</a> / {chosen.replace(/^.*\./, "")}
          </>
        ) : (
          "Plugins"
        )}
      </h1>
      <ErrorBox error={plugins.error} />
      <Loading when={plugins.loading} />
      {chosen ? (
        <PluginDocs plugin={chosen} connector={plugins.data?.find((p) => p.class === chosen)?.type} />
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th>Class</th>
              <th>Type</th>
              <th>Version</th>
            </tr>
          </thead>
          <tbody>
            {plugins.data?.map((p) => (
              <tr key={p.class}>
                <td>
                  {p.type === "source" || p.type === "sink" ? (
                    <a href={href(["plugins", p.class])}>{p.class}</a>
                  ) : (
                    p.class
                  )}
                </td>
                <td>{p.type}</td>
                <td class="muted">{p.version}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function PluginDocs({ plugin, connector }: { plugin: string; connector?: string }) {
  const keys = useLoad(() => pluginConfig(plugin), [plugin]);
  return (
    <div>
      <p>
        <code>{plugin}</code>{" "}
        {connector && canWrite("connect") && (
          <a class="button" href={href(["new-connector"], { plugin })}>
            New {connector} connector
          </a>
        )}
      </p>
      <ErrorBox error={keys.error} />
      <table class="list settings">
        <thead>
          <tr>
            <th>Setting</th>
            <th>Type</th>
            <th>Default</th>
            <th>Importance</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.map((k) => (
            <tr key={k.name}>
              <td>
                <code>{k.name}</code>
                {k.required && <span class="badge">required</span>}
              </td>
              <td>{k.type}</td>
              <td>
                <code>{k.default_value ?? ""}</code>
              </td>
              <td>{k.importance}</td>
              <td>{k.documentation}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
