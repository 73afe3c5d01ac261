// The console's frame: navigation for the services this console reaches, and the page of the route.
import { has, homeService } from "./api.ts";
import { ApiReferencePage } from "./pages/api-reference.tsx";
import { ClusterPage } from "./pages/cluster.tsx";
import { ConnectorFormPage } from "./pages/connector-form.tsx";
import { ConnectorPage } from "./pages/connector.tsx";
import { ConnectorsPage } from "./pages/connectors.tsx";
import { DraftPage } from "./pages/draft.tsx";
import { ExportersPage } from "./pages/exporters.tsx";
import { MirrorPage } from "./pages/mirror.tsx";
import { PluginsPage } from "./pages/plugins.tsx";
import { SchemaIdPage } from "./pages/schema-id.tsx";
import { SubjectPage } from "./pages/subject.tsx";
import { SubjectsPage } from "./pages/subjects.tsx";
import { href, useRoute, type Route } from "./router.ts";
import { canWrite, userName } from "./session.ts";

function page(route: Route) {
  const [top, second, third] = route.path;
  switch (top) {
    case "subjects":
      return second ? <SubjectPage route={route} /> : <SubjectsPage route={route} />;
    case "draft":
      return <DraftPage route={route} />;
    case "schemas":
      return <SchemaIdPage route={route} />;
    case "connectors":
      return third === "edit" ? (
        <ConnectorFormPage route={route} />
      ) : second ? (
        <ConnectorPage route={route} />
      ) : (
        <ConnectorsPage />
      );
    case "new-connector":
      return <ConnectorFormPage route={route} />;
    case "plugins":
      return <PluginsPage route={route} />;
    case "mirror":
      return <MirrorPage />;
    case "exporters":
      return <ExportersPage />;
    case "cluster":
      return <ClusterPage />;
    case "api":
      return <ApiReferencePage route={route} />;
    default:
      return homeService() === "registry" ? <SubjectsPage route={route} /> : <ConnectorsPage />;
  }
}

export function App() {
  const route = useRoute();
  const top = route.path[0] ?? (homeService() === "registry" ? "subjects" : "connectors");
  const link = (path: string, label: string) => (
    <a
      href={href([path])}
      class={
        top === path ||
        (path === "subjects" && ["draft", "schemas"].includes(top)) ||
        (path === "connectors" && top === "new-connector")
          ? "current"
          : ""
      }
    >
      {label}
    </a>
  );
  const user = userName();
  const readOnly = (has("registry") && !canWrite("registry")) || (has("connect") && !canWrite("connect"));
  return (
    <>
      <header>
        <a class="brand" href="#/">
          Sluice
        </a>
        <nav>
          {has("registry") && link("subjects", "Subjects")}
          {has("connect") && link("connectors", "Connectors")}
          {has("connect") && link("plugins", "Plugins")}
          {has("connect") && link("mirror", "Mirror")}
          {has("registry") && link("exporters", "Exporters")}
          {link("cluster", "Cluster")}
          {has("registry") && (
            <a href={href(["api", "registry"])} class={top === "api" && route.path[1] !== "connect" ? "current" : ""}>
              Registry API
            </a>
          )}
          {has("connect") && (
            <a href={href(["api", "connect"])} class={top === "api" && route.path[1] === "connect" ? "current" : ""}>
              Connect API
            </a>
          )}
        </nav>
        <span class="who">
          {user && <span data-testid="user">{user}</span>}
          {readOnly && <span class="badge">read-only</span>}
        </span>
      </header>
      <main>{page(route)}</main>
    </>
  );
}
