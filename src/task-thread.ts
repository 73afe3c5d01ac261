// Entry of a connect worker's task thread (src/connect/runtime/threads/): a module of its own, bundled
// into the binary by build.ts beside cli.ts, because the thread needs the built-in plugins.
import { catalog } from "./catalog.ts";
import { hostTasks } from "./connect/runtime/threads/task-host.ts";

hostTasks(catalog);
