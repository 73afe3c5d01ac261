// The version every component reports (package.json's), bundled into the binary, and the commit it
// was built from (set by build.ts; "dev" when run from source).
import pkg from "../../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
export const COMMIT: string = process.env.SLUICE_COMMIT ?? "dev";
