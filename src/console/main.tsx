// The console's entry: where the APIs are (/ui/config.json), who the user is, then the app.
import { render } from "preact";
import { mountedAt, setConfig, type ConsoleConfig } from "./api.ts";
import { App } from "./app.tsx";
import { loadPermissions } from "./session.ts";
import "./style.css";

async function start(): Promise<void> {
  const response = await fetch("config.json", { credentials: "same-origin" });
  setConfig(mountedAt((await response.json()) as ConsoleConfig, location.pathname));
  await loadPermissions();
  render(<App />, document.getElementById("app")!);
}

void start();
