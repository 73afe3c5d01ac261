// The version every component reports (package.json's), bundled into the binary.
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;
