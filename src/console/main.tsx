// The console's entry: where the APIs are (/ui/config.json), who the user is, then the app (or, where
// the services take only bearer tokens and none was given yet, the sign-in).
import { render } from "preact";
import { mountedAt, setConfig, type ConsoleConfig } from "./api.ts";
import { App } from "./app.tsx";
import { TokenLogin } from "./components/token-login.tsx";
import { token } from "./token.ts";
import { loadPermissions } from "./session.ts";
import "./style.css";

async function start(): Promise<void> {
  const response = await fetch("config.json", { credentials: "same-origin" });
  const config = (await response.json()) as ConsoleConfig;
  setConfig(mountedAt(config, location.pathname));
  if (config.tokenLogin && token() === null) {
    render(<TokenLogin />, document.getElementById("app")!);
    return;
  }
  await loadPermissions();
  render(<App />, document.getElementById("app")!);
}

void start();
